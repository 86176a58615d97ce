"""The layer contracts (pyproject.toml, checked by `lint-imports` in the README's test command)
cover the whole package: a module left out of every layer would escape the check."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import paretoscope
from tests.conftest import REPO_DIR

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def _layer_contract() -> dict:
    config = tomllib.loads((REPO_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return layers


def _children_of_paretoscope() -> set[str]:
    children = set()
    for path in Path(paretoscope.__file__).parent.iterdir():
        if path.name.startswith("_") or path.name == "assets":
            continue
        if path.suffix == ".py" or (path / "__init__.py").is_file():
            children.add(path.stem)
    return children


def test_every_module_of_paretoscope_is_in_a_layer() -> None:
    contract = _layer_contract()
    assert contract["containers"] == ["paretoscope"]
    named = {name.strip("() ") for layer in contract["layers"] for name in re.split("[|:]", layer)}
    children = _children_of_paretoscope()
    assert children - named == set(), "add these modules to a layer in pyproject.toml"
    assert named - children == set(), "these layers name modules that do not exist"


def test_the_applications_are_the_top_layers() -> None:
    layers = _layer_contract()["layers"]
    assert layers[0] == "cli"
    assert set(re.split(r"\s*\|\s*", layers[1])) == {"demo", "dashboard"}
