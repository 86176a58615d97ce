"""The Many objectives page's linked views as one Streamlit component: the scatter matrix and
parallel coordinates in an iframe, linked in the browser (a brush in either highlights the
same policies in both at once) and reporting the brushed policy ids back to the page.

The component's files are `dashboard/components/linked_views/` plus the installed plotly
package's own plotly.min.js, copied together into the cache folder once per version (the
component is served from one folder; nothing is fetched from the network)."""

from __future__ import annotations

import hashlib
import importlib.resources
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit.components.v1 as components

from core.atomic import write_bytes_atomically
from core.cache import cache_dir

_SOURCE = Path(__file__).resolve().parents[1] / "components" / "linked_views"
_FILES = ("index.html", "linked_views.js")


def _plotly_js() -> bytes:
    return importlib.resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


@cache
def _component() -> Any:
    """Declare the component once per process, from a folder holding its files."""
    parts = {name: (_SOURCE / name).read_bytes() for name in _FILES}
    parts["plotly.min.js"] = _plotly_js()
    digest = hashlib.sha256(b"".join(parts[name] for name in sorted(parts))).hexdigest()[:16]
    folder = cache_dir() / "components" / f"linked-views-{digest}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in parts.items():
            if not (folder / name).is_file():
                write_bytes_atomically(folder / name, data)
    except OSError:
        # An unwritable cache: a private folder for this process.
        folder = Path(tempfile.mkdtemp(prefix="paretoscope-linked-views-"))
        for name, data in parts.items():
            (folder / name).write_bytes(data)
    return components.declare_component("linked_views", path=str(folder))


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
    return _component()(**arguments, selected=[int(i) for i in selected], key=key, default=None)
