"""Names given as ``"module:attribute"`` strings, imported only when first used.

Registries (agent kinds, file formats) accept such strings so that registering a heavy module
(torch, mujoco) costs nothing until something actually needs it.
"""

from __future__ import annotations

import importlib
from typing import Any


def resolve(target: Any) -> Any:
    """`target` itself, or the attribute a ``"module:attribute"`` string names."""
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
