"""Run the CLI on one hostile input the way a user would, with the machine protected.

Each case of the CLI's bad-input corpus (`tests/bad_inputs/cli_*.py`) makes its small files in
a fresh work folder and names the command line; `run_case` runs `python -m paretoscope` on it in
a child process whose address space is capped (so a memory bomb fails the test instead of the
machine) and reports what a user sees: the exit status, the messages, the peak memory the OS
measured for that child, and the files that appeared outside the case's output folder.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# What the issue allows a refusal to cost.
PEAK_MEMORY_LIMIT = 1 << 30
# The child's address-space cap: torch and mujoco reserve ~0.7 GB of address space at import;
# a bomb past this gets MemoryError (a failed test) rather than the machine's memory.
ADDRESS_SPACE_CAP = 4 << 30
SECONDS_LIMIT = 120
# The folder a case may write into (`--out` points here or below).
OUT = "out"
_MESSAGE = re.compile(r"paretoscope[\w -]*: error: ")


@dataclass(frozen=True)
class CliCase:
    """One hostile input: `argv(work)` makes the case's files in the empty folder `work` and
    returns the arguments after `paretoscope`; `expect` is a regular expression the one message
    must match (it should name the file and the field at fault)."""

    name: str
    argv: Callable[[Path], list[str]]
    expect: str


@dataclass(frozen=True)
class Outcome:
    status: int
    stdout: str
    stderr: str
    peak_memory: int  # bytes, the child's maximum resident set (the OS's own accounting)
    seconds: float
    written_outside_out: list[str]


# Runs the CLI with capped address space and writes its exit status and peak resident set to
# a file. The measuring parent is this small launcher, not the test process: a child's peak
# counts the memory of the process it was forked from (Linux keeps the old image's high-water
# mark across exec), and a test process that has run the whole suite holds over 1 GB.
_LAUNCHER = """
import os, resource, subprocess, sys
cap, report = int(sys.argv[1]), sys.argv[2]
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
child = subprocess.Popen(sys.argv[3:])
_, status, usage = os.wait4(child.pid, 0)
with open(report, "w") as file:
    file.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss * 1024}")
"""


def _files_under(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def run_case(case: CliCase, work: Path) -> Outcome:
    """Make the case's files in `work` and run the CLI there (its current directory)."""
    work.mkdir(parents=True, exist_ok=True)
    argv = case.argv(work)
    before = _files_under(work)
    environment = dict(os.environ, MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"))
    with tempfile.TemporaryDirectory() as streams:
        stdout_path, stderr_path = Path(streams, "stdout"), Path(streams, "stderr")
        report = Path(streams, "report")
        with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
            started = time.monotonic()
            launcher = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _LAUNCHER,
                    str(ADDRESS_SPACE_CAP),
                    str(report),
                    sys.executable,
                    "-m",
                    "paretoscope",
                    *argv,
                ],  # fmt: skip
                cwd=work,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,  # a timeout stops the CLI with its launcher
            )
            try:
                launcher.wait(timeout=SECONDS_LIMIT)
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait()
            seconds = time.monotonic() - started
        out_text = stdout_path.read_text(errors="replace")
        err_text = stderr_path.read_text(errors="replace")
        if report.exists():
            status, peak = (int(word) for word in report.read_text().split())
        else:  # stopped at the time limit
            status, peak = -signal.SIGKILL, 0
    after = _files_under(work)
    written = sorted(
        name for name in after - before if name != OUT and not name.startswith(OUT + os.sep)
    )
    return Outcome(
        status=status,
        stdout=out_text,
        stderr=err_text,
        peak_memory=peak,
        seconds=seconds,
        written_outside_out=written,
    )


def check_refusal(case: CliCase, outcome: Outcome) -> None:
    """The issue's bar for every hostile input: exit status 2, one clear message that names
    what is wrong, no traceback, bounded memory, nothing written outside the output folder."""
    shown = f"{case.name}: status {outcome.status}\nstderr: {outcome.stderr[-2000:]}"
    assert "Traceback" not in outcome.stderr, shown
    assert outcome.status == 2, shown
    # The CLI's own refusals and argparse's (after its usage lines) both start so.
    messages = [line for line in outcome.stderr.splitlines() if _MESSAGE.match(line)]
    assert len(messages) == 1, shown
    assert re.search(case.expect, messages[0]), f"{shown}\nexpected /{case.expect}/"
    assert len(messages[0]) < 2000, f"{case.name}: a message of {len(messages[0])} characters"
    assert outcome.peak_memory < PEAK_MEMORY_LIMIT, (
        f"{case.name}: peak memory {outcome.peak_memory / 2**20:.0f} MiB"
    )
    assert not outcome.written_outside_out, f"{case.name}: wrote {outcome.written_outside_out}"
