"""Issue 50's bar for every hostile input given to the CLI: exit status 2, one clear message
naming the file and the field, no traceback, peak memory under 1 GB, nothing written outside
`--out`. The cases (small files made by the scripts in tests/bad_inputs/) are grouped by what
they attack."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_inputs import (
    cli_arguments,
    cli_checkpoints,
    cli_datasets,
    cli_messages,
    cli_store,
)
from tests.bad_inputs.cli_harness import CliCase, check_refusal, run_case

CASES = [
    *cli_checkpoints.CASES,
    *cli_datasets.CASES,
    *cli_arguments.CASES,
    *cli_store.CASES,
    *cli_messages.CASES,
]


def test_case_names_are_unique() -> None:
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_hostile_input_is_refused_in_bounded_memory(case: CliCase, tmp_path: Path) -> None:
    check_refusal(case, run_case(case, tmp_path))
