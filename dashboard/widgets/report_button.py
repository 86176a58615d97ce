"""The "Download report" button of the Explore and Compare pages: what the page shows as one
self-contained HTML file (`paretoscope.report`). The report is made only on request (it
records episodes): a button prepares it, then a download button hands it over."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from paretoscope.report import ReportAgent, build_report


def report_button(
    key: str, env_id: str, agents: Callable[[], Sequence[ReportAgent]], identity: object
) -> None:
    """A "Prepare report" button for `agents()` on `env_id`, then "Download report" for the
    file it made while the page still shows the same thing (`identity`: what the page shows,
    e.g. the agents and the discount)."""
    state = f"_report_{key}"
    if st.button(
        "Prepare report",
        key=f"{key}_report_prepare",
        help="One HTML file that opens offline: the fronts, metrics, episode videos and how "
        "to reproduce them",
    ):
        bar = st.progress(0.0, text="Recording the episodes…")

        def on_video(done: int, total: int) -> None:
            bar.progress(done / max(total, 1), text=f"Recorded {done} of {total} episodes…")

        page, _ = build_report(env_id, list(agents()), on_video=on_video)
        bar.empty()
        st.session_state[state] = (repr(identity), page.encode("utf-8"))
    prepared = st.session_state.get(state)
    if prepared is not None and prepared[0] == repr(identity):
        st.download_button(
            "Download report",
            prepared[1],
            file_name=f"paretoscope-report-{env_id}.html",
            mime="text/html",
            key=f"{key}_report_download",
        )
