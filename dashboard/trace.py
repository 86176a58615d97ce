"""When a page run reaches its milestones, for benchmarks (`benchmarks/bench_load.py`).

With ``$PARETOSCOPE_TRACE`` naming a file, `mark` appends one JSON line per milestone: the
system's monotonic clock (the same clock as a benchmark's `time.monotonic` on this machine),
the Streamlit session, the event and its fields. A benchmark that drives browsers lines them up
with its own key presses and its browsers' pictures to say which part of a delay is the
server's. Off (one environment lookup) unless the variable is set.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

TRACE_ENV_VAR = "PARETOSCOPE_TRACE"
_lock = threading.Lock()


def mark(event: str, **fields: Any) -> None:
    """Append `event` (with `fields`, JSON-able) for this run's session, if tracing is on."""
    path = os.environ.get(TRACE_ENV_VAR)
    if not path:
        return
    from paretoscope.dashboard.streamlit_internals import run_session_id

    line = {
        "t": time.monotonic(),
        "session": run_session_id(),  # None on the server's event loop, which marks too
        "event": event,
        **fields,
    }
    with _lock, open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def mark_fragment_start() -> None:
    """Mark "start" (scope "fragment") when this run is a fragment's own rerun; a full run marks
    it at the top of the app (scope "app")."""
    if not os.environ.get(TRACE_ENV_VAR):
        return
    from paretoscope.dashboard.streamlit_internals import fragment_run

    if fragment_run():
        mark("start", scope="fragment")
