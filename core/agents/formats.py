"""Agent file formats: cheap, torch-free sniffing of what a file or folder is.

Each format's own module says whether a path is one of its files and what it can tell without
loading weights (`AgentHeader`). Discovery (`core.catalog`), the CLI and uploads all ask
`sniff_agent`, so a new format is one sniffer plus a `register_agent_format` call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import ParetoscopeError
from core.lazy import SnifferRegistry


@dataclass(frozen=True)
class AgentHeader:
    """What an agent file says about itself without loading it."""

    format: str  # "checkpoint" (paretoscope's own) or a foreign format ("peda", ...)
    env_id: str | None  # None when the file does not say (the user must)
    kind: str  # morvs, bc, modt, policy_set, ... or the foreign type when known
    return_conditioned: bool
    description: str = ""


# (path) -> its header, None when the path is not of this format; raises `ParetoscopeError`
# when it claims to be (name, signature) but cannot be read.
AgentSniffer = Callable[[Path], "AgentHeader | None"]

_REGISTRY: SnifferRegistry[AgentHeader] = SnifferRegistry(
    {
        "checkpoint": "core.agents.checkpoint_header:sniff_checkpoint",
        "peda": "core.agents.peda_file:sniff_peda",
    }
)


def register_agent_format(name: str, sniffer: AgentSniffer | str) -> None:
    """Add (or replace) a format; `sniffer` may be ``"module:function"``, imported when used."""
    _REGISTRY.register(name, sniffer)


def agent_formats() -> list[str]:
    return _REGISTRY.names()


def sniff_agent(path: str | Path) -> AgentHeader | None:
    """The header of the first format that claims `path`, None when none does."""
    return _REGISTRY.sniff(Path(path))


def claims_agent(path: str | Path) -> bool:
    """Whether some format claims `path`, even if it then fails to read it."""
    try:
        return sniff_agent(path) is not None
    except ParetoscopeError:
        return True
