"""An assets folder's ``manifest.json``: labels, defaults and sweep plans.

``manifest.json`` (format "paretoscope-assets", version 1)::

    {"format": "paretoscope-assets", "version": 1,
     "title": "...", "description": "...",
     "defaults": {"env": "MO-HalfCheetah-v2", "agent": "cheetah-morvs",
                  "dataset": "cheetah-expert", "seed": 0},
     "sweep": {"granularity": 20, "seeds": [0], "horizon": null},
     "agents": {"cheetah-morvs": {"label": "...", "description": "...",
                                   "dataset": "cheetah-expert", "sweep": {...}}},
     "datasets": {"cheetah-expert": {"label": "...", "description": "...", "env": "..."}}}

A sweep plan says which sweep the dashboard shows for an agent (preference grid granularity,
seeds, episode length); whoever precomputes sweeps into ``results/`` uses the same plan, so the
dashboard finds every episode already stored. The episode length also applies to live rollouts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.jsonfile import read_json_object
from paretoscope.text import briefly

MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = "paretoscope-assets"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class SweepPlan:
    """Which sweep represents an agent: preference grid granularity, seeds, episode length."""

    granularity: int
    seeds: tuple[int, ...] = (0,)
    horizon: int | None = None  # None: the env's own horizon

    def __post_init__(self) -> None:
        if isinstance(self.granularity, bool) or not isinstance(self.granularity, int):
            raise ParetoscopeError(
                f"sweep.granularity: expected an integer, got {briefly(self.granularity)}"
            )
        if self.granularity < 1:
            raise ParetoscopeError(f"sweep.granularity: expected >= 1, got {self.granularity}")
        if not self.seeds:
            raise ParetoscopeError("sweep.seeds: expected at least one seed")
        if self.horizon is not None and self.horizon < 1:
            raise ParetoscopeError(f"sweep.horizon: expected >= 1 or null, got {self.horizon}")

    def to_dict(self) -> dict[str, Any]:
        return {"granularity": self.granularity, "seeds": list(self.seeds), "horizon": self.horizon}


def default_sweep_plan(n_obj: int) -> SweepPlan:
    """The plan used when the manifest names none: a grid as fine as the dashboard's sliders."""
    granularity = {1: 1, 2: 20, 3: 10, 4: 6}.get(n_obj, 4)
    return SweepPlan(granularity=granularity)


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest's content ({} when there is none); a malformed one raises."""
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return {}
    data = read_json_object(path)
    if data.get("format", MANIFEST_FORMAT) != MANIFEST_FORMAT:
        raise ParetoscopeError(
            f"{path}: format is {briefly(data.get('format'))}, expected {MANIFEST_FORMAT!r}"
        )
    version = data.get("version", MANIFEST_VERSION)
    if version != MANIFEST_VERSION:
        raise ParetoscopeError(
            f"{path}: version {briefly(version)}; this paretoscope reads version {MANIFEST_VERSION}"
        )
    return data


def write_manifest(folder: str | os.PathLike[str], content: Mapping[str, Any]) -> Path:
    """Write `content` (format and version added) as the folder's manifest."""
    path = Path(folder) / MANIFEST_FILE
    payload = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, **dict(content)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return path


def manifest_object(value: object, where: str) -> Mapping[str, Any]:
    """A part of the manifest that must be an object (`where` names it); {} when absent."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParetoscopeError(f"{where}: expected an object")
    return value


def sweep_plan_from(value: object, where: str) -> SweepPlan | None:
    """The sweep plan a manifest's ``sweep`` object gives (`where` names it); None when absent."""
    if value is None:
        return None
    data = manifest_object(value, where)
    try:
        seeds = tuple(int(seed) for seed in data.get("seeds", [0]))
        horizon = data.get("horizon")
        return SweepPlan(
            granularity=data["granularity"],
            seeds=seeds,
            horizon=None if horizon is None else int(horizon),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"{where}: expected granularity (integer), seeds (list) and horizon ({error!r})"
        ) from None
