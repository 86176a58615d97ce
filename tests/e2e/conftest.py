"""Browser tests: a real dashboard server on a free port with tiny generated assets, and
Debian's Chromium driven by Playwright. Skipped, with the reason, when Chromium is missing."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from paretoscope.dashboard.widgets.episode_video import TEST_ID as EPISODE_VIDEO_ID
from paretoscope.dashboard.widgets.live_frames import TEST_ID as LIVE_FRAME_ID
from tests.conftest import REPO_DIR
from tests.waiting import wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
]
# A frame streamed into the page: the feed's picture once painted
# (`paretoscope.dashboard.frame_feed`), or
# an st.image (a server without the feed route), not the reward chart's SVG picture beside it.
FEED_FRAME = f'canvas[data-testid="{LIVE_FRAME_ID}"][data-frame]'
STREAMED_FRAME = f'{FEED_FRAME}, [data-testid="stImage"] img:not([src^="data:image/svg"])'
# A JavaScript function naming the frame such an element shows (a new name is a new frame).
FRAME_NAME = "((frame) => frame.getAttribute('src') || frame.dataset.frame || null)"
# An episode's finished MP4 (`paretoscope.dashboard.widgets.episode_video`).
EPISODE_VIDEO = f'video[data-testid="{EPISODE_VIDEO_ID}"]'
ARTIFACTS = REPO_DIR / "test-artifacts" / "e2e"
E2E_HORIZON = 60

# Inside the linked views' frame: the parallel-coordinates plot area, its ranges and the values
# written at the first axis' ends (high, low).
PARALLEL_PLOT_AREA = """
() => {
  const plot = document.getElementById('parallel');
  if (!plot || !plot.layout || !plot.layout.xaxis) return null;
  const box = plot.querySelector('.nsewdrag').getBoundingClientRect();
  return {x: box.x, y: box.y, width: box.width, height: box.height,
          range: plot.layout.xaxis.range, yrange: plot.layout.yaxis.range,
          names: plot.layout.xaxis.ticktext,
          ends: plot.layout.annotations.slice(0, 2).map((note) => Number(note.text))};
}
"""
# The frame's place in the page, scrolled to the top of the view.
FRAME_AT_TOP = """
(frame) => { frame.scrollIntoView({block: 'start'}); const r = frame.getBoundingClientRect();
             return [r.x, r.y]; }
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess(subprocess.Popen):
    """A dashboard server in its own session, its output (stdout and stderr) written to
    `log_path` in the artifacts folder. Never a pipe: nobody reads one while the server runs,
    and once its 64 KiB fill up, the server's next log line blocks whichever thread writes it
    (a page run, a rendering job) until the server is stopped."""

    def __init__(
        self, command: list[str], port: int, environment: dict[str, str], cwd: Path | None = None
    ) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"server-{port}.log"
        with self.log_path.open("wb") as log:  # the child keeps its own copy of the descriptor
            super().__init__(
                command,
                cwd=cwd,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        RUNNING.append(self)


# The servers running now: a failing test's report ends with their logs.
RUNNING: list[ServerProcess] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed:
        for process in RUNNING:
            report.sections.append(
                (f"dashboard server log ({process.log_path.name})", server_output(process))
            )
    return report


def server_output(process: subprocess.Popen) -> str:
    """What a server started here has written so far (its log's last 20,000 characters)."""
    path = getattr(process, "log_path", None)
    if path is None or not path.exists():
        return ""
    return path.read_text(errors="replace")[-20_000:]


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = 90.0) -> float:
    """Seconds until the server's health endpoint answers 'ok' (the process must stay up)."""
    started = time.monotonic()

    def healthy() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"the dashboard server exited early:\n{server_output(process)}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                return reply.read().decode() == "ok"
        except OSError:
            return False  # not listening yet

    wait_until(healthy, timeout, "the dashboard server to answer")
    return time.monotonic() - started


def start_server(
    assets: Path, cache: Path, trace: Path | None = None
) -> tuple[subprocess.Popen, str]:
    """`paretoscope dashboard` (the same command line) on a free port, its page runs' milestones
    written to `trace` when given (`paretoscope.dashboard.trace`); returns (process, url)."""
    from paretoscope.cli.dashboard import streamlit_command

    port = free_port()
    environment = dict(os.environ, PARETOSCOPE_CACHE=str(cache), MUJOCO_GL="egl")
    if trace is not None:
        environment["PARETOSCOPE_TRACE"] = str(trace)
    process = ServerProcess(streamlit_command(assets, "127.0.0.1", port), port, environment)
    return process, f"http://127.0.0.1:{port}"


def start_cli_server(assets: Path, cache: Path, *flags: str) -> tuple[subprocess.Popen, str]:
    """`paretoscope dashboard --assets ASSETS --port P FLAGS...` itself (the command line, which
    becomes the server), with this checkout first on the path; returns (process, url)."""
    import sys

    port = free_port()
    path = os.pathsep.join(filter(None, [str(REPO_DIR), os.environ.get("PYTHONPATH")]))
    environment = dict(os.environ, PARETOSCOPE_CACHE=str(cache), MUJOCO_GL="egl", PYTHONPATH=path)
    command = [sys.executable, "-m", "paretoscope.cli", "dashboard", "--assets", str(assets)]
    process = ServerProcess([*command, "--port", str(port), *flags], port, environment, REPO_DIR)
    return process, f"http://127.0.0.1:{port}"


def stop_server(process: subprocess.Popen) -> None:
    # The server runs in its own session: stop the whole group, leave nothing behind.
    if process in RUNNING:
        RUNNING.remove(process)  # type: ignore[arg-type]
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def serving(started: tuple[subprocess.Popen, str]) -> Iterator[str]:
    """The url of a server `start_server` or `start_cli_server` started, once it is healthy;
    the server is stopped on leaving."""
    process, url = started
    try:
        wait_healthy(url, process)
        yield url
    finally:
        stop_server(process)


@pytest.fixture(scope="session")
def chromium() -> Path:
    # The README's test command installs both: their absence is a broken set-up, not a skip.
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) "
            "to run the browser tests"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the playwright Python package is missing (pip install 'paretoscope[test]')")
    return CHROMIUM


@pytest.fixture(scope="session")
def e2e_assets(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Path:
    from tests.demo_fixture import build_tiny_assets

    return build_tiny_assets(tmp_path_factory.mktemp("e2e-assets"), horizon=E2E_HORIZON)


@pytest.fixture(scope="session")
def server(e2e_assets: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(start_server(e2e_assets, tmp_path_factory.mktemp("e2e-cache"))) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium: Path) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    page = context.new_page()
    try:
        yield page
    finally:
        # The last state of the page, pass or fail (a broken page must not hide the failure).
        with contextlib.suppress(Exception):
            screenshot(page, f"{request.node.name}-final")
        context.close()


def screenshot(page: object, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]
