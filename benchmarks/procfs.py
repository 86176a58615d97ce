"""The machine's processes as Linux's /proc shows them, for the benchmarks' memory and CPU
figures (no extra package)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Process:
    pid: int
    name: str  # the command name (/proc/PID/stat's second field)
    group: int  # the process group id
    cpu_seconds: float  # user + system time so far

    def rss(self) -> int:
        """Resident memory now (bytes; 0 once the process has gone)."""
        try:
            with open(f"/proc/{self.pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0


def processes() -> Iterator[Process]:
    """Every process still there when its entry is read."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                head, tail = handle.read().rsplit(")", 1)
            fields = tail.split()  # from the state on: fields 3, 4, 5... of proc(5)
            used = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
            yield Process(int(entry), head.split("(", 1)[1], int(fields[2]), used)
        except (OSError, IndexError, ValueError):
            continue
