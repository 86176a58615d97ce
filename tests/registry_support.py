"""Registries in tests: private copies (what a test registers, and the entry points it loads,
are undone after it), and a fake installed distribution that declares entry points."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from paretoscope.registry import Registry


def private_registries(monkeypatch: pytest.MonkeyPatch, *registries: Registry[Any]) -> None:
    """Give each of `registries` a copy of its entries and forget that its entry points were
    loaded (the next read loads them again, from the test's `sys.path`); undone after the test."""
    for registry in registries:
        monkeypatch.setattr(registry, "_entries", dict(registry._entries))
        monkeypatch.setattr(registry, "_problems", None)


def install_distribution(
    site: Path, name: str, entry_points: dict[str, dict[str, str]], modules: tuple[Path, ...] = ()
) -> Path:
    """Make `site` look like an installed distribution `name` (a ``*.dist-info`` folder with
    METADATA and entry_points.txt, and copies of `modules`): on `sys.path` or PYTHONPATH,
    `importlib.metadata` finds its entry points as it would a pip-installed package's."""
    dist = site / f"{name.replace('-', '_')}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{key} = {target}\n" for key, target in entries.items())
            for group, entries in entry_points.items()
        )
    )
    for module in modules:
        shutil.copy(module, site / module.name)
    return site
