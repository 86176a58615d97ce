"""Small controls around charts: reading clicked points back, choosing which objectives a
2-D view shows."""

from __future__ import annotations

from typing import Any

import streamlit as st

from paretoscope.envs import EnvSpec


def clicked_points(figure: Any, event: Any) -> list[list[int]]:
    """The ``customdata`` of the points a `st.plotly_chart(..., on_select="rerun")` returned."""
    from paretoscope.dashboard.figures.selection import selected_custom_data

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
    chosen = []
    for axis, column in enumerate(columns):
        chosen.append(
            column.selectbox(
                f"{'xyz'[axis]} axis",
                range(spec.n_obj),
                index=axis,
                format_func=lambda index: spec.objective_names[index],
                key=f"{key}_{axis}",
            )
        )
    return chosen
