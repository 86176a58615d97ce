"""Names given as ``"module:attribute"`` strings, imported only when first used, and a small
registry of such names.

Registries (agent kinds, file formats) accept such strings so that registering a heavy module
(torch, mujoco) costs nothing until something actually needs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

Header = TypeVar("Header")


def resolve(target: Any) -> Any:
    """`target` itself, or the attribute a ``"module:attribute"`` string names."""
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


class SnifferRegistry(Generic[Header]):
    """Named sniffers, asked in registration order: ``sniffer(path)`` returns a header when
    the path is of its format, None otherwise (and raises when it claims the path but cannot
    read it)."""

    def __init__(self, sniffers: dict[str, Callable[[Path], Header | None] | str]) -> None:
        self._sniffers = dict(sniffers)

    def register(self, name: str, sniffer: Callable[[Path], Header | None] | str) -> None:
        """Add (or replace) a format; `sniffer` may be ``"module:function"``."""
        self._sniffers[name] = sniffer

    def names(self) -> list[str]:
        return list(self._sniffers)

    def sniff(self, path: Path) -> Header | None:
        """The header of the first format that claims `path`, None when none does."""
        for sniffer in self._sniffers.values():
            header: Header | None = resolve(sniffer)(path)
            if header is not None:
                return header
        return None
