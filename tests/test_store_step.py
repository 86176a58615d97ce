"""The results store keeps a run snapshot's training step: `paretoscope evaluate RUN` writes a
`step` column a user reads back with pandas alone (checked against the step each row's
`agent` label names), null for other agents, and stores written before it still read."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pandas as pd
import pytest

from paretoscope.evaluate import sweep
from paretoscope.results_store import STEP_COLUMN, ResultsStore
from paretoscope.settings import SweepSettings
from tests.agents_for_tests import LinearAgent
from tests.run_fixtures import envelope_run
from tests.test_cli import run_cli

DST = "deep-sea-treasure-v0"
ENV_ID = "mo-halfcheetah-v5"
SETTINGS = SweepSettings(granularity=2, episodes=1, horizon=5, workers=1)


def shards(root: Path, env_id: str) -> pd.DataFrame:
    """Every shard of the store, read with pandas directly (no paretoscope)."""
    paths = sorted((root / env_id).glob("*.parquet"))
    assert paths
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def test_evaluating_a_run_stores_each_rows_step(tmp_path: Path) -> None:
    root = envelope_run(tmp_path / "runs", steps=(100, 200, 300))
    out = tmp_path / "results"
    result = run_cli(
        "evaluate", str(root), "--env", DST, "--granularity", "2", "--episodes", "1",
        "--out", str(out), "--json", "--workers", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    stored = shards(out, DST)
    assert STEP_COLUMN in stored.columns
    assert pd.api.types.is_integer_dtype(stored[STEP_COLUMN])
    # The step each row's agent label names ("deep-sea-treasure-v0@step=N") is its step.
    named = stored["agent"].str.rsplit("@step=", n=1).str[1].astype(int)
    assert stored[STEP_COLUMN].tolist() == named.tolist()
    assert sorted(stored[STEP_COLUMN].unique()) == [100, 200, 300]
    assert stored.groupby(STEP_COLUMN).size().tolist() == [3, 3, 3]  # 3 preferences x 1 seed


def test_an_agent_not_from_a_run_stores_a_null_step_and_returns_none(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    table = sweep(LinearAgent(ENV_ID), ENV_ID, SETTINGS, store=store, progress=False)
    assert STEP_COLUMN not in table.columns  # the table a plain sweep returns is as before
    stored = shards(tmp_path, ENV_ID)
    assert len(stored) == 3 and stored[STEP_COLUMN].isna().all()


def test_a_store_written_before_the_step_column_still_reads(tmp_path: Path) -> None:
    table = sweep(LinearAgent(ENV_ID), ENV_ID, SETTINGS, progress=False)
    # A shard as the store wrote it before: no step column, named by its bytes' digest.
    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    data = buffer.getvalue()
    folder = tmp_path / ENV_ID
    folder.mkdir()
    old = folder / f"0123456789ab-{hashlib.sha256(data).hexdigest()[:16]}.parquet"
    old.write_bytes(data)

    store = ResultsStore(tmp_path)
    read = store.read(ENV_ID)
    assert len(read) == 3 and read[STEP_COLUMN].isna().all()
    again = sweep(LinearAgent(ENV_ID), ENV_ID, SETTINGS, store=store, progress=False)
    assert list(folder.glob("*.parquet")) == [old]  # read from the old shard, none recomputed
    pd.testing.assert_frame_equal(again, table)
    # A run's sweep over the same episodes gives them its step.
    stepped = sweep(LinearAgent(ENV_ID), ENV_ID, SETTINGS, store=store, progress=False, step=7)
    assert stepped[STEP_COLUMN].tolist() == [7, 7, 7]


@pytest.mark.parametrize("step", [0, 12345])
def test_a_sweep_with_a_step_stores_it(tmp_path: Path, step: int) -> None:
    table = sweep(
        LinearAgent(ENV_ID), ENV_ID, SETTINGS, store=ResultsStore(tmp_path), progress=False,
        step=step,
    )  # fmt: skip
    assert table[STEP_COLUMN].tolist() == [step] * 3
    assert list(table.columns[:2]) == ["agent", STEP_COLUMN]
    assert shards(tmp_path, ENV_ID)[STEP_COLUMN].tolist() == [step] * 3
