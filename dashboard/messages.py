"""What the page says when something goes wrong, and how it writes values: one place, so
every page shows errors the same way (a message, never a traceback)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import streamlit as st

from core.errors import ParetoscopeError


@contextlib.contextmanager
def guard(what: str) -> Iterator[None]:
    """Show any error inside the block as a message in the page, never a traceback; the rest of
    the page goes on. (Streamlit's own rerun/stop signals are not exceptions and pass.)"""
    from core.render import RenderingUnavailable

    try:
        yield
    except RenderingUnavailable as error:
        st.warning(f"{what}: video unavailable. {error}")
    except ParetoscopeError as error:
        st.error(f"{what}: {error}")
    except Exception as error:  # noqa: BLE001 - the page must survive anything
        st.error(f"{what}: unexpected {type(error).__name__}: {error}")


def describe(names: Sequence[str], values: Sequence[float], digits: str = ".4g") -> str:
    """ "run 1.2, energy 3.4": objective names with values."""
    return ", ".join(f"{n} {float(v):{digits}}" for n, v in zip(names, values, strict=True))
