"""The dashboard's figures and tables are pure functions: checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import plotly.graph_objects as go
import pytest

from paretoscope.dashboard.tables import (
    AgentMetrics,
    best_per_column,
    metrics_table,
    styled_metrics,
)
from paretoscope.figures.dataset import (
    dataset_returns_figure,
    preference_coverage_figure,
)
from paretoscope.figures.episode import episode_figure
from paretoscope.figures.front import FrontSeries, Marker, front_figure, target_grid
from paretoscope.figures.hypervolume import hypervolume_figure
from paretoscope.figures.preference import ternary_figure
from paretoscope.figures.rtg import rtg_ratio_figure, rtg_target_figure
from paretoscope.figures.selection import selected_custom_data
from paretoscope.metrics import front_summary, rtg_following
from paretoscope.render.front_panel import (
    BACKGROUND,
    CLOUD,
    DOMINATED,
    FRONT,
    HIGHLIGHT,
    TRAIL,
    FrontPanel,
)
from tests.polygons import polygon_area


def _brute_force_undominated(points: np.ndarray) -> np.ndarray:
    keep = []
    for i, p in enumerate(points):
        dominated = any((q >= p).all() and (q > p).any() for j, q in enumerate(points) if j != i)
        keep.append(not dominated)
    return np.array(keep)


def _series(points: np.ndarray, name: str = "agent", env_id: str = "MO-Test-v0") -> FrontSeries:
    n = len(points)
    preferences = np.column_stack([np.linspace(0, 1, n), 1 - np.linspace(0, 1, n)])
    if points.shape[1] > 2:
        preferences = np.full(points.shape, 1.0 / points.shape[1])
    return FrontSeries(
        name, points, preferences, targets=points * 1.1, seeds=np.arange(n), env_id=env_id
    )


def _trace(figure: go.Figure, name: str):
    matches = [trace for trace in figure.data if trace.name == name]
    assert len(matches) == 1, [trace.name for trace in figure.data]
    return matches[0]


def test_front_splits_undominated_and_dominated_exactly() -> None:
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 10, size=(40, 2))
    figure = front_figure(
        ("run", "energy"),
        [_series(points)],
        dataset_returns=rng.uniform(0, 5, size=(300, 2)),
        reference_point=(0.0, 0.0),
        current=Marker((3.0, 4.0), "this rollout"),
        target=Marker((5.0, 5.0), "target"),
    )
    expected = _brute_force_undominated(points)
    front = _trace(figure, "agent")
    dominated = _trace(figure, "agent (dominated)")
    front_rows = sorted(row for _, row in front.customdata)
    dominated_rows = sorted(row for _, row in dominated.customdata)
    assert front_rows == sorted(np.flatnonzero(expected).tolist())
    assert dominated_rows == sorted(np.flatnonzero(~expected).tolist())
    # Coordinates belong to the rows their customdata names.
    for (series_index, row), x, y in zip(front.customdata, front.x, front.y, strict=True):
        assert series_index == 0 and (x, y) == tuple(points[row])
    assert front.marker.symbol == "circle" and dominated.marker.symbol == "circle-open"
    assert "seed: " in front.hovertext[0] and "preference: run" in front.hovertext[0]
    assert len(_trace(figure, "dataset trajectories").x) == 300
    assert tuple(_trace(figure, "reference point").x) == (0.0,)
    current = _trace(figure, "this rollout")
    assert (current.x[0], current.y[0]) == (3.0, 4.0)
    assert len(figure.layout.annotations) == 1  # the arrow from target to achieved


def test_front_three_objectives_is_3d_and_axes_pick_columns() -> None:
    rng = np.random.default_rng(1)
    points = rng.uniform(0, 1, size=(12, 3))
    figure = front_figure(("a", "b", "c"), [_series(points)], reference_point=(0, 0, 0))
    assert all(isinstance(trace, go.Scatter3d) for trace in figure.data)
    four = rng.uniform(0, 1, size=(10, 4))
    projected = front_figure(("a", "b", "c", "d"), [_series(four)], axes=(3, 1))
    traces = [trace for trace in projected.data if trace.customdata is not None]
    for trace in traces:
        for (_, row), x, y in zip(trace.customdata, trace.x, trace.y, strict=True):
            assert (x, y) == (four[row, 3], four[row, 1])
    assert projected.layout.xaxis.title.text == "d return"
    with pytest.raises(ValueError):
        front_figure(("a", "b"), [_series(points[:, :2])], axes=(0, 2))


def test_target_grid_is_clickable_and_spans_the_box() -> None:
    grid = target_grid((0.0, -5.0), (10.0, 5.0), steps=5)
    assert grid.shape == (25, 2)
    assert grid[:, 0].min() == 0.0 and grid[:, 1].max() == 5.0
    figure = front_figure(("x", "y"), [], target_grid=grid)
    assert [row[0] for row in figure.data[0].customdata] == [-1] * 25


def test_selected_custom_data_reads_points_with_or_without_customdata() -> None:
    points = np.array([[1.0, 0.0], [0.0, 1.0], [-0.2, -0.2]])
    figure = front_figure(("x", "y"), [_series(points)])
    dominated_curve = next(
        index for index, trace in enumerate(figure.data) if trace.name == "agent (dominated)"
    )
    selection = [
        {"curve_number": dominated_curve, "point_index": 0},
        {"customdata": [0, 1]},
        {"curve_number": 99, "point_index": 0},
        # A row of a numpy customdata as Streamlit hands it back from the browser (seen live).
        {"customdata": {"1": 5.27, "0": 70}},
    ]
    assert selected_custom_data(figure, selection) == [[0, 2], [0, 1], [70, 5]]


def test_hypervolume_figure_marks_reference_and_regions() -> None:
    a = np.array([[3.0, 1.0], [1.0, 3.0]])
    b = np.array([[2.0, 2.0]])
    figure = hypervolume_figure(("x", "y"), [_series(a, "A"), _series(b, "B")], (0.0, 0.0))
    region = _trace(figure, "A: dominated region")
    polygon = np.column_stack([region.x, region.y])
    assert polygon_area(polygon) == pytest.approx(5.0)  # 3*1 + 1*3 - 1*1
    assert tuple(_trace(figure, "reference point").x) == (0.0,)


def test_front_axes_fit_the_front_not_a_far_reference_point() -> None:
    # HalfCheetah's case: the front far above the reference point (-100, -100).
    points = np.array([[1000.0, 200.0], [1500.0, 150.0], [2000.0, 100.0]])
    fitted = front_figure(("run", "energy"), [_series(points)], reference_point=(-100.0, -100.0))
    # Spans 1000 and 100, 8% of each on either side.
    assert list(fitted.layout.xaxis.range) == pytest.approx([920.0, 2080.0])
    assert list(fitted.layout.yaxis.range) == pytest.approx([92.0, 208.0])
    # An arrow in the bottom-left corner (2% of each axis inside) points down-left to it.
    note = _trace(fitted, "reference point (-100, -100), off the axes")
    assert (note.x[0], note.y[0]) == pytest.approx((920.0 + 23.2, 92.0 + 2.32))
    assert (note.marker.symbol, note.marker.angle) == ("arrow", pytest.approx(-135.0))
    assert tuple(_trace(fitted, "reference point").x) == (-100.0,)
    assert _trace(fitted, "reference point").showlegend is False  # the arrow names it

    held = front_figure(
        ("run", "energy"),
        [_series(points)],
        reference_point=(-100.0, -100.0),
        include_reference=True,
    )
    # From -100 to 2000 (span 2100) and -100 to 200 (span 300), 8% margins.
    assert list(held.layout.xaxis.range) == pytest.approx([-268.0, 2168.0])
    assert list(held.layout.yaxis.range) == pytest.approx([-124.0, 224.0])
    assert not [trace for trace in held.data if "off the axes" in trace.name]
    assert _trace(held, "reference point").showlegend is not False


def test_front_axes_hold_the_cloud_and_known_front_and_a_near_reference_needs_no_arrow() -> None:
    points = np.array([[0.0, 10.0], [10.0, 0.0]])
    cloud = np.array([[-5.0, 2.0], [4.0, 15.0]])
    figure = front_figure(
        ("x", "y"),
        [_series(points)],
        dataset_returns=cloud,
        reference_point=(0.0, 5.0),
        # The moving markers do not set the ranges (moving them must not redraw the front).
        current=Marker((50.0, 50.0), "this rollout"),
    )
    # x from -5 to 10 (span 15), y from 0 to 15 (span 15): margins of 1.2.
    assert list(figure.layout.xaxis.range) == pytest.approx([-6.2, 11.2])
    assert list(figure.layout.yaxis.range) == pytest.approx([-1.2, 16.2])
    assert not [trace for trace in figure.data if "off the axes" in trace.name]
    # Beyond the right edge only: 2% of the x range (-0.8..10.8) inside it, at its own height,
    # pointing right.
    right = front_figure(("x", "y"), [_series(points)], reference_point=(30.0, 5.0))
    note = _trace(right, "reference point (30, 5), off the axes")
    assert (note.x[0], note.y[0]) == pytest.approx((10.8 - 0.232, 5.0))
    assert note.marker.angle == pytest.approx(90.0)


def test_hypervolume_axes_fit_the_fronts_unless_asked_for_the_reference() -> None:
    a = np.array([[3.0, 1.0], [1.0, 3.0]])
    fitted = hypervolume_figure(("x", "y"), [_series(a, "A")], (-20.0, -20.0))
    assert list(fitted.layout.xaxis.range) == pytest.approx([0.84, 3.16])
    assert list(fitted.layout.yaxis.range) == pytest.approx([0.84, 3.16])
    assert _trace(fitted, "reference point (-20, -20), off the axes").marker.angle == -135.0
    held = hypervolume_figure(("x", "y"), [_series(a, "A")], (-20.0, -20.0), include_reference=True)
    # From -20 to 3 (span 23), 1.84 on each side.
    assert list(held.layout.xaxis.range) == pytest.approx([-21.84, 4.84])
    assert not [trace for trace in held.data if "off the axes" in trace.name]


def test_episode_figure_per_step_reward_and_cumulative_return() -> None:
    steps = np.array([2, 4, 5])
    cumulative = np.array([[2.0, -1.0], [6.0, -2.0], [7.0, 0.0]])
    figure = episode_figure(("run", "energy"), steps, cumulative, horizon=10)
    run_reward, run_cumulative = [t for t in figure.data if t.name == "run"]
    # Between frames the mean reward per step: (2-0)/2, (6-2)/2, (7-6)/1.
    np.testing.assert_allclose(run_reward.y, [1.0, 2.0, 1.0])
    np.testing.assert_allclose(run_cumulative.y, cumulative[:, 0])
    energy_reward = [t for t in figure.data if t.name == "energy"][0]
    np.testing.assert_allclose(energy_reward.y, [-0.5, -0.5, 2.0])


def test_rtg_panels_plot_peda_quantities() -> None:
    rng = np.random.default_rng(3)
    preferences = rng.dirichlet([1, 1], size=8)
    targets = rng.uniform(100, 1000, size=(8, 2))
    returns = rng.uniform(0, 900, size=(8, 2))
    figure = rtg_target_figure(("a", "b"), targets, preferences, returns, (0, 0), (900, 950))
    episodes = [trace for trace in figure.data if trace.name == "episodes"]
    for index, trace in enumerate(episodes):
        np.testing.assert_allclose(trace.x, preferences[:, index] * targets[:, index])
        np.testing.assert_allclose(trace.y, preferences[:, index] * returns[:, index])
    oracle = [trace for trace in figure.data if trace.name == "oracle (y = x)"]
    assert all(tuple(trace.x) == tuple(trace.y) for trace in oracle)
    maxima = [trace for trace in figure.data if trace.name == "dataset max"]
    assert [trace.y[0] for trace in maxima] == [900, 950]

    following = rtg_following(targets, preferences, returns)
    ratios = following.return_ratio.copy()
    ratios[0] = np.nan
    ratio_figure = rtg_ratio_figure(("a", "b"), preferences, ratios)
    points = [trace for trace in ratio_figure.data if trace.name == "episodes"]
    assert len(points[0].x) == 7  # the NaN row is left out
    np.testing.assert_allclose(points[1].y, returns[1:, 1] / returns[1:].sum(axis=1))


def test_dataset_figures() -> None:
    rng = np.random.default_rng(4)
    returns = rng.uniform(0, 1, size=(50, 3))
    preferences = rng.dirichlet([1, 1, 1], size=50)
    front = np.flatnonzero(_brute_force_undominated(returns[:, [0, 2]]))
    figure = dataset_returns_figure(
        ("a", "b", "c"),
        returns,
        preferences,
        colour_objective=2,
        front_indices=front,
        selected=7,
        axes=(0, 2),
    )
    cloud = figure.data[0]
    np.testing.assert_allclose(cloud.marker.color, preferences[:, 2])
    np.testing.assert_allclose(cloud.y, returns[:, 2])
    assert sorted(row[0] for row in _trace(figure, "non-dominated").customdata) == sorted(front)
    assert _trace(figure, "trajectory 7").x[0] == returns[7, 0]

    edges = np.linspace(0, 1, 5)
    histograms = [[1, 2, 3, 4], [4, 3, 2, 1], [0, 0, 5, 5]]
    coverage = preference_coverage_figure(("a", "b", "c"), edges, histograms)
    assert [list(trace.y) for trace in coverage.data] == histograms
    np.testing.assert_allclose(coverage.data[0].x, [0.125, 0.375, 0.625, 0.875])


def test_ternary_picker() -> None:
    candidates = np.array(
        [
            (i / 4, j / 4, (4 - i - j) / 4)
            for i, j in itertools.product(range(5), repeat=2)
            if i + j <= 4
        ]
    )
    figure = ternary_figure(("a", "b", "c"), candidates, current=(0.5, 0.25, 0.25))
    assert len(figure.data[0].a) == 15 and list(figure.data[0].customdata[3]) == [3]
    assert list(figure.data[1].a) == [0.5]
    with pytest.raises(ValueError):
        ternary_figure(("a", "b"), candidates)


def test_metrics_table_and_best_marks() -> None:
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 10, size=(6, 2))
    b = rng.uniform(0, 10, size=(6, 2))
    prefs = rng.dirichlet([1, 1], size=6)
    rtg = rtg_following(a * 1.2, prefs, a)
    table = metrics_table(
        [
            AgentMetrics("A", a, prefs, rtg, env_id="MO-Test-v0"),
            AgentMetrics("B", b, prefs, None, env_id="MO-Test-v0"),
        ],
        (0.0, 0.0),
    )
    for name, points in (("A", a), ("B", b)):
        expected = front_summary(points, (0.0, 0.0), prefs)
        assert table.loc[name, "hypervolume"] == pytest.approx(expected.hypervolume)
        assert table.loc[name, "sparsity"] == pytest.approx(expected.sparsity)
        assert table.loc[name, "cardinality"] == expected.cardinality
    assert np.isnan(table.loc["B", "RTG weighted error"])
    marks = best_per_column(table)
    better_hv = "A" if table.loc["A", "hypervolume"] > table.loc["B", "hypervolume"] else "B"
    assert marks.loc[better_hv, "hypervolume"] and marks["hypervolume"].sum() == 1
    lower_sparsity = table["sparsity"].idxmin()
    assert marks.loc[lower_sparsity, "sparsity"]
    assert not marks["RTG weighted error"].any()  # one defined value: nothing to compare
    tied = table.copy()
    tied["cardinality"] = 4
    assert best_per_column(tied)["cardinality"].all()
    html = styled_metrics(table).to_html()
    assert "font-weight: bold" in html


def test_tour_panel_highlights_the_point_where_it_belongs() -> None:
    points = np.array([[0.0, 0.0], [10.0, 5.0], [5.0, 10.0]])
    panel = FrontPanel(("run", "energy"), points, size=200)
    pixels = panel.to_pixels(points)
    assert pixels[1, 0] > pixels[0, 0] and pixels[2, 1] < pixels[0, 1]  # x right, y up
    image = panel.draw((10.0, 5.0), trail=[(0.0, 0.0)])
    assert image.shape == (200, 200, 3) and image.dtype == np.uint8
    column, row = pixels[1]
    assert tuple(image[row, column]) == HIGHLIGHT
    moved = panel.draw((5.0, 10.0))
    assert tuple(moved[row, column]) != HIGHLIGHT


def _drawn_texts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float, str, object]]:
    """(x, y, text, font) of every text Pillow draws from now on."""
    from PIL import ImageDraw

    drawn: list[tuple[float, float, str, object]] = []
    text = ImageDraw.ImageDraw.text

    def keeping(self, xy, content, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        drawn.append((float(xy[0]), float(xy[1]), str(content), kwargs.get("font")))
        return text(self, xy, content, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", keeping)
    return drawn


def test_tour_panel_has_tick_values_and_a_legend_where_they_belong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = _drawn_texts(monkeypatch)
    points = np.array([[0.0, 50.0], [100.0, 0.0], [50.0, 25.0], [40.0, 20.0]])  # the last beaten
    cloud = np.array([[10.0, 10.0], [60.0, 5.0]])
    panel = FrontPanel(("run", "energy"), points, size=480, cloud=cloud)
    image = panel.draw((50.0, 25.0))
    # By hand: values padded by 8% of their span, x in [-8, 108] and y in [-4, 54]; about 4
    # ticks each, on the round step nearest a quarter of the span (29 -> 20 and 14.5 -> 20).
    # A 480-px panel has 15-px text; the plot spans columns 75..460 and rows 30..435.
    x_ticks = {"0": 0.0, "20": 20.0, "40": 40.0, "60": 60.0, "80": 80.0, "100": 100.0}
    y_ticks = {"0": 0.0, "20": 20.0, "40": 40.0}
    below = [(x, y, text, font) for x, y, text, font in drawn if 435 < y < 460]
    assert sorted(text for *_, text, _ in below if text in x_ticks) == sorted(x_ticks)
    for x, _, text, font in below:
        if text in x_ticks:  # centred under its value's column
            column = 75 + (x_ticks[text] + 8) / 116 * 385
            assert abs(x + font.getlength(text) / 2 - column) <= 1, text
    left = [(x, y, text, font) for x, y, text, font in drawn if x + font.getlength(text) <= 75]
    assert sorted(text for *_, text, _ in left if text in y_ticks) == sorted(y_ticks)
    for x, y, text, font in left:
        if text in y_ticks:  # right-aligned beside the axis, level with its value's row
            row = 435 - (y_ticks[text] + 4) / 58 * 405
            assert abs(y + 7.5 - row) <= 1, text
            assert abs(x + font.getlength(text) - 69) <= 1, text
    texts = [text for *_, text, _ in drawn]
    assert "run (higher is better)" in texts and "energy (higher is better)" in texts
    # The legend names every mark, beside a swatch of the mark's own colour.
    legend = {
        "best trade-offs": FRONT,
        "beaten by another point": DOMINATED,
        "the dataset's episodes": CLOUD,
        "stops already shown": TRAIL,
        "this stop": HIGHLIGHT,
    }
    for x, y, text, _ in drawn:
        if text in legend:
            middle, radius = round(y + 7.5 + 1), 5
            swatch = image[
                middle - radius : middle + radius + 1, round(x - 6 - 2 * radius) : round(x - 6) + 1
            ]
            colours = {tuple(int(c) for c in pixel) for pixel in swatch.reshape(-1, 3)}
            assert legend.pop(text) in colours, text
    assert not legend, f"missing from the legend: {sorted(legend)}"
    # Each text is drawn inside the picture, in ink (dark pixels where it stands).
    for x, y, text, font in drawn:
        left_edge, top_edge, right_edge, bottom_edge = font.getbbox(text)
        box = image[
            max(0, round(y + top_edge)) : round(y + bottom_edge),
            max(0, round(x + left_edge)) : round(x + right_edge),
        ]
        assert 0 <= x <= x + right_edge <= 480, text
        assert 0 <= y <= y + bottom_edge <= 480, text
        assert (box.max(axis=2) < 150).any(), text
    assert tuple(image[0, 479]) == BACKGROUND


def test_tour_panel_title_stands_above_the_plot_clear_of_the_legend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = _drawn_texts(monkeypatch)
    points = np.array([[0.0, 50.0], [100.0, 0.0]])
    title = "MORvS (halfcheetah, expert-uniform)"
    FrontPanel(("run", "energy"), points, size=320, title=title)
    # 320 px: 10-px text, the plot's top at row 20; the y axis' title at the top left.
    ((y_x, y_y, _, font),) = [d for d in drawn if d[2] == "energy (higher is better)"]
    (shown,) = [d for d in drawn if d[2] == title or d[2].endswith("...")]
    x, y, text, _ = shown
    assert text == title or title.startswith(text.removesuffix("..."))
    assert len(text) > 10  # most of the name is readable
    assert y == y_y and y + font.getbbox(text)[3] <= 20  # on the top row, above the plot
    assert x >= y_x + font.getlength("energy (higher is better)") + 10  # clear of the y title
    assert x + font.getlength(text) <= 320  # inside the picture
    assert all(d[1] >= 20 for d in drawn if d[2] in ("best trade-offs", "this stop"))


# --- known fronts and the mixing guard ------------------------------------------------------------


def test_known_front_is_its_own_trace_labelled_exact_or_approximate() -> None:
    from paretoscope.envs.known_fronts import known_front

    exact = known_front("deep-sea-treasure-v0", 0.99)
    points = exact.points + np.array([-0.5, -3.0])
    figure = front_figure(
        ("treasure", "time"),
        [_series(points, "random <b>", env_id="deep-sea-treasure-v0")],
        known_front=exact,
    )
    trace = _trace(figure, "known front (exact)")
    np.testing.assert_array_equal(np.column_stack([trace.x, trace.y]), exact.points)
    assert trace.hovertext[0].startswith("known front (exact), γ = 0.99")
    assert "pareto_front(gamma)" in trace.hovertext[0]
    assert all("<b>" not in (entry.name or "") for entry in figure.data)  # labels escaped
    hv = hypervolume_figure(
        ("treasure", "time"),
        [_series(points, env_id="deep-sea-treasure-v0")],
        (0.0, -25.0),
        known_front=exact,
    )
    assert _trace(hv, "known front (exact)").x is not None

    approximate = known_front("minecart-v0", 1.0)
    three = approximate.points * 0.5
    series = _series(three, env_id="minecart-v0")
    for axes, kind in ((None, go.Scatter3d), ((0, 2), go.Scatter)):
        figure = front_figure(
            ("ore_1", "ore_2", "fuel"), [series], axes=axes, known_front=approximate
        )
        trace = _trace(figure, "known front (approximate)")
        assert isinstance(trace, kind) and len(trace.x) == len(approximate.points)
        assert "not guaranteed optimal" in trace.hovertext[0]


def test_a_point_hover_names_its_regret_against_the_known_front() -> None:
    points = np.array([[1.0, -1.0], [2.0, -3.0]])
    series = FrontSeries(
        "agent", points, np.array([[0.5, 0.5], [1.0, 0.0]]), regret=[0.25, 1.5], env_id="e"
    )
    figure = front_figure(("a", "b"), [series])
    texts = [text for trace in figure.data for text in (trace.hovertext or ())]
    assert any("regret vs known front: 0.25" in text for text in texts)
    assert any("regret vs known front: 1.5" in text for text in texts)
    with pytest.raises(ValueError, match="regret"):
        FrontSeries("agent", points, points, regret=[1.0], env_id="e")


def test_fronts_of_different_envs_are_never_drawn_or_ranked_together() -> None:
    from paretoscope.envs.known_fronts import known_front
    from paretoscope.errors import ParetoscopeError
    from paretoscope.mixing import one_env

    points = np.array([[1.0, 2.0], [2.0, 1.0]])
    d4morl = _series(points, "cheetah (D4MORL)", env_id="MO-HalfCheetah-v2")
    gymnasium = _series(points, "cheetah (v5)", env_id="mo-halfcheetah-v5")
    with pytest.raises(ParetoscopeError, match="MO-HalfCheetah-v2.*mo-halfcheetah-v5"):
        front_figure(("run", "energy"), [d4morl, gymnasium])
    with pytest.raises(ParetoscopeError, match="different environments"):
        hypervolume_figure(("run", "energy"), [d4morl, gymnasium], (0.0, 0.0))
    prefs = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ParetoscopeError, match="metrics table"):
        metrics_table(
            [
                AgentMetrics("a", points, prefs, env_id="MO-HalfCheetah-v2"),
                AgentMetrics("b", points, prefs, env_id="mo-halfcheetah-v5"),
            ],
            (0.0, 0.0),
        )
    # A known front of another env is refused too.
    with pytest.raises(ParetoscopeError, match="known front"):
        front_figure(("run", "energy"), [d4morl], known_front=known_front("deep-sea-treasure-v0"))
    # One env: fine, and so is nothing at all.
    assert one_env([("a", "x"), ("b", "x")]) == "x" and one_env([]) is None
    with pytest.raises(ParetoscopeError, match="no environment id"):
        one_env([("a", "")])


def test_metrics_table_measures_against_the_known_front() -> None:
    from paretoscope.envs.known_fronts import known_front
    from paretoscope.metrics import compare_with_front

    front = known_front("deep-sea-treasure-v0", 1.0)
    prefs = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    # Each preference's best treasure (most treasure, a balance, the nearest), 0.5 short of it.
    near = front.points[[9, 4, 0]] - 0.5
    far = front.points[[0, 0, 0]] - 5.0
    table = metrics_table(
        [
            AgentMetrics("near", near, prefs, env_id="deep-sea-treasure-v0"),
            AgentMetrics("far", far, prefs, env_id="deep-sea-treasure-v0"),
        ],
        (0.0, -25.0),
        known_front=front,
    )
    expected = compare_with_front(near, prefs, front.points)
    assert table.loc["near", "IGD"] == pytest.approx(expected.igd)
    assert table.loc["near", "IGD+"] == pytest.approx(expected.igd_plus)
    assert table.loc["near", "max utility loss"] == pytest.approx(expected.maximum_utility_loss)
    assert table.loc["near", "mean regret"] == pytest.approx(expected.mean_regret)
    assert expected.regret == pytest.approx([0.5, 0.5, 0.5])
    marks = best_per_column(table)
    for column in ("IGD", "IGD+", "max utility loss", "mean regret"):  # lower is better
        assert marks.loc["near", column] and not marks.loc["far", column]
    without = metrics_table(
        [AgentMetrics("near", near, prefs, env_id="deep-sea-treasure-v0")], (0.0, -25.0)
    )
    assert "IGD" not in without.columns


def _polylines(svg: str) -> list[np.ndarray]:
    """Each polyline's points (n, 2) in the SVG picture, in drawing order."""
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.fromstring(svg)
    lines = root.iter("{http://www.w3.org/2000/svg}polyline")
    return [
        np.array([[float(v) for v in pair.split(",")] for pair in line.get("points").split()])
        for line in lines
    ]


def test_episode_svg_draws_the_same_series_as_the_interactive_chart() -> None:
    from paretoscope.dashboard.episode_svg import HEIGHT, LEFT, RIGHT, WIDTH, episode_svg

    steps = np.array([2, 4, 5])
    cumulative = np.array([[2.0, -1.0], [6.0, -2.0], [7.0, 0.0]])
    svg = episode_svg(("run", "energy"), steps, cumulative, horizon=10)
    reward_run, reward_energy, total_run, total_energy = _polylines(svg)
    # x: steps 2, 4, 5 of 0..10 across the plot area.
    width = WIDTH - LEFT - RIGHT
    np.testing.assert_allclose(reward_run[:, 0], LEFT + width * steps / 10, atol=0.06)
    # y grows downwards: the mean reward per step 1, 2, 1 (hand-computed) goes up then down by
    # the same amount; the cumulative run return 2, 6, 7 rises ever less.
    up, down = np.diff(reward_run[:, 1])
    assert up < 0 and down == pytest.approx(-up, abs=0.15)
    rises = -np.diff(total_run[:, 1])
    assert rises[0] > 0 and rises[1] > 0 and rises[0] == pytest.approx(4 * rises[1], rel=0.02)
    # energy's reward per step -0.5, -0.5, 2.0: flat, then up; its total -1, -2, 0.
    assert reward_energy[0, 1] == pytest.approx(reward_energy[1, 1], abs=0.06)
    assert reward_energy[2, 1] < reward_energy[1, 1]
    assert total_energy[1, 1] > total_energy[0, 1] > total_energy[2, 1]
    # Every point inside the picture.
    for line in (reward_run, reward_energy, total_run, total_energy):
        assert (line[:, 0] >= 0).all() and (line[:, 0] <= WIDTH).all()
        assert (line[:, 1] >= 0).all() and (line[:, 1] <= HEIGHT).all()


def test_episode_svg_escapes_names_and_skips_non_finite_values() -> None:
    from paretoscope.dashboard.episode_svg import episode_svg

    cumulative = np.array([[1.0, np.nan], [2.0, np.inf], [3.0, np.nan]])
    svg = episode_svg(("<b>run</b>", 'a "quote"'), np.array([1, 2, 3]), cumulative)
    assert "<b>" not in svg and "&lt;b&gt;run&lt;/b&gt;" in svg
    lines = _polylines(svg)  # parses: the picture is well-formed XML
    assert [len(line) for line in lines] == [3, 3]  # no line for the objective without values
    assert np.isfinite(np.concatenate(lines)).all()
    empty = episode_svg(("a", "b"), np.zeros(0), np.zeros((0, 2)), horizon=5)
    assert _polylines(empty) == []


def _svg_labels(svg: str) -> list[str]:
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.fromstring(svg)
    return [node.text or "" for node in root.iter("{http://www.w3.org/2000/svg}text")]


def test_episode_svg_labels_by_the_one_formatter_and_no_zero_over_an_end() -> None:
    from paretoscope.dashboard.episode_svg import episode_svg

    # Rewards 2170 then -2 (hand-computed from the cumulative 2170, 2168): the per-step panel
    # spans -110.6 .. 2278.6 (5% pads), the totals 2166.9 .. 2171.1.
    svg = episode_svg(("run",), np.array([1, 2]), np.array([[2170.0], [2168.0]]), horizon=2)
    labels = _svg_labels(svg)
    assert "2,279" in labels and "-110.6" in labels
    assert not any("e+" in label for label in labels), labels
    # Rewards -10 then 0.2 (panel -10.51 .. 0.71): zero lies 6% below the top, where its "0"
    # would print over "0.71"; rewards -10 then 5 leave room for it.
    svg = episode_svg(("run",), np.array([1, 2]), np.array([[-10.0], [-9.8]]), horizon=2)
    labels = _svg_labels(svg)
    assert labels[:5] == ["run", "reward per step", "0.71", "-10.51", "cumulative return"]
    # The x axis spans the 2 steps: its ticks 0, 1, 2.
    assert labels[-4:] == ["0", "1", "2", "step"]
    svg = episode_svg(("run",), np.array([1, 2]), np.array([[-10.0], [-5.0]]), horizon=2)
    assert _svg_labels(svg)[:5] == ["run", "reward per step", "5.75", "-10.75", "0"]


def test_the_posterior_picture_draws_the_segments_mass_interval_and_mean() -> None:
    import xml.etree.ElementTree as ElementTree

    from paretoscope.dashboard.posterior_svg import LEFT, RIGHT, WIDTH, segment_svg
    from paretoscope.figures.posterior import SEGMENT_BINS, segment_mass

    # Particles by hand: half the mass at weight 0.11, a quarter at 0.61 and at 0.91.
    weights = np.array([[0.11, 0.89], [0.61, 0.39], [0.91, 0.09]])
    mass = segment_mass(weights, np.array([0.5, 0.25, 0.25]))
    svg = segment_svg(("<run>", "energy"), mass, mean=0.4, low=0.1, high=0.9)
    assert "&lt;run&gt;" in svg and "<run>" not in svg
    namespace = "{http://www.w3.org/2000/svg}"
    root = ElementTree.fromstring(svg)
    _, band, *bars = root.iter(f"{namespace}rect")
    assert len(bars) == SEGMENT_BINS
    heights = np.array([float(bar.get("height")) for bar in bars])  # type: ignore[arg-type]
    tall = np.flatnonzero(heights > 0.5)
    assert list(tall) == [4, 24, 36]  # the bins of 0.11, 0.61 and 0.91 (of 40)
    np.testing.assert_allclose(heights[tall] / heights[tall].max(), [1.0, 0.5, 0.5], atol=0.01)
    width = WIDTH - LEFT - RIGHT
    left, span = float(band.get("x")), float(band.get("width"))  # type: ignore[arg-type]
    assert left == pytest.approx(LEFT + 0.1 * width, abs=0.1)
    assert left + span == pytest.approx(LEFT + 0.9 * width, abs=0.1)
    (mean,) = [line for line in root.iter(f"{namespace}line") if line.get("stroke-width") == "3"]
    assert float(mean.get("x1")) == pytest.approx(LEFT + 0.4 * width, abs=0.1)  # type: ignore[arg-type]
