"""Streamlit components that draw with plotly.js in their own iframe: their files
(`dashboard/components/<name>/`) plus the installed plotly package's own plotly.min.js,
copied together into the cache folder once per version. A component is served from one
folder, and nothing is fetched from the network."""

from __future__ import annotations

import hashlib
import importlib.resources
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import streamlit.components.v1 as components

from paretoscope.atomic import write_bytes_atomically
from paretoscope.cache import cache_dir

SOURCES = Path(__file__).resolve().parents[1] / "components"


def _plotly_js() -> bytes:
    return importlib.resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()


@cache
def plotly_component(name: str, files: Sequence[str]) -> Any:
    """Declare component `name` once per process, from a folder holding `files` (from
    `SOURCES / name`) and plotly.min.js."""
    parts = {file: (SOURCES / name / file).read_bytes() for file in files}
    parts["plotly.min.js"] = _plotly_js()
    digest = hashlib.sha256(b"".join(parts[file] for file in sorted(parts))).hexdigest()[:16]
    folder = cache_dir() / "components" / f"{name.replace('_', '-')}-{digest}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file, data in parts.items():
            if not (folder / file).is_file():
                write_bytes_atomically(folder / file, data)
    except OSError:
        # An unwritable cache: a private folder for this process.
        folder = Path(tempfile.mkdtemp(prefix=f"paretoscope-{name}-"))
        for file, data in parts.items():
            (folder / file).write_bytes(data)
    return components.declare_component(name, path=str(folder))
