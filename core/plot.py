"""Figures for a notebook: an agent's Pareto front, its objectives in linked views, a training
run's fronts and metrics step by step.

Each function returns a plotly `Figure` drawn by the dashboard's own figure code
(`paretoscope.figures`), sized and themed for a notebook (`paretoscope.figures.style.
for_notebook`). Tables are the results tables `paretoscope evaluate` stores (one row per
episode; `paretoscope.sweep(...).table` is one).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from paretoscope.discount import table_gamma
from paretoscope.envs import EnvSpec, get_spec
from paretoscope.envs.known_fronts import KnownFront, against_known
from paretoscope.errors import ParetoscopeError
from paretoscope.figures.front import FrontSeries, front_figure
from paretoscope.figures.objectives import (
    ViewPoints,
    parallel_coordinates_figure,
    scatter_matrix_figure,
)
from paretoscope.figures.style import for_notebook, titled_by_meaning
from paretoscope.figures.training import evolution_figure, step_metrics_figure
from paretoscope.mixing import one_env
from paretoscope.results_store import ResultsStore, objective_columns
from paretoscope.runs.fronts import (
    STEP_COLUMN,
    StepFront,
    front_metrics,
    logged_step_fronts,
    step_fronts,
    step_metrics,
)
from paretoscope.runs.run import LoggedFront, TrainingRun
from paretoscope.sweeps import mean_per_preference
from paretoscope.text import briefly

__all__ = ["front", "objectives", "training"]


@dataclass(frozen=True)
class FrontData:
    """What a front figure draws: the env, one series per agent, the env's known front at the
    table's discount (None where it has none)."""

    spec: EnvSpec
    series: list[FrontSeries]
    known: KnownFront | None


# Earlier fronts drawn fading behind a training step's (as on the dashboard's Training page).
FADE = 4


def front(
    sweep_or_table: Any,
    known_front: bool = True,
    reference_point: Sequence[float] | None = None,
) -> go.Figure:
    """The Pareto front of a sweep, as the dashboard's Explore page draws it.

    One point per preference (the mean return over its episodes), non-dominated points filled
    and dominated ones hollow, one colour per agent in the table.

    Parameters
    ----------
    sweep_or_table : Sweep or pandas.DataFrame
        A results table (one row per episode, as ``paretoscope evaluate`` stores it) or any
        object with such a table as its ``.table`` (a `paretoscope.Sweep`).
    known_front : bool, default True
        Draw the environment's known Pareto front (at the table's discount) where it has one.
    reference_point : sequence of float, optional
        A hypervolume reference point to draw (one value per objective).

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ParetoscopeError
        If the argument is no results table, the table is empty, mixes environments or
        discounts, or lacks its environment's columns, or the reference point has the wrong
        length.
    """
    data = front_data(sweep_or_table)
    reference = _reference(reference_point, data.spec)
    figure = front_figure(
        data.spec.objective_names,
        data.series,
        reference_point=reference,
        known_front=data.known if known_front else None,
        include_reference=reference is not None,
    )
    return for_notebook(titled_by_meaning(figure, data.spec))


def front_data(sweep_or_table: Any) -> FrontData:
    """The points `front` draws: per agent in the table, its mean return per preference (with
    its regret against the env's known front where there is one), and that known front.

    Raises `ParetoscopeError` as `front` does for a table that is none, empty or mixed."""
    table, spec = _results_table(sweep_or_table)
    gamma = table_gamma(table, "the table", "plot")
    series = []
    known = None
    for name, rows in table.groupby("agent", sort=False):
        points = mean_per_preference(rows, spec.id)
        against = against_known(spec.id, gamma, points["returns"], points["preferences"])
        series.append(
            FrontSeries(
                str(name),
                points["returns"],
                points["preferences"],
                points["targets"],
                points["seeds"],
                regret=None if against is None else against.regret,
                env_id=spec.id,
            )
        )
        known = None if against is None else against.front
    return FrontData(spec, series, known)


def objectives(
    sweep_or_table: Any,
    view: Literal["scatter_matrix", "parallel_coordinates"] = "scatter_matrix",
) -> go.Figure:
    """A front of any number of objectives (3 or more, typically) as the dashboard's Many
    objectives page draws it: every objective pair in a scatter matrix, or one line per
    policy in parallel coordinates.

    One policy per preference (the mean return over its episodes); non-dominated policies
    filled, dominated ones hollow; the knees and the compromise policy marked
    (`paretoscope.decision.decision_marks`).

    Parameters
    ----------
    sweep_or_table : Sweep or pandas.DataFrame
        A results table of one agent (one row per episode) or an object with one as its
        ``.table`` (a `paretoscope.Sweep`).
    view : {"scatter_matrix", "parallel_coordinates"}, default "scatter_matrix"
        Which of the two linked views to draw.

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ParetoscopeError
        If the argument is no results table of one agent on one environment, the table is
        empty, or `view` is neither view.
    """
    if view not in ("scatter_matrix", "parallel_coordinates"):
        raise ParetoscopeError(
            f"view: expected 'scatter_matrix' or 'parallel_coordinates', got {briefly(view)}"
        )
    points = objectives_data(sweep_or_table).points
    if view == "scatter_matrix":
        return for_notebook(scatter_matrix_figure(points))
    return for_notebook(parallel_coordinates_figure(points))


@dataclass(frozen=True)
class ObjectivesData:
    """What the objective views draw: the env and one agent's policies with their marks."""

    spec: EnvSpec
    points: ViewPoints


def objectives_data(sweep_or_table: Any) -> ObjectivesData:
    """The policies `objectives` draws: one agent's mean return per preference, which are
    dominated, and its knees and compromise policy (`paretoscope.decision.decision_marks`).

    Raises `ParetoscopeError` as `objectives` does for a table that is none, empty, or of
    several agents or envs."""
    from paretoscope.decision import decision_marks
    from paretoscope.metrics import non_dominated

    table, spec = _results_table(sweep_or_table)
    agents = list(dict.fromkeys(table["agent"]))
    if len(agents) > 1:
        raise ParetoscopeError(
            f"the table holds {len(agents)} agents ({', '.join(map(str, agents))}); "
            "objectives draws one: pass the rows of one (table[table['agent'] == name])"
        )
    returns = mean_per_preference(table, spec.id)["returns"]
    marks = decision_marks(returns)
    points = ViewPoints(
        spec.objective_names,
        returns,
        ~non_dominated(returns),
        marks={"knee": list(marks.knees), "compromise": [marks.compromise]},
    )
    return ObjectivesData(spec, points)


def training(
    run: Any,
    view: Literal["front", "metrics"] = "front",
    step: int | None = None,
    *,
    env: str | None = None,
    granularity: int = 10,
    episodes: int = 3,
    gamma: float = 1.0,
    seed: int = 0,
    store: ResultsStore | str | os.PathLike[str] | None = None,
    reference_point: Sequence[float] | None = None,
) -> go.Figure:
    """A training run as the dashboard's Training page draws it: the front at one step over
    the earlier ones (fading), or hypervolume and expected utility over the steps.

    The fronts are the trainer's own logged evaluations where the run has them (PEDA's);
    otherwise every snapshot is swept (`paretoscope evaluate RUN`'s sweep: the grid of
    `granularity`, `episodes` seeds from `seed`, returns discounted by `gamma`), reading
    the episodes `store` holds and adding the ones it lacks.

    Parameters
    ----------
    run : str, os.PathLike, TrainingRun, RunSweep or pandas.DataFrame
        A run folder (or the run `paretoscope.runs.run.open_run` read from one), or a run's
        sweep table (one row per episode with its ``step``) or an object with one as its
        ``.table``.
    view : {"front", "metrics"}, default "front"
        The front at `step`, or the metrics over the steps with `step` marked.
    step : int, optional
        The training step shown (default: the last).
    env : str, optional
        The environment id, for a run whose files do not name it.
    granularity, episodes, gamma, seed : optional
        The sweep of each snapshot (used only when the run has no logged fronts).
    store : ResultsStore or path, optional
        A results folder whose stored episodes are reused and to which new ones are added.
    reference_point : sequence of float, optional
        The hypervolume's reference point (default: the environment's).

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ParetoscopeError
        If `run` is no run folder, run or run table, no step could be measured, `step` is
        not one of the run's, or `view` is neither view.
    """
    if view not in ("front", "metrics"):
        raise ParetoscopeError(f"view: expected 'front' or 'metrics', got {briefly(view)}")
    data = training_data(
        run,
        env=env,
        granularity=granularity,
        episodes=episodes,
        gamma=gamma,
        seed=seed,
        store=store,
        reference_point=reference_point,
    )
    shown = data.step(step)
    if view == "metrics":
        return for_notebook(step_metrics_figure(data.metrics, shown))
    figure = evolution_figure(
        data.spec.objective_names, data.fronts, shown, fade=FADE, reference_point=data.reference
    )
    return for_notebook(titled_by_meaning(figure, data.spec))


@dataclass(frozen=True)
class TrainingData:
    """What the training figures draw: a run's fronts by step, their metrics (one row per
    step) above `reference`, and its env."""

    spec: EnvSpec
    fronts: list[StepFront]
    metrics: pd.DataFrame
    reference: tuple[float, ...]

    def step(self, step: int | None) -> int:
        """`step` if it is one of the run's (default: the last), else `ParetoscopeError`."""
        steps = [int(front.step) for front in self.fronts]
        if not steps:
            raise ParetoscopeError("the run has no step with a front: nothing to plot")
        shown = steps[-1] if step is None else int(step)
        if shown not in steps:
            raise ParetoscopeError(f"step {shown}: the run's steps are {steps}")
        return shown


def training_data(
    run: Any,
    *,
    env: str | None = None,
    granularity: int = 10,
    episodes: int = 3,
    gamma: float = 1.0,
    seed: int = 0,
    store: ResultsStore | str | os.PathLike[str] | None = None,
    reference_point: Sequence[float] | None = None,
) -> TrainingData:
    """The fronts and metrics `training` draws (its arguments, less the view): the trainer's
    logged evaluations where the run has them, else a sweep of every snapshot.

    Raises `ParetoscopeError` as `training` does."""
    table = _run_table(run)
    if table is None:
        opened = _training_run(run, env)
        logged, _ = opened.logged_fronts()
        if logged:
            assert opened.env_id is not None  # _training_run says so
            spec = get_spec(opened.env_id)
            reference = _reference(reference_point, spec) or tuple(spec.reference_point)
            return _logged_fronts(logged, spec, reference)
        table = _swept_run(opened, granularity, episodes, gamma, seed, store)
    table, spec = _results_table(table)
    if STEP_COLUMN not in table.columns:
        raise ParetoscopeError(
            f"a run's table has a {STEP_COLUMN!r} column (the training step); this has not"
        )
    reference = _reference(reference_point, spec) or tuple(spec.reference_point)
    fronts = step_fronts(table, spec.id)
    return TrainingData(spec, fronts, step_metrics(table, spec.id, reference), reference)


def _logged_fronts(
    logged: list[LoggedFront], spec: EnvSpec, reference: tuple[float, ...]
) -> TrainingData:
    """The fronts the trainer logged, measured as the Training page measures them."""
    fronts = logged_step_fronts(logged)
    return TrainingData(spec, fronts, front_metrics(fronts, spec.id, reference), reference)


def _results_table(sweep_or_table: Any) -> tuple[pd.DataFrame, EnvSpec]:
    """The results table of a table or a sweep, checked to be of one env and one discount and
    to hold that env's columns, with the env's spec."""
    table = getattr(sweep_or_table, "table", sweep_or_table)
    if not isinstance(table, pd.DataFrame):
        raise ParetoscopeError(
            "expected a results table (a pandas DataFrame, as paretoscope evaluate stores it) "
            f"or a sweep with one as its .table, got {type(sweep_or_table).__name__}"
        )
    if len(table) == 0:
        raise ParetoscopeError("the results table has no rows: nothing to plot")
    if "env" not in table.columns:
        raise ParetoscopeError("the table has no 'env' column: it is no paretoscope results table")
    pairs = table[["agent", "env"]].drop_duplicates() if "agent" in table else table[["env"]]
    env_id = one_env(
        ((str(getattr(row, "agent", "the table")), row.env) for row in pairs.itertuples()),
        "plot",
    )
    spec = get_spec(str(env_id))
    columns = [
        *objective_columns("preference", spec),
        *objective_columns("return", spec),
        "agent",
        "seed",
    ]
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise ParetoscopeError(
            f"the table says its env is {spec.id} but lacks that env's columns {missing}"
        )
    table_gamma(table, "the table", "plot")
    return table, spec


def _reference(reference_point: Sequence[float] | None, spec: EnvSpec) -> tuple[float, ...] | None:
    if reference_point is None:
        return None
    try:
        values = tuple(float(value) for value in reference_point)
    except (TypeError, ValueError):
        raise ParetoscopeError(
            f"reference_point: expected {spec.n_obj} numbers, got {briefly(reference_point)}"
        ) from None
    if len(values) != spec.n_obj or not np.isfinite(values).all():
        raise ParetoscopeError(
            f"reference_point: expected {spec.n_obj} finite numbers ({spec.id} has "
            f"{spec.n_obj} objectives), got {list(values)}"
        )
    return values


def _run_table(run: Any) -> pd.DataFrame | None:
    """The sweep table `run` is or holds (a RunSweep's), None for a run or a run folder."""
    table = getattr(run, "table", run)
    return table if isinstance(table, pd.DataFrame) else None


def _training_run(run: Any, env: str | None) -> TrainingRun:
    from paretoscope.runs.run import open_run, with_answers

    if isinstance(run, TrainingRun):
        opened = run
    elif isinstance(run, str | os.PathLike):
        opened = open_run(Path(run))
    else:
        raise ParetoscopeError(
            "run: expected a run folder, a training run or a run's sweep table, got "
            f"{type(run).__name__}"
        )
    opened = with_answers(opened, env)
    if opened.env_id is None:
        raise ParetoscopeError(
            f"run {opened.root}: its files do not name the environment; pass env=..."
        )
    return opened


def _swept_run(
    run: TrainingRun,
    granularity: int,
    episodes: int,
    gamma: float,
    seed: int,
    store: ResultsStore | str | os.PathLike[str] | None,
) -> pd.DataFrame:
    """Every snapshot's sweep (`paretoscope.runs.sweep.sweep_run`, as `paretoscope evaluate
    RUN` runs it), one table with each episode's step."""
    from paretoscope.runs.sweep import sweep_run
    from paretoscope.settings import SweepSettings

    settings = SweepSettings(granularity=granularity, episodes=episodes, seed=seed, gamma=gamma)
    results = (
        store if store is None or isinstance(store, ResultsStore) else ResultsStore(Path(store))
    )
    assert run.env_id is not None  # _training_run says so
    swept = sweep_run(run, run.env_id, settings, store=results)
    if len(swept.table) == 0:
        left_out = "; ".join(str(notice) for notice in swept.notices) or "no snapshot"
        raise ParetoscopeError(f"run {run.root}: no snapshot could be swept ({left_out})")
    return swept.table
