"""The torch device an agent is asked to act on, checked where agents are loaded.

Only the networks of paretoscope's own conditioned checkpoints (MORVS, BC, MODT) move to a
device; every other agent (imported files, MORL-Baselines kinds, policy sets, built-ins,
plug-ins) acts on the CPU. A device that names nothing, that is not here, or that the agent
would not use is refused rather than ignored.
"""

from __future__ import annotations

import torch

from paretoscope.agents.base import Agent
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly, printable


def resolve_device(device: str | torch.device) -> torch.device:
    """`device` as a torch device; raises for a name torch does not know or CUDA not here."""
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"device: {printable(str(device), 40)!r} is not a torch device ({error})"
        ) from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ParetoscopeError(
            f"device: {printable(str(device), 40)!r} asked for, but CUDA is not available here"
        )
    return resolved


def check_device_used(agent: Agent, device: torch.device, source: object) -> None:
    """Refuse a device other than the CPU for an agent that does not act on it."""
    if device.type == "cpu" or getattr(agent, "device", None) == device:
        return
    raise ParetoscopeError(
        f"device: {briefly(str(device))} cannot apply to {printable(str(source), 200)}: a "
        f"{agent.spec.kind} agent acts on the CPU only (leave --device out)"
    )
