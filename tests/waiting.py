"""Waiting in tests for the event itself, never for a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Between two looks at a condition: short, so that a test goes on as soon as the event happens.
POLL_SECONDS = 0.01


def wait_until(
    condition: Callable[[], T], timeout: float = 10.0, message: str = "the condition"
) -> T:
    """The first true value of `condition()`, looked at until `timeout` seconds have passed;
    then an AssertionError naming `message` (what was waited for)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {message}")
        time.sleep(POLL_SECONDS)
