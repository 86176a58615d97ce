"""How a benchmark ends: the load average then (the machine is shared), each failure, and the
exit status (0: none)."""

from __future__ import annotations

import os


def verdict(failures: list[str], load: bool = True) -> int:
    """Prints the load average (when `load`), each failure and OK or their count; returns the
    exit status."""
    if load:
        print("load average at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for failure in failures:
        print("FAIL:", failure)
    print("OK" if not failures else f"{len(failures)} failures")
    return 0 if not failures else 1
