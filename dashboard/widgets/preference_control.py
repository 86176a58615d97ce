"""The preference control: a widget fitted to the objective count that stays on the simplex
and snaps to the sweep grid, synchronised across pages."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.url_state import request_change, set_url, url_value_as
from paretoscope.dashboard.widgets.charts import clicked_points
from paretoscope.envs import EnvSpec


def current_preference(
    n_obj: int, granularity: int, default: Sequence[float] | None = None
) -> np.ndarray:
    """The session's preference for this objective count (from the URL on first use, else
    `default` when it fits, else the middle of the simplex), on the grid."""
    stored = st.session_state.get("preference")
    if stored is not None and len(stored) == n_obj:
        return np.asarray(stored, dtype=np.float64)
    from_url = url_value_as(
        "pref",
        lambda text: prefs.parse_preference(text, n_obj, granularity),
        f"expected {n_obj} weights, one per objective",
    )
    start = default if default is not None and len(default) == n_obj else prefs.uniform(n_obj)
    value = from_url if from_url is not None else prefs.snap(np.asarray(start), granularity)
    st.session_state["preference"] = tuple(map(float, value))
    return value


def set_preference(preference: Sequence[float] | np.ndarray, prefix: str = "") -> None:
    """Make `preference` current and move every preference widget to it (call from callbacks
    or before the widgets are drawn)."""
    value = tuple(float(v) for v in preference)
    st.session_state["preference"] = value
    for key_prefix in {prefix, "", "cmp_", "tour_"}:
        _sync_widgets(value, key_prefix)


def _sync_widgets(value: tuple[float, ...], prefix: str) -> None:
    n_obj = len(value)
    if n_obj == 2:
        st.session_state[f"{prefix}w_pref2"] = value[1]
    elif n_obj == 3:
        for index in range(3):
            st.session_state[f"{prefix}w_pref3_{index}"] = value[index]
    else:
        for index in range(n_obj):
            st.session_state[f"{prefix}w_prefn_{index}"] = value[index]


def preference_control(
    spec: EnvSpec,
    granularity: int,
    prefix: str = "",
    default: Sequence[float] | None = None,
) -> np.ndarray:
    """A preference widget fitted to the objective count; returns the current preference.

    Two objectives: one slider with the objective names at its ends. Three: three sliders that
    stay on the simplex plus a clickable ternary plot. More: one slider per objective, which
    also stay on the simplex. Values snap to the sweep grid (multiples of 1/granularity) so
    that they match precomputed episodes. A session starts at the link's preference, else at
    `default` (the assets' opening preference), else at the middle of the simplex.
    """
    names = spec.objective_names
    n_obj = spec.n_obj
    preference = current_preference(n_obj, granularity, default)
    step = 1.0 / granularity
    if n_obj == 2:
        key = f"{prefix}w_pref2"
        if key not in st.session_state:
            st.session_state[key] = float(preference[1])

        def slider_moved() -> None:
            weight = float(st.session_state[key])
            set_preference(prefs.snap((1.0 - weight, weight), granularity), prefix)

        left, middle, right = st.columns([2, 7, 2], vertical_alignment="center")
        left.markdown(f"**{names[0]}**  \n{preference[0]:.2f}")
        middle.slider(
            f"Preference between {names[0]} and {names[1]}",
            min_value=0.0,
            max_value=1.0,
            step=step,
            key=key,
            on_change=slider_moved,
            label_visibility="collapsed",
            format=f"{names[1]} %.2f",
        )
        right.markdown(f"**{names[1]}**  \n{preference[1]:.2f}")
    elif n_obj == 3:
        columns = st.columns([3, 2])
        with columns[0]:
            for index in range(3):
                key = f"{prefix}w_pref3_{index}"
                if key not in st.session_state:
                    st.session_state[key] = float(preference[index])

                def moved(index: int = index, key: str = key) -> None:
                    current = np.asarray(st.session_state.get("preference"), dtype=np.float64)
                    new_value = float(st.session_state[key])
                    rebalanced = prefs.rebalance(current, index, new_value)
                    snapped = prefs.snap(rebalanced, granularity)
                    set_preference(snapped, prefix)

                st.slider(
                    names[index],
                    min_value=0.0,
                    max_value=1.0,
                    step=step,
                    key=key,
                    on_change=moved,
                )
        with columns[1]:
            candidates = _grid(3, granularity)
            from paretoscope.figures.preference import ternary_figure

            chart_key = f"{prefix}ternary_{st.session_state.get('_ternary_version', 0)}"

            figure = ternary_figure(names, candidates, preference)
            event = st.plotly_chart(
                figure,
                key=chart_key,
                on_select="rerun",
                selection_mode="points",
                width="stretch",
            )
            for data in clicked_points(figure, event):
                if data[0] is not None and 0 <= data[0] < len(candidates):
                    request_change(preference=candidates[int(data[0])], bump="_ternary_version")
    else:
        # One slider per objective; moving one rescales the others (keeping their proportions)
        # so the preference stays on the simplex, then snaps to the sweep grid like the others.
        columns = st.columns(min(n_obj, 4))
        for index in range(n_obj):
            key = f"{prefix}w_prefn_{index}"
            if key not in st.session_state:
                st.session_state[key] = float(preference[index])

            def moved(index: int = index, key: str = key) -> None:
                current = np.asarray(st.session_state.get("preference"), dtype=np.float64)
                rebalanced = prefs.rebalance(current, index, float(st.session_state[key]))
                set_preference(prefs.snap(rebalanced, granularity), prefix)

            columns[index % len(columns)].slider(
                names[index],
                min_value=0.0,
                max_value=1.0,
                step=step,
                key=key,
                on_change=moved,
            )
        st.caption(
            "The weights always sum to 1: moving one rescales the others. Preference: "
            + ", ".join(f"{n} {v:.2f}" for n, v in zip(names, preference, strict=True))
        )
    preference = np.asarray(st.session_state["preference"], dtype=np.float64)
    set_url(pref=prefs.format_vector(preference))
    return preference


def _grid(n_obj: int, granularity: int) -> np.ndarray:
    from paretoscope.metrics import preference_grid

    return preference_grid(n_obj, granularity)
