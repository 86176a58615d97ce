"""Agents known by name, usable wherever an agent path goes (`paretoscope evaluate random ...`).

A name is an agent only when no file or folder of that name exists: a checkpoint saved as
``./random`` is still loaded from disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.agents.base import Agent
from core.agents.random_agent import RANDOM_AGENT, RandomAgent
from core.errors import ParetoscopeError

# Name -> how to build it for an env id.
_BUILDERS: dict[str, Callable[[str], Agent]] = {RANDOM_AGENT: RandomAgent}
BUILTIN_AGENTS: tuple[str, ...] = tuple(_BUILDERS)


def is_builtin(name: str | os.PathLike[str]) -> bool:
    return str(name) in BUILTIN_AGENTS and not Path(name).exists()


def check_builtin(name: str) -> str:
    """`name` if it names a built-in agent, else a ParetoscopeError listing them."""
    if name not in BUILTIN_AGENTS:
        raise ParetoscopeError(
            f"no built-in agent {name!r} (built-in agents: {', '.join(BUILTIN_AGENTS)})"
        )
    return name


def builtin_agent(name: str, env_id: str) -> Agent:
    """The built-in agent `name` for `env_id`, whatever files exist (the dashboard's agent list
    offers it by name beside the catalog's files, so a file called ``random`` must not stand in)."""
    return _BUILDERS[check_builtin(name)](env_id)


def load_agent(name_or_path: str | os.PathLike[str], env_id: str, device: str = "cpu") -> Agent:
    """The built-in agent `name_or_path` for `env_id`, else the checkpoint saved at that path."""
    if is_builtin(name_or_path):
        return builtin_agent(str(name_or_path), env_id)
    from core.agents.checkpoint import load

    return load(name_or_path, device=device)
