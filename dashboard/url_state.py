"""The view's state in the URL and in the session: links that reproduce a view, checked once
when a session starts, and changes to widgets that are already drawn (applied on the next run).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import streamlit as st

from paretoscope.dashboard.messages import inert

Parsed = TypeVar("Parsed")

# Query parameters that mirror the sidebar, and the session keys of their widgets.
URL_KEYS = ("env", "agent", "dataset", "seed", "size", "gamma", "norm")
VIDEO_SIZES = (240, 320, 480, 640)
DEFAULT_VIDEO_SIZE = 320
# The discount: in (0, 1]; in the URL only when it is not 1 (no discount), at this precision.
DEFAULT_GAMMA = 1.0
SMALLEST_GAMMA = 1e-4
GAMMA_DIGITS = 6


def load_url_once() -> None:
    """Copy the URL's query parameters into the session on the first run of a session; values
    that cannot be right are ignored, with a note saying which and why."""
    if st.session_state.get("_url_loaded"):
        return
    st.session_state["_url_loaded"] = True
    st.session_state["_url_notes"] = []
    params = st.query_params
    for key in ("env", "agent", "dataset"):
        if key in params:
            value = str(params[key])
            if len(value) > 200 or any(c in value for c in "/\\\x00"):
                note_ignored(key, value, "not a name")
            else:
                st.session_state[key] = value
                st.session_state[f"_url_asked_{key}"] = value
    for key, low, high in (("seed", 0, 2**31 - 1), ("size", 1, 10_000)):
        if key in params:
            try:
                number = int(params[key])
            except ValueError:
                note_ignored(key, str(params[key]), "not an integer")
                continue
            if not low <= number <= high:
                note_ignored(key, number, f"expected {low} to {high}")
                continue
            st.session_state[key] = number
    if "gamma" in params:
        asked = str(params["gamma"])
        gamma = parse_gamma(asked)
        if gamma is None:
            note_ignored("gamma", asked, f"expected a number from {SMALLEST_GAMMA:g} to 1")
        else:
            st.session_state["gamma"] = gamma
    if "norm" in params:
        from paretoscope.decision import NORMALISATIONS

        asked = str(params["norm"])
        if asked in NORMALISATIONS:
            st.session_state["normalisation"] = asked
        else:
            note_ignored("norm", asked, f"expected one of {', '.join(NORMALISATIONS)}")
    if "size" in st.session_state and st.session_state["size"] not in VIDEO_SIZES:
        note_ignored(
            "size",
            st.session_state.pop("size"),
            f"expected one of {', '.join(map(str, VIDEO_SIZES))}",
        )
    for key in PAGE_KEYS:
        if key in params:
            value = str(params[key])
            problem = _url_problem(key, value)
            if problem:
                note_ignored(key, value, problem)
            else:
                st.session_state[f"_url_{key}"] = value


def parse_gamma(text: str | None) -> float | None:
    """A discount from a link: a number from `SMALLEST_GAMMA` to 1, rounded as the URL writes
    it; None when it is anything else (absent, not a number, NaN, 0, above 1)."""
    if text is None or len(text) > 40:
        return None
    try:
        value = round(float(text), GAMMA_DIGITS)
    except ValueError:
        return None
    if not (np.isfinite(value) and SMALLEST_GAMMA <= value <= 1.0):
        return None
    return value


def format_gamma(gamma: float) -> str | None:
    """The URL's value for `gamma` (None at the default, 1: the link stays short)."""
    value = round(float(gamma), GAMMA_DIGITS)
    return None if value == DEFAULT_GAMMA else f"{value:g}"


# Values a page reads when it first draws (`url_value`); it notes those it cannot use.
PAGE_KEYS = ("pref", "target", "tm", "agents", "ref", "traj", "step", "ans", "pbest")
# Targets and reference points are returns: anything beyond this is a typo or an attack.
LARGEST_RETURN = 1e9


def _url_problem(key: str, value: str) -> str | None:
    """Why a URL value cannot be used whatever the page (None when it might be)."""
    if len(value) > 1000:
        return "too long"
    if key in ("pref", "target", "ref"):
        try:
            numbers = np.asarray([float(part) for part in value.split(",")], dtype=np.float64)
        except ValueError:
            return "expected numbers separated by commas"
        if not np.isfinite(numbers).all():
            return "expected finite numbers"
        if key == "pref" and ((numbers < 0).any() or not (numbers > 0).any()):
            return "expected non-negative weights with a positive sum"
        if key != "pref" and (np.abs(numbers) > LARGEST_RETURN).any():
            return f"expected returns between {-LARGEST_RETURN:g} and {LARGEST_RETURN:g}"
    # ASCII digits only: "²" is a digit to str.isdigit but not to int().
    if key == "traj" and not (value.isascii() and value.isdigit() and len(value) <= 12):
        return "expected a trajectory number (0, 1, ...)"
    if key == "step" and not (value.isascii() and value.isdigit() and len(value) <= 15):
        return "expected a training step (0, 1, ...)"
    if key == "tm" and value not in ("0", "1"):
        return "expected 0 or 1"
    return None


def note_ignored(key: str, value: object, why: str) -> None:
    """Say, in the sidebar's note for this session, that the link's `key=value` was ignored and
    why (`why` is app text; the value is shown inert). Pages call it while they draw: the note
    is drawn again at once."""
    shown = f"{key}={value[:60]!r}" if isinstance(value, str) else f"{key}={value}"
    notes = st.session_state.setdefault("_url_notes", [])
    note = f"{inert(shown)}: {why}"
    if note not in notes:
        notes.append(note)
        show_notes()


def show_notes() -> None:
    """Draw the session's notes in the slot the sidebar made for them (`notes_slot`)."""
    slot = st.session_state.get("_url_notes_slot")
    notes = st.session_state.get("_url_notes") or []
    if slot is not None and notes:
        slot.warning("This link's values were ignored: " + "; ".join(notes))


def notes_slot() -> None:
    """Make the place in the sidebar where the notes go (call once per run, in the sidebar)."""
    st.session_state["_url_notes_slot"] = st.empty()
    show_notes()


def note_unknown(key: str, options: Sequence[str]) -> None:
    """A URL name that is not among the choices: say so (once) and use the default."""
    asked = st.session_state.pop(f"_url_asked_{key}", None)
    if asked is not None and asked not in options:
        note_ignored(key, asked, f"no such {key} here")


def set_url(**values: str | None) -> None:
    """Mirror values in the URL (None removes a key), so a copied link reproduces the view."""
    for key, value in values.items():
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != value:
            st.query_params[key] = value


def url_value(key: str) -> str | None:
    """A value the page's URL carried when the session started (consumed once)."""
    return st.session_state.pop(f"_url_{key}", None)


def url_value_as(key: str, parse: Callable[[str | None], Parsed | None], why: str) -> Parsed | None:
    """The link's `key` read by `parse` (consumed once); a value it cannot read is noted with
    `why` and gives None, like an absent one."""
    asked = url_value(key)
    value = parse(asked)
    if asked is not None and value is None:
        note_ignored(key, asked, why)
    return value


def request_change(
    preference: Sequence[float] | None = None,
    widgets: dict[str, Any] | None = None,
    bump: str | None = None,
) -> None:
    """Change widgets that are already on the page: remembered now, applied at the start of the
    next run (before any widget exists), which starts at once. `bump` names a counter that
    renews a chart's key, clearing its selection."""
    pending = st.session_state.setdefault("_pending", {})
    if preference is not None:
        pending["preference"] = tuple(float(v) for v in preference)
    pending.setdefault("widgets", {}).update(widgets or {})
    if bump:
        st.session_state[bump] = st.session_state.get(bump, 0) + 1
    st.rerun()
