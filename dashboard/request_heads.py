"""A bound on the time a connection to the dashboard's server takes to send a request's head.

uvicorn (Streamlit's server) times nothing before a request's head is whole: its keep-alive
timeout ends at the first byte of the next request, and the first request is not timed at all.
A client that opens connections and sends a header line a byte every few seconds, or nothing,
holds each one (a socket, a file descriptor, a protocol object) for as long as it likes. So
every connection has `HEAD_SECONDS` to send each request's head (the request line and the
header lines), timed from when it opened or its last response ended, and is closed without an
answer when it does not; once a head is whole nothing more is timed here: uploads, the
WebSocket of a page and the feeds' responses (`paretoscope.dashboard.frame_feed`, minutes
long) go on as before. `install` sets it up through
`paretoscope.dashboard.streamlit_internals` (called by `paretoscope.dashboard.serve` before the
server starts); where Streamlit's server settings cannot be edited the server log says so once,
and connections are not bounded.
"""

from __future__ import annotations

from typing import Any

from paretoscope.dashboard import streamlit_internals as internals

# Seconds a connection has to send a whole request head (a browser sends one at once; 10 s
# is generous for a slow link, as nginx's client_header_timeout of 60 s is for any client).
HEAD_SECONDS = 10.0

_taken = False  # `install` has chained the bound onto the server's settings


def _seconds() -> float:
    return HEAD_SECONDS  # looked up at each connection


def _with_deadline(settings: dict[str, Any]) -> dict[str, Any]:
    # uvicorn's "auto" is h11 unless httptools is installed; h11 serves a room as well.
    chosen = settings.get("http", "auto")
    if chosen not in ("auto", "h11"):  # Streamlit chose a protocol itself: keep it
        internals.report_changed(
            internals.SERVER_CONFIG, f"Streamlit serves with uvicorn's http={chosen!r}"
        )
        return settings
    return {**settings, "http": internals.head_deadline_protocol(_seconds)}


def install() -> bool:
    """Bound the request heads of the Streamlit server this process will start. False, and
    connections are not bounded, where this Streamlit's server settings cannot be edited
    (`streamlit_internals.SERVER_CONFIG`)."""
    global _taken
    if not _taken:
        _taken = internals.edit_server_config(_with_deadline)
    return _taken
