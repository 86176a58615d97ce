"""Hostile checkpoints for the CLI (issue 50): each case makes its small files in a work folder."""

from __future__ import annotations

from tests.bad_inputs.cli_harness import CliCase

CASES: list[CliCase] = []
