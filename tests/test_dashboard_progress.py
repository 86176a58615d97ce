"""A sweep's progress while a page waits for it: episodes done of the total, the time left (from
the pace so far), told to the page's own thread; and each sweep computed once, not again by the
cache that keeps it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paretoscope.dashboard import pool as pool_module
from paretoscope.dashboard.widgets.progress import EpisodeProgress, time_left_text
from tests.apptests import open_app, page_ok


def test_the_time_left_is_the_pace_since_the_first_report_times_what_remains() -> None:
    now = [100.0]
    progress = EpisodeProgress(clock=lambda: now[0])
    # 4 of 10 stored before the work: no pace yet.
    assert progress.text("Evaluating A", 4, 10) == (
        "Evaluating A: 4 of 10 episodes · estimating the time left"
    )
    now[0] = 103.0  # 3 episodes in 3 s: the 3 left take about 3 s
    assert progress.text("Evaluating A", 7, 10) == "Evaluating A: 7 of 10 episodes · about 3 s left"
    now[0] = 106.0  # 5 episodes in 6 s: 1.2 s each, 1 left
    assert progress.text("Evaluating A", 9, 10) == "Evaluating A: 9 of 10 episodes · about 2 s left"
    assert progress.text("Evaluating A", 10, 10).endswith("almost done")
    assert time_left_text(200.0) == "about 3 min left"
    assert time_left_text(89.2) == "about 90 s left"


@pytest.fixture
def one_worker() -> Iterator[None]:
    pool_module.set_shared_pool(pool_module.RolloutPool(1, poll_seconds=0.02))
    yield
    pool_module.set_shared_pool(None)


@pytest.mark.usefixtures("one_worker")
def test_each_report_reaches_the_waiting_thread_in_order() -> None:
    from paretoscope.dashboard.live import compute_with_progress

    seen: list[tuple[int, int, str]] = []
    shown = [threading.Event(), threading.Event()]

    def on_progress(done: int, total: int) -> None:
        seen.append((done, total, threading.current_thread().name))
        shown[done - 1].set()

    def sweep(report) -> str:  # noqa: ANN001 - the job's reporter
        for done in (1, 2):
            report(done, 3)
            assert shown[done - 1].wait(10), "the waiting thread was told"
        return "table"

    caller = threading.current_thread().name
    assert compute_with_progress("sweep-progress", sweep, on_progress) == "table"
    assert seen == [(1, 3, caller), (2, 3, caller)]


@pytest.mark.slow
def test_a_page_computes_its_sweep_once_following_its_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.sweeps import SweepRequest
    from tests.demo_fixture import build_tiny_assets

    assets = build_tiny_assets(tmp_path / "assets", horizon=20)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    runs: list[bool] = []
    run = SweepRequest.run

    def counting(self, agent, store, on_progress=None):  # noqa: ANN001, ANN202
        runs.append(on_progress is not None)
        return run(self, agent, store, on_progress)

    monkeypatch.setattr(SweepRequest, "run", counting)
    at = open_app({"env": "deep-sea-treasure-v0", "agent": "random"})  # no sweep stored
    page_ok(at)
    # The front's sweep ran once, followed (the bar), and the cache took its table as it was.
    assert runs == [True]
    assert not at.get("progress"), "the bar is gone once the sweep is done"
