"""The server a browser benchmark measures: launched, waited for until it answers, stopped
(with everything it started) however the benchmark ends. The browser tests start the same
servers (`tests.e2e.conftest`)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.conftest import (
    ServerProcess,
    free_port,
    start_cli_server,
    start_server,
    stop_server,
    wait_healthy,
)

FLOOR_APP = Path(__file__).resolve().parent / "floor_app.py"

Launch = Callable[[], tuple[subprocess.Popen, str]]


@dataclass(frozen=True)
class Server:
    """A server that answers: its process (the head of its process group), its url, when it
    was launched (`time.monotonic()`) and how many seconds it took to answer."""

    process: subprocess.Popen
    url: str
    launched: float
    healthy: float


@contextlib.contextmanager
def serving(launch: Launch) -> Iterator[Server]:
    """The server `launch` starts, once it answers; stopped on leaving."""
    launched = time.monotonic()
    process, url = launch()
    try:
        wait_healthy(url, process)
        yield Server(process, url, launched, time.monotonic() - launched)
    finally:
        stop_server(process)


def dashboard_server(assets: Path, cache: Path) -> contextlib.AbstractContextManager[Server]:
    """`paretoscope dashboard` (its Streamlit command line) on `assets`, videos in `cache`."""
    return serving(lambda: start_server(assets, cache))


def cli_server(assets: Path, cache: Path, *flags: str) -> contextlib.AbstractContextManager[Server]:
    """`paretoscope dashboard --assets ASSETS FLAGS...` itself (the command line)."""
    return serving(lambda: start_cli_server(assets, cache, *flags))


def floor_server(arguments: list[str]) -> contextlib.AbstractContextManager[Server]:
    """`floor_app.py ARGUMENTS` (MP4 paths, or --stream) served by plain Streamlit with the
    dashboard's flags."""

    def launch() -> tuple[subprocess.Popen, str]:
        from paretoscope.cli.dashboard import streamlit_command

        port = free_port()
        command = streamlit_command(Path(tempfile.gettempdir()), "127.0.0.1", port)
        flags = command[5 : command.index("--")]
        app = [sys.executable, "-m", "streamlit", "run", str(FLOOR_APP), *flags, "--"]
        process = ServerProcess([*app, *arguments], port, dict(os.environ))
        return process, f"http://127.0.0.1:{port}"

    return serving(launch)
