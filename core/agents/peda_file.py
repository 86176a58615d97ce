"""PEDA checkpoints seen from outside: which files are ones, without torch.

PEDA saves ``torch.save({'model': ..., 'optimizer': ...}, 'ckpt/step=N.ckpt')`` with no
metadata, so a file says neither its env nor its type (dt, rvs, bc): the env and type are
asked for (or read from the manifest) and `core.agents.peda` imports it when chosen.
"""

from __future__ import annotations

from pathlib import Path

from core.agents.formats import AgentHeader
from core.errors import ParetoscopeError

PEDA_SUFFIXES = (".ckpt", ".pt", ".pth")
PEDA_TYPES = ("dt", "rvs", "bc")


def check_torch_signature(name: str, head: bytes) -> None:
    """Refuse bytes that start neither a ``torch.save`` zip nor a legacy torch pickle."""
    if not (head.startswith(b"PK\x03\x04") or head.startswith(b"\x80")):
        raise ParetoscopeError(
            f"{name}: not a torch checkpoint (expected a torch.save zip or pickle)"
        )


def is_peda_path(path: Path) -> bool:
    return path.is_file() and path.suffix in PEDA_SUFFIXES


def sniff_peda(path: Path) -> AgentHeader | None:
    """A PEDA checkpoint's header (env and type unknown); None for other files."""
    if not is_peda_path(path):
        return None
    return AgentHeader(
        format="peda",
        env_id=None,
        kind="peda",
        return_conditioned=True,
        description="PEDA checkpoint (imported when chosen)",
    )
