"""The agents of a results folder (`paretoscope evaluate --out`, or an assets folder with its
results/), ready for a report: each agent's episodes at one discount (a training run's: its
last step) and, where the folder's agents/ holds its checkpoint, the agent itself."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from paretoscope.catalog import AssetCatalog, discover_assets
from paretoscope.errors import ParetoscopeError
from paretoscope.report.content import ReportAgent
from paretoscope.results_store import STEP_COLUMN, ResultsStore


@dataclass(frozen=True)
class StoredAgents:
    """What `agents_from_results` found: the env, the discount and the agents, in order."""

    env_id: str
    gamma: float
    agents: list[ReportAgent]
    results_dir: Path


def _folders(root: Path) -> tuple[Path, Path | None]:
    """(the results store, the assets folder whose agents/ may hold the checkpoints)."""
    if not root.is_dir():
        raise ParetoscopeError(f"RESULTS_DIR: expected a results folder, {str(root)!r} is none")
    if (root / "results").is_dir():
        return root / "results", root
    parent = root.resolve().parent
    return root, parent if (parent / "agents").is_dir() else None


def _pick(option: str, given: str | None, choices: Sequence[str], what: str) -> str:
    listed = ", ".join(choices) if choices else "none"
    if given is None:
        if len(choices) == 1:
            return choices[0]
        raise ParetoscopeError(f"{option}: {what} has {len(choices)} to choose from: {listed}")
    if given not in choices:
        raise ParetoscopeError(f"{option}: no episodes for {given!r} in {what}; stored: {listed}")
    return given


def _stored_envs(store: ResultsStore, root: Path) -> list[str]:
    folders = sorted(path.name for path in root.iterdir() if path.is_dir())
    return [name for name in folders if len(store.read(name))]


def _last_step(rows: pd.DataFrame) -> pd.DataFrame:
    """A training run's rows of its last snapshot; other agents' rows as they are."""
    if STEP_COLUMN not in rows or rows[STEP_COLUMN].isna().all():
        return rows
    steps = rows[STEP_COLUMN]
    return rows[steps == steps.max()]


def agents_from_results(
    results_dir: str | Path,
    env: str | None = None,
    names: Sequence[str] | None = None,
    gamma: float | None = None,
    load: bool = True,
) -> StoredAgents:
    """The agents stored in `results_dir` for `env` (default: the only env stored), those of
    `names` in that order (default: all, sorted), their episodes at `gamma` (default: the one
    discount stored). Where the assets folder's agents/ holds an agent's checkpoint (under the
    same name), its location names it in the sweep command and, with `load`, it is loaded
    for videos (when its fingerprint is that of its episodes)."""
    root = Path(results_dir)
    store_root, assets_root = _folders(root)
    store = ResultsStore(store_root)
    env_id = _pick("--env", env, _stored_envs(store, store_root), f"results folder {str(root)!r}")
    table = store.read(env_id)
    stored = sorted(str(name) for name in table["agent"].unique())
    chosen = list(dict.fromkeys(names)) if names else stored
    for name in chosen:
        _pick("--agents", name, stored, f"the results for {env_id}")
    discounts = table["gamma"].fillna(1.0) if "gamma" in table else pd.Series(1.0, table.index)
    table = table.assign(gamma=discounts)
    in_use = sorted({float(value) for value in table[table["agent"].isin(chosen)]["gamma"]})
    if gamma is None:
        if len(in_use) > 1:
            raise ParetoscopeError(
                f"--gamma: the agents were evaluated at several discounts {in_use}; pick one"
            )
        gamma = in_use[0]
    elif not any(math.isclose(value, gamma, abs_tol=1e-12) for value in in_use):
        raise ParetoscopeError(f"--gamma: no episodes at {gamma}; stored: {in_use}")
    catalog = discover_assets(assets_root) if assets_root is not None else None
    agents = []
    for name in chosen:
        rows = table[table["agent"] == name]
        rows = rows[np.isclose(rows["gamma"].to_numpy(dtype=np.float64), gamma, atol=1e-12)]
        if len(rows) == 0:
            raise ParetoscopeError(f"--agents: {name!r} has no episodes at gamma {gamma:g}")
        rows = _last_step(rows).reset_index(drop=True)
        agents.append(_with_checkpoint(name, rows, env_id, catalog, load))
    return StoredAgents(env_id, float(gamma), agents, store_root)


def _with_checkpoint(
    name: str, rows: pd.DataFrame, env_id: str, catalog: AssetCatalog | None, load: bool
) -> ReportAgent:
    """The agent `name` with its checkpoint's location when the catalog holds one, and with
    `load` the agent itself when its fingerprint is that of its episodes (else a video would
    show another agent)."""
    if catalog is None:
        return ReportAgent(name, rows)
    asset = next((entry for entry in catalog.agents if entry.name == name), None)
    if asset is None:
        return ReportAgent(name, rows)
    if not load:
        return ReportAgent(name, rows, location=str(asset.path), label=asset.label)
    from paretoscope.asset_agents import load_asset_agent

    loaded = load_asset_agent(asset, env_id)
    stored = rows["agent_fingerprint"] if "agent_fingerprint" in rows else pd.Series([], dtype=str)
    fingerprints = set(stored.astype(str))
    agent = loaded.agent if loaded.fingerprint in fingerprints else None
    return ReportAgent(name, rows, agent, location=str(asset.path), label=asset.label)
