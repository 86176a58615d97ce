"""The spread across seeds in the dashboard: the figures on their own, then the RTG page's
attainment section and Compare's interval columns and EAF difference driven with AppTest on
the tiny assets, with the MORvS agent swept with three seeds and the policy set with one.
Values are checked against core computed directly from the stored sweeps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from paretoscope.dashboard.uncertainty import equal_runs
from paretoscope.figures.attainment import attainment_figure, eaf_difference_figure
from paretoscope.metrics import (
    AttainmentSurfaces,
    EafDifference,
    attainment_surfaces,
    bootstrap_front_metrics,
    eaf_difference,
    hypervolume,
)
from tests.apptests import compare_metrics_table, open_app, page_ok, plotly_array, plotly_chart

HORIZON = 30
CHEETAH = "MO-HalfCheetah-v2"
SEEDS = (0, 1, 2)
RETURNS = ["return_run", "return_energy"]
PREFERENCES = ["preference_run", "preference_energy"]
TIMEOUT = 180

# --- the figures -------------------------------------------------------------------------------


def test_attainment_figure_draws_three_levels_over_the_cloud() -> None:
    points = np.array([[1.0, 3.0, 0.0], [3.0, 1.0, 0.0], [2.0, 2.0, 5.0], [0.5, 0.5, 1.0]])
    seeds = np.array([0, 0, 1, 1])
    surfaces = attainment_surfaces(points[:, [0, 2]], seeds)
    figure = attainment_figure(
        ["a", "b", "c"], surfaces, (0, 2), episode_cloud=points, cloud_seeds=seeds
    )
    names = [trace.name for trace in figure.data]
    assert names[0] == "episodes (every seed)"
    assert names[1:] == [
        "best (attained by ≥ 1 of 2 seeds)",
        "median (attained by ≥ 1 of 2 seeds)",
        "worst (attained by ≥ 2 of 2 seeds)",
    ]
    np.testing.assert_array_equal(figure.data[0].y, points[:, 2])
    assert figure.layout.yaxis.title.text == "c return"
    # The worst surface of runs {(1,0),(3,0)} and {(2,5),(0.5,1)}: (2, 0) and (0.5, 0) ...
    worst = np.column_stack([figure.data[3].x, figure.data[3].y])
    assert [2.0, 0.0] in worst.tolist()
    # A surface with every objective is projected onto the axes shown.
    full = AttainmentSurfaces(
        levels=("best",), surfaces={"best": np.array([[1.0, 9.0, 2.0], [2.0, 0.0, 1.0]])}, runs=1
    )
    projected = attainment_figure(["a", "b", "c"], full, (0, 2))
    assert [2.0, 1.0] in np.column_stack([projected.data[0].x, projected.data[0].y]).tolist()


def test_eaf_difference_figure_colours_each_side() -> None:
    difference = EafDifference(
        a_better=np.array([[-np.inf, 0.0, 1.0, 2.0, 0.5], [1.0, 1.0, 2.0, 2.0, 1.0]]),
        b_better=np.array([[2.0, -np.inf, 3.0, 1.0, 0.5]]),
        runs=2,
    )
    figure = eaf_difference_figure(["x", "y"], difference, ("A <b>", "B"))
    names = [trace.name for trace in figure.data]
    assert names == [
        "A &lt;b&gt; better by 50% of runs",
        "A &lt;b&gt; better by 100% of runs",
        "B better by 50% of runs",
    ]
    assert all(np.isfinite([v for v in trace.x if v is not None]).all() for trace in figure.data)
    assert figure.data[1].opacity > figure.data[0].opacity
    empty = EafDifference(np.zeros((0, 5)), np.zeros((0, 5)), runs=1)
    assert eaf_difference_figure(["x", "y"], empty).layout.annotations


def test_equal_runs_keeps_each_sides_first_seeds() -> None:
    keep_a, keep_b, counts = equal_runs(np.array([5, 1, 3, 1]), np.array([7, 2, 7]))
    assert list(counts) == [3, 2]
    assert keep_a.tolist() == [False, True, True, True]
    assert keep_b.tolist() == [True, True, True]


def test_metrics_table_puts_intervals_beside_their_metric() -> None:
    from paretoscope.dashboard.tables import AgentMetrics, best_per_column, metrics_table
    from paretoscope.metrics import Interval

    grid = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    band = {
        "hypervolume": Interval(4.0, 3.0, 5.0, 0.9, 10),
        "expected utility": Interval(1.0, 0.5, 1.5, 0.9, 10),
    }
    table = metrics_table(
        [
            AgentMetrics("a", grid * 2, grid, env_id=CHEETAH, intervals=band),
            AgentMetrics("b", grid * 3, grid, env_id=CHEETAH),
        ],
        (0.0, 0.0),
    )
    columns = list(table.columns)
    at = columns.index("hypervolume")
    assert columns[at + 1 : at + 3] == ["hypervolume 90% CI low", "hypervolume 90% CI high"]
    assert table.loc["a", "expected utility 90% CI high"] == 1.5
    assert np.isnan(table.loc["b", "hypervolume 90% CI low"])
    marks = best_per_column(table)
    assert marks.loc["b", "hypervolume"] and not marks["hypervolume 90% CI high"].any()
    plain = metrics_table([AgentMetrics("b", grid, grid, env_id=CHEETAH)], (0.0, 0.0))
    assert not any("CI" in column for column in plain.columns)


# --- the pages ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny assets (HalfCheetah only), MORvS swept with three seeds."""
    from paretoscope.agents import load
    from paretoscope.evaluate import sweep
    from paretoscope.results_store import ResultsStore
    from paretoscope.settings import SweepSettings
    from tests.demo_fixture import build_tiny_assets

    folder = build_tiny_assets(
        tmp_path_factory.mktemp("assets"),
        horizon=HORIZON,
        with_hopper=False,
    )
    sweep(
        load(folder / "agents" / "cheetah-morvs"),
        CHEETAH,
        SweepSettings(granularity=20, seeds=SEEDS, horizon=HORIZON, workers=1, batch_size=1),
        store=ResultsStore(folder / "results"),
        agent_id="cheetah-morvs",
        progress=False,
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["agents"]["cheetah-morvs"]["sweep"]["seeds"] = list(SEEDS)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture
def app_env(assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    yield tmp_path / "cache"


def _stored(assets: Path, agent: str) -> dict[str, np.ndarray]:
    from paretoscope.results_store import ResultsStore

    stored = ResultsStore(assets / "results").read(CHEETAH)
    rows = stored[(stored["agent"] == agent) & ~stored["explicit_target"]]
    return {
        "returns": rows[RETURNS].to_numpy(),
        "preferences": rows[PREFERENCES].to_numpy(),
        "seeds": rows["seed"].to_numpy(),
    }


def _trace_names(at) -> list[str]:  # noqa: ANN001
    """The names of every trace of every plotly chart on the page."""
    return [
        trace.get("name", "")
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec).get("data", [])
    ]


def _drawn_surfaces(at) -> dict[str, np.ndarray]:  # noqa: ANN001
    """Each attainment surface's points as the metrics page draws them, by level: the corners
    its staircase steps down from (every other point of the line, after its left end)."""
    drawn = {}
    for trace in plotly_chart(at, "eaf_figure")["data"]:
        if trace.get("mode") == "lines":
            line = np.column_stack([plotly_array(trace["x"]), plotly_array(trace["y"])])
            drawn[trace["name"].split(" ")[0]] = line[1::2]
    return drawn


@pytest.mark.slow
def test_rtg_page_shows_the_attainment_surfaces_of_the_seeds(app_env: Path, assets: Path) -> None:
    at = open_app(timeout=TIMEOUT)
    at.switch_page("views/rtg.py").run()
    page_ok(at)
    assert "Uncertainty across seeds" in [header.value for header in at.subheader]
    stored = _stored(assets, "cheetah-morvs")
    assert len(stored["returns"]) == 63
    expected = attainment_surfaces(stored["returns"], stored["seeds"])
    drawn = _drawn_surfaces(at)
    assert set(drawn) == {"best", "median", "worst"}
    for level in ("best", "median", "worst"):
        np.testing.assert_allclose(drawn[level], np.unique(expected.surfaces[level], axis=0))
    # The worst surface: every seed's sweep has a return at least as good as each point.
    for point in drawn["worst"]:
        for seed in SEEDS:
            mine = stored["returns"][stored["seeds"] == seed]
            assert (mine >= np.asarray(point) - 1e-12).all(axis=1).any()
    captions = " ".join(caption.value for caption in at.caption)
    assert "3 seeds (0, 1, 2), 21 preferences, 63 episodes" in captions, captions
    assert "median (attained by ≥ 2 of 3 seeds)" in _trace_names(at)


@pytest.mark.slow
def test_rtg_page_says_one_seed_has_nothing_to_show(app_env: Path) -> None:
    at = open_app({"agent": "cheetah-policies"}, timeout=TIMEOUT)
    at.switch_page("views/rtg.py").run()
    page_ok(at)
    assert any("no spread across seeds" in info.value for info in at.info)
    assert not [chart for chart in at.get("plotly_chart") if chart.proto.id.endswith("-eaf_figure")]


def _boxes(figure: dict, agent: str) -> int:
    """The regions the EAF difference draws where `agent` (its label) attains more often: each
    a rectangle, closed by a gap in its trace's line."""
    return sum(
        list(trace["x"]).count(None)
        for trace in figure["data"]
        if trace["name"].startswith(f"{agent} better by ")
    )


@pytest.mark.slow
def test_compare_shows_intervals_and_the_eaf_difference(app_env: Path, assets: Path) -> None:
    at = open_app(timeout=TIMEOUT)
    at.switch_page("views/compare.py").run()
    page_ok(at)
    table = compare_metrics_table(at)
    morvs, policies = "MORvS (untrained)", "Linear policy set"
    stored = _stored(assets, "cheetah-morvs")
    expected = bootstrap_front_metrics(
        stored["preferences"],
        stored["returns"],
        stored["seeds"],
        (0.0, 0.0),
        resamples=1000,
        level=0.95,
        random_seed=0,
    )
    for metric in ("hypervolume", "expected utility"):
        low = table.loc[morvs, f"{metric} 95% CI low"]
        high = table.loc[morvs, f"{metric} 95% CI high"]
        assert low == pytest.approx(expected[metric].low)
        assert high == pytest.approx(expected[metric].high)
        assert low <= table.loc[morvs, metric] <= high
        assert np.isnan(table.loc[policies, f"{metric} 95% CI low"])  # one seed: not measured
    columns = list(table.columns)
    assert columns[columns.index("hypervolume") + 1] == "hypervolume 95% CI low"
    # The table's hypervolume is the mean front's, which the interval's estimate also is.
    assert table.loc[morvs, "hypervolume"] == pytest.approx(expected["hypervolume"].estimate)

    agents = [at.selectbox(key=f"eafdiff_{side}").value for side in "ab"]
    assert agents == ["cheetah-morvs", "cheetah-policies"]
    first = stored["seeds"] == 0
    other = _stored(assets, "cheetah-policies")
    difference = eaf_difference(
        stored["returns"][first], stored["seeds"][first], other["returns"], other["seeds"]
    )
    figure = plotly_chart(at, "compare_eaf_difference")
    a_better, b_better = _boxes(figure, morvs), _boxes(figure, policies)
    assert a_better == len(difference.a_better) and b_better == len(difference.b_better)
    assert a_better + b_better > 0
    captions = " ".join(caption.value for caption in at.caption)
    assert "runs are its 1 seed(s)" in captions, captions
    assert "has 3 seeds" in captions and "first 1 are compared" in captions, captions
    assert any(name.endswith("better by 100% of runs") for name in _trace_names(at))
    # The hypervolume column still marks a best value (two defined values).
    from paretoscope.dashboard.tables import best_per_column

    assert best_per_column(table)["hypervolume"].sum() >= 1
    assert not best_per_column(table)["hypervolume 95% CI low"].any()
    assert hypervolume(other["returns"], (0.0, 0.0)) == pytest.approx(
        table.loc[policies, "hypervolume"]
    )
