"""Everything the pages load, cached per process by plain values (paths with their
modification times, fingerprints, preferences): the catalog, the stores, agents, sweeps and
datasets. Loading and caching only: what is computed comes from core, and a sweep computed on a
cache miss runs in the worker pool like a rollout (`paretoscope.dashboard.live.compute_in_pool`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.agents.header import CHECKPOINT_FORMAT
from paretoscope.agents.loaded import LoadedAgent
from paretoscope.asset_agents import load_asset_agent
from paretoscope.cache import RECORDINGS_SUBDIR, RESULTS_SUBDIR, cache_dir
from paretoscope.catalog import (
    AgentAsset,
    AssetCatalog,
    DatasetAsset,
    SweepPlan,
    discover_many,
)
from paretoscope.catalog.digest import content_digest
from paretoscope.dashboard.folders import assets_root, readable_roots
from paretoscope.dashboard.limits import video_cache_bytes
from paretoscope.dashboard.live import compute_in_pool, compute_with_progress
from paretoscope.dashboard.memory import watch_library
from paretoscope.dashboard.messages import inert
from paretoscope.dashboard.paths import confine_catalog
from paretoscope.dashboard.session import session_uploads
from paretoscope.dashboard.stamps import mtime
from paretoscope.dashboard.streamlit_internals import server_logger
from paretoscope.dashboard.widgets.progress import episode_progress, previous_page_hidden
from paretoscope.recordings import RecordingLibrary
from paretoscope.results_store import LayeredStore, layered_store
from paretoscope.sweeps import SweepRequest, mean_per_preference, objective_arrays

log = server_logger("paretoscope.dashboard")  # what it evaluated, and how long it took


def catalog() -> AssetCatalog:
    """Everything in the assets folder, the folders the user added and this session's uploads;
    entries that lead outside those folders (links) are refused."""
    roots: list[Path] = [assets_root(), *map(Path, st.session_state.get("_extra_roots", []))]
    uploads = session_uploads()
    if uploads is not None and any(uploads.iterdir()):
        roots.append(uploads)
    allowed = [*readable_roots(), *([uploads] if uploads is not None else [])]
    return _discover(
        tuple(str(root) for root in roots),
        _folder_stamps(roots),
        tuple(str(root) for root in allowed),
    )


def _folder_stamps(roots: Sequence[Path]) -> tuple[float, ...]:
    """Modification times of the folders whose entries discovery lists: adding, removing or
    replacing an agent or dataset changes one of them."""
    stamps = []
    for root in roots:
        for folder in (root, root / "agents", root / "datasets"):
            try:
                stamps.append(folder.stat().st_mtime)
            except OSError:
                stamps.append(0.0)
            if folder != root and folder.is_dir():
                stamps.extend(mtime(child) for child in folder.iterdir())
        manifest = root / "manifest.json"
        stamps.append(manifest.stat().st_mtime if manifest.is_file() else 0.0)
    return tuple(stamps)


@st.cache_resource(show_spinner=False, max_entries=32)
def _discover(
    roots: tuple[str, ...], stamps: tuple[float, ...], allowed: tuple[str, ...]
) -> AssetCatalog:
    del stamps  # part of the cache key only
    return confine_catalog(discover_many([Path(root) for root in roots]), allowed)


@st.cache_resource(show_spinner=False)
def _store(results_dirs: tuple[str, ...], cache: str) -> LayeredStore:
    return layered_store([Path(folder) for folder in results_dirs], Path(cache) / RESULTS_SUBDIR)


@st.cache_resource(show_spinner=False)
def _library(rollout_dirs: tuple[str, ...], cache: str) -> RecordingLibrary:
    return watch_library(
        RecordingLibrary(
            [Path(folder) for folder in rollout_dirs],
            Path(cache) / RECORDINGS_SUBDIR,
            capacity_bytes=video_cache_bytes(),
        )
    )


def store(found: AssetCatalog) -> LayeredStore:
    """The catalog's precomputed sweeps (read only) over the cache's (written), one per process."""
    return _store(tuple(str(folder) for folder in found.results_dirs), str(cache_dir()))


def library(found: AssetCatalog) -> RecordingLibrary:
    """The recording library over the catalog's ``rollouts/`` and the cache's, one per process."""
    return _library(tuple(str(folder) for folder in found.rollout_dirs), str(cache_dir()))


@st.cache_data(show_spinner=False, max_entries=64)
def _content_digest(path: str, stamp: float) -> str:
    del stamp  # part of the cache key only
    return content_digest(Path(path))


def checkpoint_digest(asset: AgentAsset) -> str | None:
    """The content digest of a paretoscope checkpoint's files, what decides the agent it loads
    (None for other formats: an import's agent also depends on the answers it was given)."""
    if asset.format != CHECKPOINT_FORMAT:
        return None
    try:
        return _content_digest(str(asset.path), _stamp(asset))
    except OSError:
        return None


def _stamp(asset: AgentAsset) -> float:
    """What says the agent changed: its files' modification time (a built-in or plug-in agent
    has no file: a file of its name in the working directory must not count)."""
    return 0.0 if asset.builtin else mtime(asset.path)


@st.cache_resource(show_spinner="Loading the agent…", max_entries=16)
def _loaded_agent(
    path: str, mtime: float, fmt: str, env_id: str | None, kind: str, name: str
) -> LoadedAgent:
    """Cached by the asset's plain values; a named agent (format ``builtin``, or ``plugin`` for
    a server's ``--agent py:...`` and installed ones) has no file (its stamp is 0.0) and is one
    entry per (agent, env), built by name, with its own fingerprint (``random:<env>:seed=0``,
    ``plugin:<digest of name, env and source>``)."""
    del mtime  # part of the cache key only
    asset = AgentAsset(
        name=name,
        path=Path(path),
        format=fmt,
        env_id=env_id,
        kind=kind,
        return_conditioned=True,
        label=name,
    )
    return load_asset_agent(asset, env_id=env_id)


def loaded_agent(asset: AgentAsset) -> LoadedAgent:
    """The agent of `asset`, loaded once per process (reloaded when its files change); the
    built-in ones are built for their env. While one loads for the first time, the previous
    agent's page is hidden (its spinner shows instead)."""
    key = (str(asset.path), _stamp(asset), asset.format, asset.env_id, asset.kind, asset.name)
    place = st.empty()  # at every run: what follows keeps its place
    if key in _agents_loaded:
        return _loaded_agent(*key)
    with previous_page_hidden(place):
        loaded = _loaded_agent(*key)
    if len(_agents_loaded) >= _MOST_REMEMBERED:
        _agents_loaded.clear()
    _agents_loaded.add(key)
    return loaded


# The agents `loaded_agent` loaded in this process (the next asks draw nothing meanwhile).
_agents_loaded: set[tuple[str, float, str, str | None, str, str]] = set()


def fitting_agent(asset: AgentAsset, env_id: str) -> LoadedAgent:
    """`loaded_agent`, checked to fit `env_id` (objectives, observations, actions) before a
    page rolls it out: a mismatch is one message naming both, not a failure mid-episode."""
    from paretoscope.rollout import check_agent_fits

    loaded = loaded_agent(asset)
    check_agent_fits(loaded.agent, env_id)
    return loaded


class _SweepKey(NamedTuple):
    """The plain values a sweep is cached by (`_sweep_table`'s arguments, in order)."""

    path: str
    stamp: float
    fmt: str
    env_id: str
    kind: str
    name: str
    plan: tuple[int, tuple[int, ...], int | None]
    preferences: tuple[tuple[float, ...], ...] | None
    targets: tuple[tuple[float, ...], ...] | None
    results_dirs: tuple[str, ...]
    cache: str
    gamma: float


@st.cache_data(show_spinner=False, max_entries=64)
def _sweep_table(
    path: str,
    stamp: float,
    fmt: str,
    env_id: str,
    kind: str,
    name: str,
    plan: tuple[int, tuple[int, ...], int | None],
    preferences: tuple[tuple[float, ...], ...] | None,
    targets: tuple[tuple[float, ...], ...] | None,
    results_dirs: tuple[str, ...],
    cache: str,
    gamma: float = 1.0,
) -> pd.DataFrame:
    key = _SweepKey(
        path, stamp, fmt, env_id, kind, name, plan, preferences, targets, results_dirs, cache, gamma
    )
    with _swept_lock:
        swept = _swept.pop(key, None)
    if swept is not None:
        return swept  # just computed with its progress shown (`_sweep_shown`)
    loaded, request, results = _sweep_request(key)

    def compute() -> pd.DataFrame:
        with loaded.borrow() as agent:
            return request.run(agent, results)

    if request.missing(loaded.agent, results) == 0:
        return compute()  # everything is stored: reading needs no worker
    return compute_in_pool(request.key(), compute)


def _sweep_request(key: _SweepKey) -> tuple[LoadedAgent, SweepRequest, LayeredStore]:
    loaded = _loaded_agent(key.path, key.stamp, key.fmt, key.env_id, key.kind, key.name)
    request = SweepRequest(
        fingerprint=loaded.fingerprint,
        name=key.name,
        env_id=key.env_id,
        plan=SweepPlan(granularity=key.plan[0], seeds=key.plan[1], horizon=key.plan[2]),
        preferences=key.preferences,
        targets=key.targets,
        gamma=key.gamma,
    )
    return loaded, request, _store(key.results_dirs, key.cache)


# Sweeps known to be computed (or stored) in this process: no store is asked about them again
# (forgotten all at once past `_MOST_REMEMBERED`: asking again costs one read of the store).
_complete: set[_SweepKey] = set()
_MOST_REMEMBERED = 4096
# Tables `_sweep_shown` computed, handed to the cached `_sweep_table` that asks next.
_swept: dict[_SweepKey, pd.DataFrame] = {}
_swept_lock = threading.Lock()


def _sweep_shown(key: _SweepKey, label: str) -> None:
    """Compute the sweep's missing episodes before a page draws it, with a progress bar
    (episodes done of the total, the time left) in place of the previous agent's page; nothing
    shows when every episode is stored or this process computed it before."""
    place = st.empty()  # at every run: what follows keeps its place
    if key in _complete:
        return
    loaded, request, results = _sweep_request(key)
    missing = request.missing(loaded.agent, results)
    if missing:

        def compute(report: Callable[[int, int], None]) -> pd.DataFrame:
            with loaded.borrow() as agent:
                return request.run(agent, results, on_progress=report)

        started = time.monotonic()
        with episode_progress(place, f"Evaluating {inert(label)}") as show:
            table = compute_with_progress(request.key(), compute, show)
        log.info("evaluated %s: %d episodes in %.2f s", label, missing, time.monotonic() - started)
        with _swept_lock:
            if len(_swept) >= 16:  # tables no cache asked for (it held them already): dropped
                _swept.clear()
            _swept[key] = table
    if len(_complete) >= _MOST_REMEMBERED:
        _complete.clear()
    _complete.add(key)


def _sweep_key(
    asset: AgentAsset,
    found: AssetCatalog,
    preferences: np.ndarray | None,
    targets: np.ndarray | None,
    gamma: float,
) -> _SweepKey:
    plan = asset.sweep_plan()
    assert asset.env_id is not None
    as_rows = None if preferences is None else tuple(tuple(map(float, row)) for row in preferences)
    target_rows = None if targets is None else tuple(tuple(map(float, row)) for row in targets)
    return _SweepKey(
        str(asset.path),
        _stamp(asset),
        asset.format,
        asset.env_id,
        asset.kind,
        asset.name,
        (plan.granularity, tuple(plan.seeds), plan.horizon),
        as_rows,
        target_rows,
        tuple(str(folder) for folder in found.results_dirs),
        str(cache_dir()),
        float(gamma),
    )


def sweep_table(
    asset: AgentAsset,
    found: AssetCatalog,
    preferences: np.ndarray | None = None,
    targets: np.ndarray | None = None,
    gamma: float = 1.0,
) -> pd.DataFrame:
    """The agent's sweep (its plan's grid, or `preferences` with `targets`) with returns
    discounted by `gamma`, from the stores or computed once; cached by plain values."""
    key = _sweep_key(asset, found, preferences, targets, gamma)
    _sweep_shown(key, asset.label)
    with st.spinner(f"Evaluating {inert(asset.label)}…"):
        return _sweep_table(*key)


@dataclass(frozen=True)
class SweepPoints:
    """A sweep as a front draws it: one point per (preference, target) with its episodes
    averaged (`paretoscope.sweeps.mean_per_preference`), and every episode's own row
    (`paretoscope.sweeps.objective_arrays`)."""

    front: dict[str, np.ndarray]
    episodes: dict[str, np.ndarray]


@st.cache_data(show_spinner=False, max_entries=64)
def _sweep_points(key: _SweepKey) -> SweepPoints:
    table = _sweep_table(*key)
    return SweepPoints(mean_per_preference(table, key.env_id), objective_arrays(table, key.env_id))


def sweep_points(
    asset: AgentAsset,
    found: AssetCatalog,
    preferences: np.ndarray | None = None,
    targets: np.ndarray | None = None,
    gamma: float = 1.0,
) -> SweepPoints:
    """`sweep_table`'s sweep as arrays, cached too: averaging the episodes per preference is a
    pandas group-by that would otherwise run at every rerun of a page with a front."""
    key = _sweep_key(asset, found, preferences, targets, gamma)
    _sweep_shown(key, asset.label)
    with st.spinner(f"Evaluating {inert(asset.label)}…"):
        return _sweep_points(key)


@st.cache_data(show_spinner="Reading the dataset…", max_entries=16)
def _dataset_summary(path: str, mtime: float, env_id: str) -> Any:
    from paretoscope.data import dataset_summary

    del mtime
    return dataset_summary(path, env_id=env_id)


def dataset_summary(asset: DatasetAsset) -> Any:
    """The dataset's `DatasetSummary` (with its per-trajectory table), cached."""
    return _dataset_summary(str(asset.path), mtime(asset.path), asset.env_id)


@st.cache_resource(show_spinner="Opening the dataset…", max_entries=4)
def _trajectories(path: str, mtime: float, env_id: str) -> Any:
    from paretoscope.data import open_dataset

    del mtime
    return open_dataset(path, env_id=env_id)


def trajectories(asset: DatasetAsset) -> Any:
    """The dataset's `Trajectories` (memory-mapped for native datasets), cached."""
    return _trajectories(str(asset.path), mtime(asset.path), asset.env_id)
