"""Preference sweeps and the results store: tables, resume after a kill, corruption, summary."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.agents.random_agent import RandomAgent
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import summarize, sweep
from paretoscope.results_store import KEY_COLUMN, ResultsStore
from paretoscope.settings import SweepSettings
from tests.agents_for_tests import LinearAgent
from tests.conftest import REPO_DIR
from tests.waiting import wait_until

ENV_ID = "mo-halfcheetah-v5"
HORIZON = 30


def small_sweep(store: ResultsStore | None = None, **changes: object) -> pd.DataFrame:
    values: dict[str, object] = dict(granularity=4, episodes=2, horizon=HORIZON, workers=1)
    settings = SweepSettings(**{**values, **changes})  # type: ignore[arg-type]
    return sweep(LinearAgent(ENV_ID), ENV_ID, settings, store=store, progress=False)


def test_one_row_per_preference_and_seed_in_request_order() -> None:
    table = small_sweep()
    assert len(table) == 5 * 2
    expected_preferences = np.repeat(np.linspace(0, 1, 5), 2)
    np.testing.assert_allclose(table["preference_velocity"], expected_preferences)
    np.testing.assert_allclose(table["preference_energy"], 1 - expected_preferences)
    assert table["seed"].tolist() == [0, 1] * 5
    for column in ("return_velocity", "return_energy", "length", "diverged", "wall_time"):
        assert column in table.columns
    assert (table["length"] == HORIZON).all()
    assert table[KEY_COLUMN].is_unique


@pytest.mark.slow
def test_tables_do_not_depend_on_batching_or_worker_count() -> None:
    single = small_sweep(workers=1)
    sharded = small_sweep(workers=2, batch_size=3)
    columns = [c for c in single.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(single[columns], sharded[columns])


def test_explicit_targets_are_recorded() -> None:
    targets = np.array([[10.0, 20.0], [30.0, 40.0]])
    settings = SweepSettings(
        preferences=np.array([[0.5, 0.5], [1.0, 0.0]]), targets=targets, horizon=5, workers=1
    )
    table = sweep(LinearAgent(ENV_ID), ENV_ID, settings, progress=False)
    np.testing.assert_allclose(table[["target_velocity", "target_energy"]], targets)
    assert table["explicit_target"].all()


def test_repeated_sweep_reads_from_the_store(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    first = small_sweep(store=store)
    shards = sorted((tmp_path / ENV_ID).glob("*.parquet"))
    started = time.perf_counter()
    second = small_sweep(store=store)
    assert time.perf_counter() - started < 5
    assert sorted((tmp_path / ENV_ID).glob("*.parquet")) == shards  # nothing recomputed
    columns = [c for c in first.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(first[columns], second[columns])


def test_progress_counts_stored_then_each_batch_up_to_every_episode(tmp_path: Path) -> None:
    settings = SweepSettings(granularity=4, episodes=2, horizon=HORIZON, workers=1, batch_size=3)
    told: list[tuple[int, int]] = []

    def follow(store: ResultsStore) -> None:
        told.clear()
        sweep(
            LinearAgent(ENV_ID),
            ENV_ID,
            settings,
            store=store,
            progress=False,
            on_progress=lambda done, total: told.append((done, total)),
        )

    # 5 preferences x 2 seeds, nothing stored, batches of 3: 0, 3, 6, 9, 10 of 10.
    follow(ResultsStore(tmp_path / "fresh"))
    assert told == [(0, 10), (3, 10), (6, 10), (9, 10), (10, 10)]
    # Granularity 1 stores preferences (0, 1) and (1, 0) at both seeds: 4 of the 10 are ready.
    partly = ResultsStore(tmp_path / "partly")
    small_sweep(store=partly, granularity=1)
    follow(partly)
    assert told == [(4, 10), (7, 10), (10, 10)]


def test_a_corrupted_shard_is_set_aside_and_recomputed(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    first = small_sweep(store=store)
    (shard,) = (tmp_path / ENV_ID).glob("*.parquet")
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    second = small_sweep(store=store)
    assert list((tmp_path / ENV_ID).glob("*.corrupt")), "the corrupted shard was not set aside"
    columns = [c for c in first.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(first[columns], second[columns])


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_store_gives_a_clear_error(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    small_sweep(store=store, granularity=1)
    folder = tmp_path / ENV_ID
    folder.chmod(0o500)
    try:
        with pytest.raises(ParetoscopeError, match="cannot write results"):
            small_sweep(store=store, granularity=2)
    finally:
        folder.chmod(0o700)


def test_full_disk_gives_a_clear_error_and_keeps_earlier_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResultsStore(tmp_path)
    first = small_sweep(store=store, granularity=1)
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    with pytest.raises(ParetoscopeError, match="No space left"):
        small_sweep(store=store, granularity=2)
    monkeypatch.undo()
    leftovers = [p.name for p in (tmp_path / ENV_ID).iterdir() if not p.name.endswith(".parquet")]
    assert leftovers == []
    assert len(store.read(ENV_ID)) == len(first)


@pytest.mark.slow
def test_killed_sweep_resumes_with_only_what_is_missing(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(REPO_DIR)!r})
        from paretoscope.evaluate import sweep
        from paretoscope.results_store import ResultsStore
        from paretoscope.settings import SweepSettings
        from tests.agents_for_tests import LinearAgent

        class SlowStore(ResultsStore):
            # A deliberately slow store, a pause after each batch: on a loaded machine the test,
            # waiting for the first shard, could otherwise wake only after the whole sweep had
            # finished.
            def write(self, env_id, rows):
                path = super().write(env_id, rows)
                time.sleep(0.5)  # the deliberately slow store above
                return path

        settings = SweepSettings(granularity=39, episodes=2, horizon=1000, workers=1,
                                 batch_size=4)
        sweep(LinearAgent({ENV_ID!r}), {ENV_ID!r}, settings, store=SlowStore({str(tmp_path)!r}),
              progress=False)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script])
    folder = tmp_path / ENV_ID
    try:
        wait_until(lambda: list(folder.glob("*.parquet")), 60, "the sweep's first shard")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    partial = ResultsStore(tmp_path).read(ENV_ID)
    assert 0 < len(partial) < 80, "the sweep was not interrupted midway"

    settings = SweepSettings(granularity=39, episodes=2, horizon=1000, workers=1, batch_size=4)
    resumed = sweep(
        LinearAgent(ENV_ID), ENV_ID, settings, store=ResultsStore(tmp_path), progress=False
    )
    assert len(resumed) == 80 and resumed[KEY_COLUMN].is_unique
    stored = ResultsStore(tmp_path).read(ENV_ID)
    assert len(stored) == 80
    # Rows computed before the kill were reused, not recomputed.
    reused = resumed.set_index(KEY_COLUMN).loc[partial[KEY_COLUMN], "wall_time"]
    np.testing.assert_array_equal(reused.to_numpy(), partial["wall_time"].to_numpy())


def test_summary_matches_an_independent_computation() -> None:
    table = small_sweep()
    summary = summarize(table, ENV_ID)
    per_preference = table.groupby("preference_velocity")[["return_velocity", "return_energy"]]
    means = per_preference.mean().to_numpy()
    np.testing.assert_allclose(
        summary.per_preference[["return_velocity", "return_energy"]].to_numpy(), means
    )
    # Brute-force front and hypervolume above the reference point (-100, -100).
    shifted = means + 100.0
    front = [p for p in shifted if not any((q >= p).all() and (q > p).any() for q in shifted)]
    assert summary.front.cardinality == len(front)
    useful = sorted((p for p in front if (p > 0).all()), key=lambda p: -p[0])
    volume, previous_height = 0.0, 0.0
    for x, y in useful:
        volume += x * (y - previous_height) if y > previous_height else 0.0
        previous_height = max(previous_height, y)
    assert summary.front.hypervolume == pytest.approx(volume)
    preferences = np.linspace(0, 1, 5)
    weights = np.stack([preferences, 1 - preferences], axis=1)
    expected_utility = np.mean([(means @ w).max() for w in weights])
    assert summary.front.expected_utility == pytest.approx(expected_utility)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"granularity": 0}, "granularity"),
        ({"granularity": None, "preferences": np.array([[0.2, 0.2]])}, "sums to"),
        ({"granularity": None, "preferences": np.array([[0.2, 0.3, 0.5]])}, "shape"),
        ({"granularity": 2, "targets": np.zeros((3, 3))}, "targets"),
        ({"granularity": 2, "preferences": np.array([[1.0, 0.0]])}, "exactly one"),
        ({"episodes": 0}, "episodes"),
        ({"backend": "cloud"}, "backend"),
    ],
)
def test_bad_requests_raise_the_project_error(options: dict, match: str) -> None:
    with pytest.raises(ParetoscopeError, match=match):
        small_sweep(**options)


def test_unknown_env_and_mismatched_agent_are_refused() -> None:
    with pytest.raises(ParetoscopeError, match="unknown environment"):
        sweep(LinearAgent(ENV_ID), "mo-cheetah-v0", SweepSettings(granularity=1), progress=False)
    with pytest.raises(ParetoscopeError, match="n_obj|action space|observations of shape"):
        sweep(
            LinearAgent("mo-hopper-2obj-v5"), ENV_ID, SweepSettings(granularity=1), progress=False
        )


@pytest.mark.slow
def test_ray_and_local_backends_give_equal_tables() -> None:
    # No skip without ray: the test command installs the [ray] extra, and the backend's own
    # "pip install 'paretoscope[ray]'" error is the right failure when it is missing.
    local = small_sweep(workers=1, batch_size=4)
    on_ray = small_sweep(backend="ray", batch_size=4)
    columns = [c for c in local.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(local[columns], on_ray[columns])


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "ray"])
def test_a_discrete_env_sweeps_alike_in_this_process_the_pool_and_ray(backend: str) -> None:
    # minecart: discrete actions, ore drawn from numpy's global generator (seeded per episode).
    settings = SweepSettings(granularity=2, seeds=[0, 1], horizon=150, gamma=0.98)
    here_settings = replace(settings, workers=1, batch_size=3)
    here = sweep(RandomAgent("minecart-v0"), "minecart-v0", here_settings, progress=False)
    away_settings = replace(settings, backend=backend, workers=2, batch_size=2)
    away = sweep(RandomAgent("minecart-v0"), "minecart-v0", away_settings, progress=False)
    columns = [c for c in here.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(here[columns], away[columns])
    assert set(here["gamma"]) == {0.98} and here["length"].min() >= 1


def test_small_batches_are_grouped_into_few_shards(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path)
    table = small_sweep(store=store, batch_size=1)
    shards = list((tmp_path / ENV_ID).glob("*.parquet"))
    assert len(table) == 10 and len(shards) < 10
    assert len(store.read(ENV_ID)) == 10
