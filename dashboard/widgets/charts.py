"""Small controls around charts: reading clicked points back, choosing which objectives a
2-D view shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from paretoscope.envs import EnvSpec

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator


def clicked_points(figure: Any, event: Any) -> list[list[int]]:
    """The ``customdata`` of the points a `st.plotly_chart(..., on_select="rerun")` returned."""
    from paretoscope.figures.selection import selected_custom_data

    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return []
    return selected_custom_data(figure, points or [])


def axis_pickers(spec: EnvSpec, key: str, count: int = 2) -> list[int]:
    """Selectboxes choosing which objectives a 2-D view shows (only above `count` objectives)."""
    if spec.n_obj <= count:
        return list(range(spec.n_obj))
    columns = st.columns(count)
    return [
        objective_picker(
            column, f"{'xyz'[axis]} axis", spec.objective_names, f"{key}_{axis}", index=axis
        )
        for axis, column in enumerate(columns)
    ]


def objective_picker(
    place: DeltaGenerator, label: str, names: Sequence[str], key: str, index: int = 0
) -> int:
    """A selectbox in `place` choosing one objective by its name; the objective's index."""
    choice = place.selectbox(
        label, range(len(names)), index=index, format_func=lambda i: names[i], key=key
    )
    assert choice is not None  # a selectbox with options and an index: always one
    return choice


def reference_toggle(key: str) -> bool:
    """Whether the front's axes stretch to hold the hypervolume's reference point (off by
    default: a far reference point squeezes the front into a corner; an arrow names it)."""
    return st.toggle(
        "Show the reference point on the axes",
        value=False,
        key=key,
        help="The hypervolume is measured from the reference point (the sidebar's metric "
        "conventions). It often lies far below the front, so the axes fit the front and an "
        "arrow at the edge points to it; switch on to stretch the axes to hold it.",
    )
