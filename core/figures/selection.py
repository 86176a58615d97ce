"""Reading a click back: the ``customdata`` of the points of a Streamlit selection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go


def selected_custom_data(figure: go.Figure, points: Sequence[Mapping]) -> list[list[int]]:
    """The ``customdata`` of the points in a Streamlit selection (``event["selection"]["points"]``).

    Uses the point's own ``customdata`` when the browser sent it, else looks it up from the
    trace (``curve_number``) and the point's index in it.
    """
    found = []
    for point in points:
        data = point.get("customdata")
        if data is None:
            curve = point.get("curve_number")
            index = point.get("point_index", point.get("point_number"))
            if curve is None or index is None or curve >= len(figure.data):
                continue
            trace_data = figure.data[curve].customdata
            if trace_data is None or index >= len(trace_data):
                continue
            data = trace_data[index]
        if data is None:
            continue
        if isinstance(data, Mapping):
            # A row of a 2-D numpy customdata (sent to the browser as a typed array) comes
            # back as {"0": a, "1": b}: its values in index order.
            data = [data[key] for key in sorted(data, key=int)]
        found.append([int(value) for value in data])
    return found
