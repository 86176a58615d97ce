"""`paretoscope evaluate ... --wandb PROJECT/RUN`: a sweep logged with W&B's own library (offline)
in MORL-Baselines' keys reads back through paretoscope's W&B run reader with the sweep's front.

Checked against the results store's own rows: the mean returns per preference, filtered to the
distinct non-dominated points by brute force, and `evaluate --json`'s numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.results_store import ResultsStore
from paretoscope.runs.run import open_run
from paretoscope.runs.wandb_log import WandbTarget

DST = "deep-sea-treasure-v0"


def _brute_force_front(points: np.ndarray) -> np.ndarray:
    """Distinct points no other point is at least as good as in every objective and better in
    one (all objectives maximised)."""
    distinct = np.unique(points, axis=0)
    kept = [
        point
        for point in distinct
        if not any((other >= point).all() and (other > point).any() for other in distinct)
    ]
    return np.array(sorted(map(tuple, kept)))


def test_a_logged_sweep_reads_back_with_its_front_and_numbers(tmp_path: Path) -> None:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("WANDB_MODE", "WANDB_API_KEY", "WANDB_DIR")
    }
    command = [sys.executable, "-m", "paretoscope", "evaluate", "random", "--env", DST]
    result = subprocess.run(
        [
            *command,
            "--granularity",
            "6",
            "--episodes",
            "2",
            "--out",
            "results",
            "--json",
            "--wandb",
            "paretoscope-tests/sweep-one",
        ],  # fmt: skip
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout)
    (folder,) = (tmp_path / "wandb").glob("offline-run-*-sweep-one")  # offline by default
    assert f"logged to W&B: {folder}" in result.stderr

    run = open_run(folder)
    assert run.format == "wandb" and run.env_id == DST
    (logged,), notices = run.logged_fronts()
    assert not notices
    assert logged.step == 0

    rows = ResultsStore(tmp_path / "results").read(DST)
    returns = rows.groupby("preference_treasure")[["return_treasure", "return_time"]].mean()
    expected = _brute_force_front(returns.to_numpy())
    shown = np.array(sorted(map(tuple, logged.returns)))
    np.testing.assert_allclose(shown, expected, rtol=1e-6)  # a W&B table holds float32
    assert logged.scalars["eval/hypervolume"] == pytest.approx(summary["hypervolume"])
    assert logged.scalars["eval/cardinality"] == summary["cardinality"] == len(expected)
    assert logged.scalars["eval/igd"] == pytest.approx(summary["known_front"]["igd"])
    assert logged.scalars["eval/mul"] == pytest.approx(
        summary["known_front"]["maximum_utility_loss"]
    )


@pytest.mark.parametrize("text", ["", "a/b/c", "has space", "x" * 500, "p/../../etc"])
def test_a_target_that_is_no_project_or_run_is_refused(text: str) -> None:
    with pytest.raises(ParetoscopeError, match=r"^--wandb .*expected PROJECT or PROJECT/RUN"):
        WandbTarget.parse(text)


def test_a_project_and_run_are_read() -> None:
    assert WandbTarget.parse("morl") == WandbTarget("morl", None)
    assert WandbTarget.parse("morl/seed-1.b") == WandbTarget("morl", "seed-1.b")
