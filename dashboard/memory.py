"""What the server holds in memory, for finding what grows (`benchmarks/bench_memory.py`).

`snapshot()` gathers the sizes of what the dashboard keeps per process: the recording
libraries' memory tier, the job board (and the step records its jobs hold), the worker pool,
threads, Python objects and glibc's heap (in use and free but not returned to the system).
With ``$PARETOSCOPE_MEMORY_LOG`` naming a file, `paretoscope.dashboard.serve` appends one JSON line
of it
every second. No Streamlit here: what Streamlit itself holds (caches, session states, media
files) is on its own ``/_stcore/metrics`` endpoint.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import threading
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported by snapshot(): starting the log imports nothing heavy
    from paretoscope.recordings import RecordingLibrary

MEMORY_LOG_ENV_VAR = "PARETOSCOPE_MEMORY_LOG"

_libraries: weakref.WeakSet[RecordingLibrary] = weakref.WeakSet()


def watch_library(library: RecordingLibrary) -> RecordingLibrary:
    """Count `library` in the snapshots (held weakly); returns it."""
    _libraries.add(library)
    return library


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def malloc_info() -> dict[str, int]:
    """glibc's heap (all arenas): bytes in use, free but kept, in mmapped blocks; {} elsewhere."""
    try:
        function = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return {}
    function.restype = _MallInfo2
    info = function()
    return {"in_use": info.uordblks, "free_kept": info.fordblks, "mmapped": info.hblkhd}


def _rss() -> int:
    with contextlib.suppress(OSError), open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return 0


def snapshot() -> dict[str, Any]:
    """The sizes, as plain values."""
    from paretoscope.dashboard.jobs import shared_board
    from paretoscope.dashboard.pool import shared_pool

    board = shared_board()
    jobs = board.jobs()
    pool = shared_pool()
    libraries = list(_libraries)
    return {
        "time": time.time(),
        "rss": _rss(),
        "threads": threading.active_count(),
        "python_objects": len(gc.get_objects()),
        "malloc": malloc_info(),
        "library_entries": sum(library.memory_entries for library in libraries),
        "library_bytes": sum(library.memory_bytes for library in libraries),
        "jobs": len(jobs),
        "job_history_frames": sum(len(job.history) for job in jobs),
        "pool_running": pool.running,
        "pool_waiting": pool.waiting,
    }


def _log(path: Path, interval: float) -> None:
    while True:
        with contextlib.suppress(Exception), path.open("a") as handle:
            handle.write(json.dumps(snapshot()) + "\n")
        time.sleep(interval)


def start_log_from_env(interval: float = 1.0) -> None:
    """With ``$PARETOSCOPE_MEMORY_LOG`` set, append a snapshot to that file every `interval`
    seconds from a daemon thread."""
    target = os.environ.get(MEMORY_LOG_ENV_VAR)
    if target:
        threading.Thread(
            target=_log, args=(Path(target), interval), name="paretoscope-memory-log", daemon=True
        ).start()
