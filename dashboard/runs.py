"""A training run as the pages show it: its front at every step and the metrics step by step,
either from sweeping each snapshot (an ordinary cached sweep of
`paretoscope.catalog.snapshot_asset`,
so episodes that `paretoscope evaluate RUN` stored are read, not recomputed) or from the
evaluations the trainer logged itself (PEDA's rollout logs, read and never re-run).

A snapshot that fails to load or sweep is left out with a notice naming it, like the snapshots
the run's reader left out; the rest of the run is shown.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from paretoscope.catalog import AgentAsset, AssetCatalog, AssetProblem, snapshot_asset
from paretoscope.dashboard import loaders
from paretoscope.dashboard.messages import log
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.fronts import (
    STEP_COLUMN,
    StepFront,
    front_metrics,
    logged_step_fronts,
    step_fronts,
    step_metrics,
)
from paretoscope.runs.run import LoggedFront, RunNotice, TrainingRun, open_run, sniff_run

SWEEP = "sweep"
LOGGED = "logged"
SOURCE_LABELS = {
    LOGGED: "the trainer's logged evaluations",
    SWEEP: "a sweep of each snapshot here",
}


@dataclass(frozen=True)
class RunFronts:
    """A run's fronts by step, their metrics (one row per step) and what was left out."""

    source: str  # SWEEP or LOGGED
    fronts: Sequence[StepFront]
    metrics: pd.DataFrame
    notices: Sequence[RunNotice]
    gamma: float  # the discount the returns were measured at

    @property
    def steps(self) -> list[int]:
        return [int(front.step) for front in self.fronts]


@st.cache_resource(show_spinner=False, max_entries=16)
def _training_run(path: str, stamp: float) -> TrainingRun:
    del stamp  # part of the cache key only
    return open_run(path)


def training_run(asset: AgentAsset) -> TrainingRun:
    """The run of a run asset, read once per process (again when its folder changes)."""
    return _training_run(str(asset.path), loaders.mtime(asset.path))


@st.cache_data(show_spinner=False, max_entries=16)
def _logged_fronts(path: str, stamp: float) -> tuple[list[LoggedFront], list[RunNotice]]:
    return _training_run(path, stamp).logged_fronts()


def logged_fronts(asset: AgentAsset) -> tuple[list[LoggedFront], list[RunNotice]]:
    """The evaluations the run's trainer saved (empty for most formats), and logs left out."""
    return _logged_fronts(str(asset.path), loaders.mtime(asset.path))


def logged(asset: AgentAsset, reference_point: Sequence[float] | None) -> RunFronts:
    """The run's logged fronts (undiscounted returns, as the trainer measured them)."""
    assert asset.env_id is not None
    fronts, notices = logged_fronts(asset)
    steps = logged_step_fronts(fronts)
    metrics = front_metrics(steps, asset.env_id, reference_point)
    logged_scalars = pd.DataFrame(
        [
            {
                f"logged {key}": value
                for key, value in sorted(f.scalars.items())
                if key.startswith("eval/")
            }
            for f in sorted(fronts, key=lambda front: front.step)
        ]
    )
    if len(logged_scalars.columns):  # the numbers the trainer logged, beside the recomputed
        metrics = pd.concat([metrics, logged_scalars], axis=1)
    left_out = [*training_run(asset).notices, *notices]
    return RunFronts(LOGGED, steps, metrics, left_out, gamma=1.0)


def logged_reference(asset: AgentAsset) -> tuple[float, ...] | None:
    """The hypervolume reference point the run's own log names (a W&B run's config)."""
    from paretoscope.runs.wandb_run import logged_reference_point

    return logged_reference_point(training_run(asset))


def swept(
    asset: AgentAsset,
    found: AssetCatalog,
    gamma: float,
    reference_point: Sequence[float] | None,
) -> RunFronts:
    """Every snapshot's sweep (its plan's grid, returns discounted by `gamma`), with a progress
    bar over the snapshots while any is computed; a snapshot that fails is left out, named."""
    assert asset.env_id is not None
    run = training_run(asset)
    notices = list(run.notices)
    tables: list[pd.DataFrame] = []
    bar = st.empty()
    for index, snapshot in enumerate(run.snapshots):
        bar.progress(
            index / len(run.snapshots),
            text=f"Evaluating step {snapshot.step} ({index + 1} of {len(run.snapshots)})…",
        )
        try:
            table = loaders.sweep_table(
                snapshot_asset(asset, snapshot.step, run), found, gamma=gamma
            )
        except ParetoscopeError as error:
            notices.append(RunNotice(snapshot.path, f"skipped: {error}"))
            continue
        except Exception:  # noqa: BLE001 - one broken snapshot must not hide the run
            reference = uuid.uuid4().hex[:8]
            log.exception("sweeping %s (reference %s)", snapshot.path, reference)
            notices.append(
                RunNotice(
                    snapshot.path,
                    "skipped: it could not be loaded or evaluated (the server's log has the "
                    f"details under reference {reference})",
                )
            )
            continue
        tables.append(table.assign(**{STEP_COLUMN: snapshot.step}))
    bar.empty()
    if not tables:
        return RunFronts(SWEEP, [], pd.DataFrame(), notices, gamma)
    table = pd.concat(tables, ignore_index=True)
    metrics = _step_metrics(table, asset.env_id, _as_tuple(reference_point))
    return RunFronts(SWEEP, step_fronts(table, asset.env_id), metrics, notices, gamma)


@st.cache_data(show_spinner=False, max_entries=32)
def _step_metrics(
    table: pd.DataFrame, env_id: str, reference_point: tuple[float, ...] | None
) -> pd.DataFrame:
    return step_metrics(table, env_id, reference_point)


def _as_tuple(values: Sequence[float] | None) -> tuple[float, ...] | None:
    return None if values is None else tuple(float(value) for value in values)


def logged_only(asset: AgentAsset) -> bool:
    """Whether the asset is a run of logged evaluations with no snapshot (a W&B run)."""
    return asset.is_run and not training_run(asset).snapshots


def algorithm(asset: AgentAsset) -> str | None:
    """The run's algorithm, as its trainer names it (a W&B run's ``algo``, MORL-Baselines'
    class), else its model kind; None when the run says neither (a kind that only repeats
    the run's format)."""
    run = training_run(asset)
    return run.kind if run.kind and run.kind != run.format else None


def default_source(asset: AgentAsset) -> str:
    """The trainer's logs where the run has them (nothing to compute), else a sweep."""
    return LOGGED if logged_fronts(asset)[0] else SWEEP


def run_fronts(
    asset: AgentAsset,
    found: AssetCatalog,
    source: str,
    gamma: float,
    reference_point: Sequence[float] | None,
) -> RunFronts:
    if source == LOGGED:
        return logged(asset, reference_point)
    return swept(asset, found, gamma, reference_point)


def notice_lines(notices: Sequence[RunNotice]) -> list[tuple[str, str]]:
    """(what, why) per notice, for `show_problem`: the file's name and the reason."""
    return [(Path(notice.path).name, notice.message) for notice in notices]


def run_agents(found: AssetCatalog, env_id: str) -> list[AgentAsset]:
    """The catalog's training runs for `env_id`."""
    return [agent for agent in found.agents_for(env_id) if agent.is_run]


def run_problems(found: AssetCatalog) -> list[AssetProblem]:
    """The catalog's entries that are run folders but could not be listed (a run mixing envs
    or architectures, one without a readable snapshot), each with the reason."""
    problems = []
    for problem in found.problems:
        try:
            is_run = sniff_run(problem.path) is not None
        except ParetoscopeError:
            is_run = False
        if is_run:
            problems.append(problem)
    return problems
