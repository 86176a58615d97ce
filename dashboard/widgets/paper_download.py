"""The download under a chart: the same chart as a publication figure (PDF or SVG, drawn by
`paretoscope.figures.paper`), made only when a button is clicked."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("pdf", "svg")


def paper_downloads(draw: Callable[[], Figure], stem: str, key: str) -> None:
    """PDF and SVG buttons offering `draw()`'s figure as `stem`.pdf / `stem`.svg: the figure is
    drawn on the click (Streamlit calls the data callable then), never on a plain rerun."""
    from paretoscope.figures.paper import MIME_TYPES

    def payload(fmt: str) -> Callable[[], bytes]:
        def made() -> bytes:
            from paretoscope.figures.paper import figure_bytes

            return figure_bytes(draw(), fmt)

        return made

    with st.popover("Paper figure", icon=":material/download:"):
        st.caption("This chart for a paper: vector, one column wide, fonts embedded.")
        for fmt in FORMATS:
            st.download_button(
                fmt.upper(),
                payload(fmt),
                file_name=f"{stem}.{fmt}",
                mime=MIME_TYPES[fmt],
                key=f"{key}_{fmt}",
                on_click="ignore",
            )
