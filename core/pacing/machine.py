"""How busy the machine is: the share of its CPU time left idle lately (Linux's /proc/stat).

A live stream's pictures cost the machine twice: the server draws and sends each one, and a
viewer's browser decodes and paints it. When both run on one machine that is nearly full (a
demo laptop, a shared box, a benchmark with its browsers), the pages should share fewer frames
a second (`paretoscope.pacing.display.budget_for`): a slower picture, and the moves stay quick. The
idle share says so whatever fills the machine: our renderer, the browsers or another job.
Where /proc/stat cannot be read the share is unknown (None) and the budget stays whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

PROC_STAT = Path("/proc/stat")

CpuTimes = tuple[float, float]  # (total, idle) CPU time since boot, all CPUs, any unit


def read_cpu_times(path: Path = PROC_STAT) -> CpuTimes | None:
    """(total, idle) clock ticks of all CPUs since boot from /proc/stat's "cpu" line (idle
    counts I/O wait too; guest time is already inside user time); None where unreadable."""
    try:
        with open(path, encoding="ascii") as handle:
            fields = handle.readline().split()
    except (OSError, UnicodeDecodeError):
        return None
    if len(fields) < 5 or fields[0] != "cpu":
        return None
    try:
        # user nice system idle iowait irq softirq steal (the ones a kernel has)
        ticks = [float(value) for value in fields[1:9]]
    except ValueError:
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0.0)
    return sum(ticks), idle


class IdleShare:
    """The machine's idle share of CPU time (0 to 1), smoothed over windows of `period`
    seconds; read again at most once a period, so any thread may ask often. None until two
    reads a period apart exist, and where the times cannot be read."""

    def __init__(
        self,
        period: float = 1.0,
        smoothing: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        read: Callable[[], CpuTimes | None] = read_cpu_times,
    ) -> None:
        self.period = float(period)
        self.smoothing = float(smoothing)  # weight of the share before the last window
        self._clock = clock
        self._read = read
        self._lock = threading.Lock()
        self._times: CpuTimes | None = None
        self._at = -float("inf")
        self._share: float | None = None

    def __call__(self) -> float | None:
        with self._lock:
            now = self._clock()
            if now - self._at < self.period:
                return self._share
            times = self._read()
            if times is None:
                self._times, self._share = None, None
                return None
            if self._times is not None:
                total, idle = times[0] - self._times[0], times[1] - self._times[1]
                if total > 0:
                    share = min(1.0, max(0.0, idle / total))
                    if self._share is not None:
                        share = self.smoothing * self._share + (1.0 - self.smoothing) * share
                    self._share = share
            self._times, self._at = times, now
            return self._share
