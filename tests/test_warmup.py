"""`paretoscope.dashboard.warmup`: a page run never starts before the first imports are done, and a
page
that starts keeps the heavy second stage off the cores."""

from __future__ import annotations

import threading
import time

import pytest

from paretoscope.dashboard import warmup


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """warmup's process-wide state reset, its imports replaced by a log of what it did."""
    log: list[str] = []
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "_page_started", threading.Event())
    monkeypatch.setattr(warmup, "_prepared", threading.Event())
    monkeypatch.setattr(warmup, "_listening", threading.Event())

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
    warmup.start(modules=("torch", "paretoscope.rollout"), idle_start=0.05)
    assert warmup._thread is not None
    warmup._thread.join(timeout=5)
    assert fresh == ["prepared", "torch,paretoscope.rollout", "frozen"]


def test_a_page_without_the_server_s_warm_up_does_not_wait(fresh: list[str]) -> None:
    started = time.monotonic()
    warmup.page_started()  # plain `streamlit run`, an AppTest: nothing started
    assert time.monotonic() - started < 0.1 and fresh == []


def test_the_first_stage_waits_for_the_server_to_listen(fresh: list[str]) -> None:
    warmup.start(modules=("torch",), idle_start=60, after_listening=True)
    time.sleep(0.5)
    assert fresh == []  # not while Streamlit starts
    warmup.server_listening()
    warmup.page_started()
    assert fresh == ["prepared"]


def test_a_server_that_never_says_it_listens_is_prepared_anyway(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "LISTEN_WAIT", 0.2)
    started = time.monotonic()
    warmup.start(modules=("torch",), idle_start=60, after_listening=True)
    warmup.page_started()
    assert fresh == ["prepared"] and 0.5 <= time.monotonic() - started < 5  # 0.2 + 0.3
