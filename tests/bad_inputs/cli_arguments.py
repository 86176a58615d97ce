"""Hostile command-line arguments (issue 50): values no file is needed for."""

from __future__ import annotations

from tests.bad_inputs.cli_harness import CliCase

CASES: list[CliCase] = [
    CliCase(
        "missing-agent-file",
        lambda work: ["evaluate", "nope.tar", "--env", "deep-sea-treasure-v0"],
        r"nope\.tar",
    ),
]
