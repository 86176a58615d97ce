"""The Many objectives page's linked views as one Streamlit component: the scatter matrix and
parallel coordinates in an iframe, linked in the browser (a brush in either highlights the
same policies in both at once) and reporting the brushed policy ids back to the page.

The component's files are `dashboard/components/linked_views/` (`plotly_component`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from paretoscope.dashboard.widgets.plotly_component import plotly_component

_FILES = ("index.html", "linked_views.js")


def view_arguments(
    matrix: go.Figure, parallel: go.Figure, values: np.ndarray, heights: np.ndarray
) -> dict[str, Any]:
    """What the component draws, as JSON-ready values (cache it: it is the same after every
    brush). `values` (N, k) are the policies as the scatter matrix shows them and `heights`
    (N, k) their places on the parallel axes: the browser draws the highlight from them."""
    matrix_json = matrix.to_json()
    parallel_json = parallel.to_json()
    return {
        "matrix": matrix_json,
        "parallel": parallel_json,
        "values": np.asarray(values, dtype=np.float64).tolist(),
        "heights": np.round(np.asarray(heights, dtype=np.float64), 5).tolist(),
        "digest": hashlib.sha256((matrix_json + parallel_json).encode()).hexdigest()[:16],
    }


def linked_views(
    arguments: dict[str, Any], selected: Sequence[int], key: str
) -> dict[str, Any] | None:
    """Draw the views (`view_arguments`) linked, with `selected` (the page's selection)
    highlighted; returns the browser's last brush, ``{"ids": [...], "nonce": n}`` (a new
    nonce per brush), or None before the first one."""
    return plotly_component("linked_views", _FILES)(
        **arguments, selected=[int(i) for i in selected], key=key, default=None
    )
