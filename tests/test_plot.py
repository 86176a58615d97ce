"""`paretoscope.plot`: the notebook's figures, checked against independent truth: the table's
own mean returns (a pandas group-by here), dominance by brute force, MO-Gymnasium's
`pareto_front(gamma)`, and the Training page's metrics (`paretoscope.runs.fronts`)."""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import mo_gymnasium
import numpy as np
import pandas as pd
import pytest

from paretoscope import plot
from paretoscope.agents.builtin import load_agent
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import sweep
from paretoscope.figures.style import NOTEBOOK_TEMPLATE, NOTEBOOK_WIDTH
from paretoscope.results_store import ResultsStore, layered_store
from paretoscope.runs.fronts import step_metrics
from paretoscope.settings import SweepSettings

ASSETS = Path(__file__).resolve().parents[1] / "assets"
DST = "deep-sea-treasure-v0"
RETURNS = ["return_treasure", "return_time"]
PREFERENCES = ["preference_treasure", "preference_time"]


@pytest.fixture(scope="module")
def random_table() -> pd.DataFrame:
    """A real small sweep: the random agent on deep-sea-treasure, as `paretoscope evaluate`."""
    settings = SweepSettings(granularity=4, episodes=3, workers=1)
    return sweep(load_agent("random", DST), DST, settings, agent_id="random", progress=False)


@pytest.fixture(scope="module")
def gpi_table() -> pd.DataFrame:
    """The bundled demo's stored sweep of its GPI-LS agent at gamma 0.99."""
    table = ResultsStore(ASSETS / "results").read(DST)
    return table[(table["agent"] == "dst-gpi-ls") & (table["gamma"] == 0.99)]


def agent_points(figure, name: str) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """The points drawn for agent `name`: (all of them, the filled ones)."""
    traces = [trace for trace in figure.data if trace.legendgroup == name]
    points = np.vstack([np.column_stack([trace.x, trace.y]) for trace in traces])
    filled = [
        np.column_stack([trace.x, trace.y]) for trace in traces if trace.marker.symbol == "circle"
    ]
    return points, np.vstack(filled) if filled else np.zeros((0, 2))


def brute_force_undominated(points: np.ndarray) -> np.ndarray:
    return np.array(
        [
            not any(np.all(q >= p) and np.any(q > p) for q in points)
            for p in points  # equal points do not dominate each other
        ]
    )


def sorted_rows(points: np.ndarray) -> np.ndarray:
    points = np.asarray(points, dtype=np.float64)
    return points[np.lexsort(points.T[::-1])]


@pytest.mark.parametrize("which", ["random_table", "gpi_table"])
def test_front_draws_the_mean_returns_with_the_undominated_ones_filled(
    which: str, request: pytest.FixtureRequest
) -> None:
    table = request.getfixturevalue(which)
    means = table.groupby(PREFERENCES, sort=False)[RETURNS].mean().to_numpy()
    figure = plot.front(table)
    drawn, filled = agent_points(figure, str(table["agent"].iloc[0]))
    np.testing.assert_allclose(sorted_rows(drawn), sorted_rows(means))
    np.testing.assert_allclose(
        sorted_rows(filled), sorted_rows(means[brute_force_undominated(means)])
    )
    assert figure.layout.width == NOTEBOOK_WIDTH and figure.layout.height
    assert figure.layout.template.layout.paper_bgcolor == "white"  # plotly_white's
    assert NOTEBOOK_TEMPLATE == "plotly_white"


def test_a_sweep_object_draws_as_its_table(random_table: pd.DataFrame) -> None:
    duck = types.SimpleNamespace(table=random_table, summary={})
    assert plot.front(duck).to_json() == plot.front(random_table).to_json()


def known_front_trace(figure):  # noqa: ANN001, ANN201
    return [trace for trace in figure.data if str(trace.name).startswith("known front")]


@pytest.mark.parametrize("gamma", [1.0, 0.99])
def test_the_known_front_is_mo_gymnasiums_at_the_tables_gamma(
    gamma: float, random_table: pd.DataFrame, gpi_table: pd.DataFrame
) -> None:
    table = random_table if gamma == 1.0 else gpi_table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = mo_gymnasium.make(DST)
    expected = np.asarray(env.unwrapped.pareto_front(gamma), dtype=np.float64)
    env.close()
    (trace,) = known_front_trace(plot.front(table))
    drawn = np.column_stack([trace.x, trace.y])
    np.testing.assert_allclose(sorted_rows(drawn), sorted_rows(np.unique(expected, axis=0)))
    assert known_front_trace(plot.front(table, known_front=False)) == []


def test_the_reference_point_is_drawn_only_where_given(random_table: pd.DataFrame) -> None:
    def references(figure):  # noqa: ANN001, ANN202
        return [trace for trace in figure.data if trace.name == "reference point"]

    assert references(plot.front(random_table)) == []
    (cross,) = references(plot.front(random_table, reference_point=(0.0, -50.0)))
    assert (list(cross.x), list(cross.y)) == ([0.0], [-50.0])


def test_wrong_tables_raise_a_clear_error(random_table: pd.DataFrame) -> None:
    with pytest.raises(ParetoscopeError, match="expected a results table"):
        plot.front([[1.0, 2.0]])
    with pytest.raises(ParetoscopeError, match="no rows"):
        plot.front(random_table.iloc[:0])
    with pytest.raises(ParetoscopeError, match="lacks that env's columns"):
        plot.front(random_table.assign(env="MO-Hopper-v3"))
    with pytest.raises(ParetoscopeError, match="nothing-v0"):
        plot.front(random_table.assign(env="nothing-v0"))
    mixed = pd.concat([random_table, random_table.assign(env="deep-sea-treasure-concave-v0")])
    with pytest.raises(ParetoscopeError, match="different environments"):
        plot.front(mixed)
    with pytest.raises(ParetoscopeError, match="reference_point: expected 2"):
        plot.front(random_table, reference_point=(0.0, 1.0, 2.0))


@pytest.fixture(scope="module")
def hopper_table() -> pd.DataFrame:
    """A 3-objective front: the bundled demo's stored sweep of its Hopper MORvS agent."""
    table = ResultsStore(ASSETS / "results").read("MO-Hopper-v3")
    return table[table["agent"] == "hopper-morvs"]


def test_objectives_draws_every_policy_in_both_views(hopper_table: pd.DataFrame) -> None:
    names = ["return_run", "return_jump", "return_energy"]
    assert all(name in hopper_table.columns for name in names)
    means = hopper_table.groupby(
        ["preference_run", "preference_jump", "preference_energy"], sort=False
    )[names].mean()
    means = means.to_numpy()
    undominated = brute_force_undominated(means)

    matrix = plot.objectives(hopper_table)
    by_name = {trace.name: trace for trace in matrix.data}
    assert {"non-dominated", "knee", "compromise"} <= set(by_name)
    filled = np.column_stack([d.values for d in by_name["non-dominated"].dimensions])
    np.testing.assert_allclose(sorted_rows(filled), sorted_rows(means[undominated]))
    hollow = by_name.get("dominated")
    drawn = len(filled) + (0 if hollow is None else len(hollow.dimensions[0].values))
    assert drawn == len(means)
    assert matrix.layout.width == NOTEBOOK_WIDTH

    lines = plot.objectives(types.SimpleNamespace(table=hopper_table), "parallel_coordinates")
    values = next(trace for trace in lines.data if trace.name == "values")
    assert len(values.x) == 3 * len(means)  # every policy on each of the 3 axes
    with pytest.raises(ParetoscopeError, match="view"):
        plot.objectives(hopper_table, view="radar")  # type: ignore[arg-type]


def test_objectives_refuses_a_table_of_several_agents() -> None:
    table = ResultsStore(ASSETS / "results").read("MO-Hopper-v3")
    with pytest.raises(ParetoscopeError, match="objectives draws one"):
        plot.objectives(table)


RUN = ASSETS / "agents" / "halfcheetah-morvs-run"


@pytest.fixture(scope="module")
def run_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, object]:
    """The bundled HalfCheetah run's sweep, read from the demo's stored results (its plan:
    grid 20, seeds 0-2); anything missing would go to a temporary folder, not the assets."""
    store = layered_store([ASSETS / "results"], tmp_path_factory.mktemp("results"))
    from paretoscope.runs.run import open_run
    from paretoscope.runs.sweep import sweep_run

    settings = SweepSettings(granularity=20, episodes=3)
    swept = sweep_run(open_run(RUN), "MO-HalfCheetah-v2", settings, store=store, progress=False)
    return swept.table, store


@pytest.mark.slow
def test_training_draws_the_runs_front_and_metrics(run_table) -> None:  # noqa: ANN001
    table, store = run_table
    steps = sorted(int(step) for step in table["step"].unique())
    assert steps == [250, 500, 750, 1000, 1250, 1500, 1750, 2000]
    arguments = {"granularity": 20, "episodes": 3, "store": store}

    front = plot.training(RUN, **arguments)  # the last step, over the 4 before it
    assert [trace.name for trace in front.data][:4] == [
        f"step {s}" for s in (1750, 1500, 1250, 1000)
    ]
    last = table[table["step"] == 2000]
    means = last.groupby(["preference_run", "preference_energy"], sort=False)[
        ["return_run", "return_energy"]
    ].mean()
    now = [trace for trace in front.data if str(trace.name).startswith("step 2000")]
    drawn = np.vstack([np.column_stack([trace.x, trace.y]) for trace in now])
    np.testing.assert_allclose(sorted_rows(drawn), sorted_rows(means.to_numpy()))

    metrics = plot.training(RUN, "metrics", step=1000, **arguments)
    expected = step_metrics(table, "MO-HalfCheetah-v2")
    (hypervolume,) = [trace for trace in metrics.data if trace.name == "hypervolume"]
    assert list(hypervolume.x) == steps
    np.testing.assert_allclose(hypervolume.y, expected["hypervolume"].to_numpy())
    (marked,) = [t for t in metrics.data if t.name == "hypervolume at step 1000"]
    assert list(marked.x) == [1000]
    assert metrics.layout.width == NOTEBOOK_WIDTH

    # The run's sweep table draws the same figure as the run folder.
    assert plot.training(table).to_json() == front.to_json()
    with pytest.raises(ParetoscopeError, match="step 999"):
        plot.training(table, step=999)


def test_training_refuses_what_is_no_run(random_table: pd.DataFrame, tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="'step' column"):
        plot.training(random_table)
    with pytest.raises(ParetoscopeError, match="not a training run"):
        plot.training(tmp_path)
    with pytest.raises(ParetoscopeError, match="expected a run folder"):
        plot.training(42)
