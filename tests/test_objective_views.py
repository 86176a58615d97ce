"""The Many objectives page's figures and linked-views component, without Streamlit: the
figures are valid plotly (checked by plotly's own validation, which the page skips for speed),
every policy is selectable once per view by its id, the display scale is core's, and the
component's files are complete."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from paretoscope.dashboard.widgets.linked_views import view_arguments
from paretoscope.decision import NORMALISATIONS, normalisation_scale, normalise
from paretoscope.figures.objectives import (
    ViewPoints,
    aspiration_figure,
    parallel_coordinates_figure,
    parallel_scaled,
    scatter_matrix_figure,
)

NAMES = ("speed", "energy", "height", "<b>safety</b>")


def _points(n: int = 40, k: int = 4, seed: int = 0) -> ViewPoints:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, k))
    values[:, 2] = 7.0  # a constant objective
    return ViewPoints(
        NAMES[:k],
        values,
        values[:, 0] < 0,
        marks={"knee": [3], "compromise": [5], "aspiration pick": [8]},
        aspiration=values.mean(axis=0),
    )


@pytest.mark.parametrize("build", [scatter_matrix_figure, parallel_coordinates_figure])
def test_figures_pass_plotlys_own_validation(build) -> None:  # noqa: ANN001
    figure = build(_points())
    go.Figure(figure.to_dict())  # raises on any invalid property
    json.loads(figure.to_json())


def test_every_policy_is_selectable_once_per_matrix_and_once_per_axis() -> None:
    points = _points()
    matrix = scatter_matrix_figure(points)
    policies = [t for t in matrix.data if t.name in ("non-dominated", "dominated")]
    ids = sorted(row[0] for trace in policies for row in trace.customdata)
    assert ids == list(range(40))
    hollow = next(t for t in policies if t.name == "dominated")
    assert sorted(row[0] for row in hollow.customdata) == list(np.flatnonzero(points.dominated))
    # The matrix shows the values as given, per dimension, for the rows its ids name.
    for trace in policies:
        rows = [row[0] for row in trace.customdata]
        for axis, dimension in enumerate(trace.dimensions):
            assert np.allclose(dimension["values"], points.values[rows, axis])
    parallel = parallel_coordinates_figure(points)
    markers = next(t for t in parallel.data if t.name == "values")
    assert sorted(row[0] for row in markers.customdata) == sorted(list(range(40)) * 4)
    # A marker's height is the policy's value scaled over its axis' range.
    heights = parallel_scaled(points)
    for x, y, (policy,) in zip(markers.x, markers.y, markers.customdata, strict=True):
        assert y == pytest.approx(heights[policy, int(x)])


def test_parallel_heights_span_each_axis_and_a_constant_axis_sits_in_the_middle() -> None:
    heights = parallel_scaled(_points())
    for axis in (0, 1, 3):
        assert heights[:, axis].min() == 0.0 and heights[:, axis].max() == 1.0
    assert np.all(heights[:, 2] == 0.5)


def test_names_are_shown_as_text_not_markup() -> None:
    figure = parallel_coordinates_figure(_points())
    assert "&lt;b&gt;safety&lt;/b&gt;" in figure.layout.xaxis.ticktext


@pytest.mark.parametrize("mode", NORMALISATIONS)
def test_normalisation_scale_is_normalise(mode: str) -> None:
    points = _points().values
    reference = points.min(axis=0) - 1.0
    offset, scale = normalisation_scale(points, mode, reference)
    assert (points - offset) / scale == pytest.approx(normalise(points, mode, reference))
    # An aspiration beyond the points is scaled by the points' own map, not clipped.
    beyond = points.max(axis=0) + 1.0
    low = {"raw": 0.0, "min-max": points.min(axis=0), "reference": reference}[mode]
    span = {
        "raw": 1.0,
        "min-max": np.ptp(points, axis=0),
        "reference": points.max(axis=0) - reference,
    }[mode]
    wide = np.broadcast_to(np.asarray(span) > 0, beyond.shape)
    expected = (beyond - low) / np.where(np.asarray(span) > 0, span, 1.0)
    assert ((beyond - offset) / scale)[wide] == pytest.approx(expected[wide])
    assert np.all(((beyond - offset) / scale)[~wide] == 0.0)


def test_aspiration_bars_colour_shortfalls_and_keep_the_objective_order() -> None:
    figure = aspiration_figure(NAMES, np.array([0.2, -0.1, 0.0, -0.5]))
    bar = figure.data[0]
    assert list(bar.y) == ["speed", "energy", "height", "&lt;b&gt;safety&lt;/b&gt;"]
    assert bar.marker.color[1] == bar.marker.color[3] != bar.marker.color[0] == bar.marker.color[2]
    # Labels by the one formatter, the axis wide enough for the longest bar (0.5 * 1.15).
    assert list(bar.text) == ["+0.2", "-0.1", "0", "-0.5"]
    assert list(figure.layout.xaxis.range) == pytest.approx([-0.575, 0.575])


def test_aspiration_bars_at_zero_keep_an_axis_of_a_tenth_of_the_range() -> None:
    figure = aspiration_figure(NAMES, np.zeros(4))
    assert list(figure.data[0].text) == ["0"] * 4
    assert list(figure.layout.xaxis.range) == [-0.1, 0.1]


def test_a_constant_objective_is_drawn_around_its_value_not_its_rounding_noise() -> None:
    values = np.array([[4.41602, 1.0], [4.41602 + 1e-9, 3.0]])
    points = ViewPoints(("a", "b"), values, np.zeros(2, dtype=bool))
    layout = scatter_matrix_figure(points).layout
    assert list(layout.xaxis.range) == pytest.approx([3.41602, 5.41602], abs=1e-6)
    assert layout.xaxis2.range is None  # b spreads: plotly fits it
    assert layout.xaxis.tickformat == layout.yaxis2.tickformat == ",.4~r"
    # On parallel coordinates it sits in the middle.
    assert parallel_scaled(points)[:, 0] == pytest.approx([0.5, 0.5])


def test_view_arguments_are_json_and_their_digest_follows_the_figures() -> None:
    points = _points()
    arguments = view_arguments(
        scatter_matrix_figure(points),
        parallel_coordinates_figure(points),
        points.values,
        parallel_scaled(points),
    )
    json.dumps(arguments)
    other = _points(seed=1)
    changed = view_arguments(
        scatter_matrix_figure(other),
        parallel_coordinates_figure(other),
        other.values,
        parallel_scaled(other),
    )
    assert arguments["digest"] != changed["digest"]
    assert np.asarray(arguments["values"]) == pytest.approx(points.values)
