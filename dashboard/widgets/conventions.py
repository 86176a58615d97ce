"""The metric conventions, in one visible and editable place in the sidebar: the discount γ, the
hypervolume reference point and the normalisation of the many-objective views. Every page reads
them from the sidebar's `Context`; the expander's label shows the values in force."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.url_state import (
    DEFAULT_GAMMA,
    SMALLEST_GAMMA,
    format_gamma,
    set_url,
    url_value_as,
)
from paretoscope.decision import NORMALISATIONS
from paretoscope.envs import EnvSpec

DEFAULT_NORMALISATION = "raw"
NORMALISATION_LABELS = {
    "raw": "raw returns",
    "min-max": "min–max over the front (0 worst, 1 best)",
    "reference": "relative to the reference point (0 there, 1 at the best)",
}


@dataclass(frozen=True)
class Conventions:
    """What every metric and many-objective view on every page is computed with."""

    gamma: float
    reference_point: tuple[float, ...] | None  # None without an env
    normalisation: str


def _reference_keys(n_obj: int) -> list[str]:
    return [f"ref_{index}" for index in range(n_obj)]


def _start_reference_point(spec: EnvSpec) -> None:
    """Set the reference point inputs to the env's own (or the link's, on a session's first
    run) when the env changes."""
    keys = _reference_keys(spec.n_obj)
    if st.session_state.get("_ref_env") == spec.id and all(k in st.session_state for k in keys):
        return
    start = None
    if "_ref_env" not in st.session_state:
        start = url_value_as(
            "ref",
            lambda text: prefs.parse_vector_or_none(text, spec.n_obj),
            f"expected {spec.n_obj} values, one per objective",
        )
    if start is None:
        start = np.asarray(spec.reference_point, dtype=np.float64)
    for key, value in zip(keys, start, strict=True):
        st.session_state[key] = float(value)
    st.session_state["_ref_env"] = spec.id


def _reference_point(spec: EnvSpec) -> tuple[float, ...]:
    """The reference point inputs; the URL mirrors a point that is not the env's own."""
    keys = _reference_keys(spec.n_obj)

    def reset() -> None:
        for key, value in zip(keys, spec.reference_point, strict=True):
            st.session_state[key] = float(value)

    st.markdown("**Hypervolume reference point**")
    columns = st.columns(min(spec.n_obj, 3))
    for index, key in enumerate(keys):
        columns[index % len(columns)].number_input(
            spec.objective_names[index], key=key, step=10.0, format="%.4g"
        )
    reference = tuple(float(st.session_state[key]) for key in keys)
    changed = not np.allclose(reference, spec.reference_point)
    st.caption(f"The env's own: {tuple(spec.reference_point)} — {spec.reference_point_source}.")
    if changed:
        st.button("Use the env's reference point", on_click=reset, key="ref_reset")
    set_url(ref=prefs.format_vector(reference, 6) if changed else None)
    return reference


def metric_conventions(spec: EnvSpec | None) -> Conventions:
    """Draw the conventions' expander (in the sidebar) and return the values in force."""
    gamma_value = st.session_state.get("gamma")
    if not isinstance(gamma_value, float) or not SMALLEST_GAMMA <= gamma_value <= 1.0:
        st.session_state["gamma"] = DEFAULT_GAMMA
    if st.session_state.get("normalisation") not in NORMALISATIONS:
        st.session_state["normalisation"] = DEFAULT_NORMALISATION
    label = f"Metric conventions · γ {float(st.session_state['gamma']):g}"
    if spec is not None:
        _start_reference_point(spec)
        values = [float(st.session_state[key]) for key in _reference_keys(spec.n_obj)]
        label += " · reference " + ", ".join(f"{value:g}" for value in values)
    label += f" · {st.session_state['normalisation']}"
    with st.expander(label):
        gamma = st.number_input(
            "Discount γ",
            min_value=SMALLEST_GAMMA,
            max_value=1.0,
            step=0.01,
            format="%.4g",
            key="gamma",
            help="Returns on the fronts and in the metrics count the reward of step t as "
            "γ^t (1: undiscounted). A known front is drawn at the same γ.",
        )
        reference = None if spec is None else _reference_point(spec)
        normalisation = st.radio(
            "Normalisation of the many-objective views",
            NORMALISATIONS,
            key="normalisation",
            format_func=NORMALISATION_LABELS.get,
            help="How the scatter matrix, parallel coordinates and aspiration levels scale "
            "each objective. Metrics (hypervolume, utility) always use raw returns.",
        )
        st.caption(
            "Sparsity is always shown next to cardinality: it rewards a few clustered points "
            "(lower is denser), so read it with the number of points."
        )
    set_url(
        gamma=format_gamma(gamma),
        norm=None if normalisation == DEFAULT_NORMALISATION else normalisation,
    )
    return Conventions(float(gamma), reference, str(normalisation))
