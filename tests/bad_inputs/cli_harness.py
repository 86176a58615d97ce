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
import resource
import subprocess
import sys
import tempfile
import threading
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


def _cap_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))


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
        with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
            started = time.monotonic()
            process = subprocess.Popen(
                [sys.executable, "-m", "paretoscope", *argv],
                cwd=work,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                preexec_fn=_cap_address_space,
            )
            # wait4 gives this child's own resource usage (its peak resident set among it).
            timer = threading.Timer(SECONDS_LIMIT, process.kill)
            timer.start()
            try:
                _, wait_status, usage = os.wait4(process.pid, 0)
            finally:
                timer.cancel()
            process.returncode = os.waitstatus_to_exitcode(wait_status)
            seconds = time.monotonic() - started
        out_text = stdout_path.read_text(errors="replace")
        err_text = stderr_path.read_text(errors="replace")
    after = _files_under(work)
    written = sorted(
        name for name in after - before if name != OUT and not name.startswith(OUT + os.sep)
    )
    return Outcome(
        status=process.returncode,
        stdout=out_text,
        stderr=err_text,
        peak_memory=usage.ru_maxrss * 1024,  # kilobytes on Linux
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
