"""Private copies of registries for a test: what it registers, and the entry points it loads,
are undone after it."""

from __future__ import annotations

from typing import Any

import pytest

from paretoscope.registry import Registry


def private_registries(monkeypatch: pytest.MonkeyPatch, *registries: Registry[Any]) -> None:
    """Give each of `registries` a copy of its entries and forget that its entry points were
    loaded (the next read loads them again, from the test's `sys.path`); undone after the test."""
    for registry in registries:
        monkeypatch.setattr(registry, "_entries", dict(registry._entries))
        monkeypatch.setattr(registry, "_problems", None)
