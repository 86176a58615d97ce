"""The Explore page's front as a Streamlit component: a plotly figure whose marker traces
(`figures.front.MOVING_TRACES`: this rollout, the target) and arrows move in place in the
browser when the rest of the figure is unchanged. `st.plotly_chart` redraws a whole figure when
any of it changes, and a slider move changes only its markers: that redraw was the largest part
of a viewer's time from a move to its first frame (docs/dashboard.md, "Many viewers").

It reports a click as `st.plotly_chart(..., on_select="rerun", selection_mode="points")` does,
``{"selection": {"points": [...]}}`` (read it with `charts.clicked_points`), plus a ``nonce``."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from paretoscope.dashboard.widgets.plotly_component import plotly_component
from paretoscope.figures.front import MOVING_TRACES

_FILES = ("index.html", "front_chart.js")


def _plain(value: Any) -> Any:
    """JSON-ready, arrays as plain lists (plotly writes them as base64 typed arrays, which
    plotly.js reads in a figure but not in every update; the marker traces are a point each)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict) and "bdata" in value and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            shape = value["shape"]
            array = array.reshape([int(n) for n in str(shape).split(",")])
        return array.tolist()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def chart_arguments(figure: go.Figure) -> dict[str, Any]:
    """What the component draws: the front without its marker traces and arrows (``front``, a
    JSON string, and its ``digest``), the marker traces (``moving``, last in the figure) and the
    arrows (``annotations``)."""
    spec = figure.to_plotly_json()
    traces = list(spec.get("data", []))
    moving = [trace for trace in traces if trace.get("uid") in MOVING_TRACES]
    front = traces[: len(traces) - len(moving)]
    if any(trace.get("uid") in MOVING_TRACES for trace in front):
        raise ValueError("the marker traces must come after the front's own traces")
    layout = dict(spec.get("layout", {}))
    annotations = layout.pop("annotations", [])
    # Zooming survives a redraw of the front (a new sweep, another view) as well as a move.
    layout.setdefault("uirevision", "front")
    front_json = to_json_plotly({"data": front, "layout": layout})
    return {
        "front": front_json,
        "digest": hashlib.sha256(front_json.encode()).hexdigest()[:16],
        "moving": _plain(moving),
        "annotations": _plain(list(annotations)),
    }


def front_chart(figure: go.Figure, key: str) -> dict[str, Any] | None:
    """Draw `figure` (the page's front, `figures.front.front_figure`); returns the last click's
    selection, or None before the first one (a new `key` forgets it)."""
    return plotly_component("front_chart", _FILES)(**chart_arguments(figure), key=key, default=None)
