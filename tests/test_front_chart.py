"""The Explore page's front chart (`paretoscope.dashboard.widgets.front_chart`): what it sends the
browser.
A slider move must leave the front's digest unchanged (the browser then only moves the
markers), carry the markers' own values, and rebuild into the figure `front_figure` drew."""

from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest

from paretoscope.dashboard.widgets.front_chart import chart_arguments
from paretoscope.figures.front import FrontSeries, Marker, front_figure

NAMES = ("speed", "energy")
RETURNS = np.array([[1.0, 9.0], [4.0, 6.0], [7.0, 2.0], [3.0, 3.0]])


def _figure(
    current: list[float] | None,
    target: list[float] | None = None,
    returns: np.ndarray = RETURNS,
    names: tuple[str, ...] = NAMES,
) -> go.Figure:
    preferences = returns / returns.sum(axis=1, keepdims=True)
    series = FrontSeries("agent", returns, preferences, None, None, env_id="e")
    return front_figure(
        names,
        [series],
        reference_point=[0.0] * len(names),
        current=None if current is None else Marker(np.asarray(current), "this rollout"),
        target=None if target is None else Marker(np.asarray(target), "target"),
    )


def test_a_moved_marker_keeps_the_fronts_digest_and_carries_its_values() -> None:
    before = chart_arguments(_figure([4.0, 6.0], target=[5.0, 5.0]))
    after = chart_arguments(_figure([7.0, 2.0], target=[6.5, 2.5]))
    assert after["digest"] == before["digest"] and after["front"] == before["front"]
    moved = {trace["uid"]: trace for trace in after["moving"]}
    assert [trace["uid"] for trace in after["moving"]] == ["target", "current"]
    assert (moved["current"]["x"], moved["current"]["y"]) == ([7.0], [2.0])
    assert (moved["target"]["x"], moved["target"]["y"]) == ([6.5], [2.5])
    # The arrow runs from the target to this rollout.
    (arrow,) = after["annotations"]
    assert (arrow["ax"], arrow["ay"], arrow["x"], arrow["y"]) == (6.5, 2.5, 7.0, 2.0)
    json.dumps(after)  # all of it goes to the browser as JSON


def test_another_front_has_another_digest() -> None:
    one = chart_arguments(_figure([4.0, 6.0]))
    other = chart_arguments(_figure([4.0, 6.0], returns=RETURNS + 0.5))
    assert one["digest"] != other["digest"]


def test_without_markers_nothing_moves() -> None:
    arguments = chart_arguments(_figure(None))
    assert arguments["moving"] == [] and arguments["annotations"] == []


def test_three_objectives_move_in_three_dimensions() -> None:
    returns = np.column_stack([RETURNS, RETURNS[:, ::-1].sum(axis=1)])
    arguments = chart_arguments(
        _figure([1.0, 2.0, 3.0], returns=returns, names=("speed", "energy", "height"))
    )
    (current,) = arguments["moving"]
    assert current["type"] == "scatter3d"
    assert (current["x"], current["y"], current["z"]) == ([1.0], [2.0], [3.0])


def _decoded(value: object) -> object:
    """Plotly's base64 typed arrays (``{"dtype", "bdata"}``) as numpy arrays, everywhere."""
    if isinstance(value, dict) and set(value) >= {"dtype", "bdata"}:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    if isinstance(value, dict):
        return {key: _decoded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    return value


def test_the_pieces_rebuild_the_figure_front_figure_drew() -> None:
    figure = _figure([4.0, 6.0], target=[5.0, 5.0])
    arguments = chart_arguments(figure)
    front = _decoded(json.loads(arguments["front"]))
    assert isinstance(front, dict)
    rebuilt = go.Figure(  # plotly's own validation of every trace and the layout
        data=front["data"] + arguments["moving"],
        layout={**front["layout"], "annotations": arguments["annotations"]},
    )
    assert [trace.name for trace in rebuilt.data] == [trace.name for trace in figure.data]
    for drawn, original in zip(rebuilt.data, figure.data, strict=True):
        np.testing.assert_array_equal(np.asarray(drawn.x), np.asarray(original.x))
        np.testing.assert_array_equal(np.asarray(drawn.y), np.asarray(original.y))
    assert rebuilt.layout.annotations[0].x == 4.0
    assert rebuilt.layout.uirevision == "front"  # the user's zoom survives a redraw


def test_a_marker_before_the_fronts_own_traces_is_refused() -> None:
    figure = _figure([4.0, 6.0])
    figure.data = (figure.data[-1], *figure.data[:-1])
    with pytest.raises(ValueError, match="after the front's own traces"):
        chart_arguments(figure)
