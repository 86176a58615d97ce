"""`dashboard.warmup`: a page run never starts before the first imports are done, and a page
that starts keeps the heavy second stage off the cores."""

from __future__ import annotations

import threading
import time

import pytest

from dashboard import warmup


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """warmup's process-wide state reset, its imports replaced by a log of what it did."""
    log: list[str] = []
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "_page_started", threading.Event())
    monkeypatch.setattr(warmup, "_prepared", threading.Event())

    def slow_prepare() -> None:
        time.sleep(0.3)
        log.append("prepared")

    monkeypatch.setattr(warmup, "prepare", slow_prepare)
    monkeypatch.setattr(warmup, "import_all", lambda modules: log.append(",".join(modules)))
    monkeypatch.setattr(warmup, "freeze_imports", lambda: log.append("frozen"))
    return log


def test_a_page_waits_for_the_first_imports_and_stops_the_second_stage(fresh: list[str]) -> None:
    warmup.start(modules=("torch",), idle_start=0.5)
    warmup.page_started()
    assert fresh == ["prepared"]  # returned only once prepare was done
    time.sleep(0.8)  # past idle_start: the second stage was not run
    assert fresh == ["prepared"]


def test_an_idle_server_imports_the_second_stage(fresh: list[str]) -> None:
    warmup.start(modules=("torch", "core.rollout"), idle_start=0.05)
    assert warmup._thread is not None
    warmup._thread.join(timeout=5)
    assert fresh == ["prepared", "torch,core.rollout", "frozen"]


def test_a_page_without_the_server_s_warm_up_does_not_wait(fresh: list[str]) -> None:
    started = time.monotonic()
    warmup.page_started()  # plain `streamlit run`, an AppTest: nothing started
    assert time.monotonic() - started < 0.1 and fresh == []
