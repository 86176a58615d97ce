"""`paretoscope.pacing.priority`: a thread lowers its own priority, and no other thread's."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from paretoscope.pacing.priority import lower_this_thread

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="threads are niced on Linux")


def niceness_of_a_thread_that(action) -> int:  # noqa: ANN001 - a callable run in the thread
    seen: list[int] = []

    def body() -> None:
        action()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return seen[0]


def test_a_thread_lowers_itself_and_leaves_the_others() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    lowered = niceness_of_a_thread_that(lambda: lower_this_thread(before + 5))
    assert lowered == before + 5
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    assert niceness_of_a_thread_that(lambda: None) == before


def test_a_lower_niceness_asked_later_changes_nothing() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def twice() -> None:
        lower_this_thread(before + 7)
        lower_this_thread(before + 2)

    assert niceness_of_a_thread_that(twice) == before + 7
