"""Agents: the protocol every kind follows, their implementations and checkpoints.

`load` and `save` import torch on first use, so `paretoscope.agents.base` stays light to import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paretoscope.agents.base import Agent, AgentKind, AgentSpec, Conditioning


def load(path: str | Path, device: str = "cpu") -> Agent:
    """Rebuild any saved agent (directory or .safetensors); see `paretoscope.agents.checkpoint`."""
    from paretoscope.agents.checkpoint import load as load_checkpoint

    return load_checkpoint(path, device=device)


def save(agent: Any, path: str | Path, single_file: bool = False) -> Path:
    """Write an agent checkpoint (JSON config + safetensors); see
    `paretoscope.agents.checkpoint`."""
    from paretoscope.agents.checkpoint import save as save_checkpoint

    return save_checkpoint(agent, path, single_file=single_file)


__all__ = ["Agent", "AgentKind", "AgentSpec", "Conditioning", "load", "save"]
