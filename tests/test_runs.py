"""Training runs (`paretoscope.runs`): reading each trainer's run folder, leaving out what is
broken,
refusing mixed runs, and sweeping every snapshot."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.agents.importers import ImportAnswers, import_agent
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import agent_fingerprint, objective_columns, sweep
from paretoscope.results_store import ResultsStore
from paretoscope.runs.fronts import STEP_COLUMN, step_metrics
from paretoscope.runs.layout import snapshot_dir, step_in_name
from paretoscope.runs.peda import read_rollout_log
from paretoscope.runs.run import open_run, sniff_run, with_answers
from paretoscope.runs.sweep import sweep_run
from paretoscope.settings import SweepSettings
from tests.brute_force import hypervolume_2d
from tests.run_fixtures import (
    PEDA_CHECKPOINTS,
    envelope_run,
    peda_run,
    policy_set_run,
    rollout_log,
)
from tests.test_cli import run_cli


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("step=1000.ckpt", 1000),
        ("CAPQL step=4000.tar", 4000),
        ("GPI-PD gpi-ls iter=3.tar", 3),
        ("COLA_step_500.tar", 500),
        ("iteration-12", 12),
        ("Envelope.tar", None),
        ("split3.tar", None),
        ("morld_save.tar", None),
    ],
)
def test_the_step_a_file_name_carries(name: str, step: int | None) -> None:
    assert step_in_name(name) == step


# --- paretoscope runs --------------------------------------------------------------------------


def test_a_paretoscope_run_lists_its_snapshots_by_step(tmp_path: Path) -> None:
    root = policy_set_run(tmp_path / "run", steps=(5, 40, 20))
    run = open_run(root)
    assert (run.format, run.env_id, run.kind) == ("paretoscope", "MO-Swimmer-v2", "policy_set")
    assert run.steps == [5, 20, 40]  # by number, not by name
    agent = run.load(run.snapshot(20))
    from paretoscope.agents import load

    assert agent_fingerprint(agent) == agent_fingerprint(load(snapshot_dir(root, 20)))
    assert agent_fingerprint(agent) != agent_fingerprint(run.load(run.snapshot(40)))
    with pytest.raises(ParetoscopeError, match="no snapshot at step 7"):
        run.snapshot(7)


def test_a_broken_snapshot_is_left_out_with_a_notice(tmp_path: Path) -> None:
    root = policy_set_run(tmp_path / "run", steps=(10, 20, 30, 40))
    (snapshot_dir(root, 20) / "weights.safetensors").unlink()
    (snapshot_dir(root, 30) / "config.json").write_text("{not json")
    run = open_run(root)
    assert run.steps == [10, 40]
    messages = {notice.path.name: notice.message for notice in run.notices}
    assert set(messages) == {"step=20", "step=30"}
    assert "weights.safetensors is missing" in messages["step=20"]


def test_a_snapshot_whose_weights_changed_is_skipped_when_swept(tmp_path: Path) -> None:
    root = policy_set_run(tmp_path / "run", steps=(10, 20, 30))
    weights = snapshot_dir(root, 20) / "weights.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8] + b"\x00" * 8)
    settings = SweepSettings(granularity=1, horizon=5, workers=1)
    result = sweep_run(open_run(root), "MO-Swimmer-v2", settings)
    assert result.steps == [10, 30]
    assert [notice.path.name for notice in result.notices] == ["step=20"]
    assert "skipped" in result.notices[0].message


def test_a_run_mixing_architectures_names_the_odd_snapshot(tmp_path: Path) -> None:
    root = policy_set_run(tmp_path / "run", steps=(10, 20, 30))
    policy_set_run(tmp_path / "other", steps=(25,), members=2)
    shutil.copytree(snapshot_dir(tmp_path / "other", 25), snapshot_dir(root, 25))
    with pytest.raises(ParetoscopeError, match="mixes architectures") as caught:
        open_run(root)
    assert "step=25" in str(caught.value) and "step=10" not in str(caught.value).split("differ")[0]


def test_a_run_mixing_envs_names_the_odd_snapshot(tmp_path: Path) -> None:
    root = policy_set_run(tmp_path / "run", steps=(10, 20, 30))
    policy_set_run(tmp_path / "other", env_id="MO-HalfCheetah-v2", steps=(15,))
    shutil.copytree(snapshot_dir(tmp_path / "other", 15), snapshot_dir(root, 15))
    with pytest.raises(ParetoscopeError, match="mixes envs.*step=15.*MO-HalfCheetah-v2"):
        open_run(root)


def test_a_folder_without_snapshots_is_not_a_run(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("hello")
    assert sniff_run(tmp_path / "plain") is None
    with pytest.raises(ParetoscopeError, match="not a training run"):
        open_run(tmp_path / "plain")


# --- MORL-Baselines runs -----------------------------------------------------------------------


def test_a_morl_baselines_run_reads_steps_from_names_and_env_from_its_folder(
    tmp_path: Path,
) -> None:
    root = envelope_run(tmp_path, steps=(300, 100, 200))
    run = open_run(root)
    assert (run.format, run.env_id, run.kind, run.steps) == (
        "morl-baselines",
        "deep-sea-treasure-v0",
        "envelope",
        [100, 200, 300],
    )
    # A snapshot is the importer's agent for that very file.
    direct = import_agent(root / "Envelope step=200.tar", env_id="deep-sea-treasure-v0")
    assert agent_fingerprint(run.load(run.snapshot(200))) == agent_fingerprint(direct)


def test_a_truncated_save_is_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    root = envelope_run(tmp_path)
    damaged = root / "Envelope step=200.tar"
    damaged.write_bytes(damaged.read_bytes()[:500])
    run = open_run(root)
    assert run.steps == [100, 300]
    assert [notice.path.name for notice in run.notices] == ["Envelope step=200.tar"]


# --- PEDA runs ---------------------------------------------------------------------------------


def test_a_peda_run_asks_its_env_and_reads_its_type_from_the_keys(tmp_path: Path) -> None:
    run = open_run(peda_run(tmp_path / "run"))
    assert (run.format, run.kind, run.env_id, run.steps) == (
        "peda",
        "rvs",
        None,
        [1000, 2000, 3000],
    )
    assert run.plan is not None and run.plan.question("env") is not None
    with pytest.raises(ParetoscopeError, match="say its D4MORL environment"):
        run.load(run.snapshot(1000))
    agent = with_answers(run, "MO-HalfCheetah-v2").load(run.snapshot(1000))
    assert agent.spec.env_id == "MO-HalfCheetah-v2"


def test_a_peda_run_mixing_types_names_the_odd_checkpoint(tmp_path: Path) -> None:
    root = peda_run(tmp_path / "run")
    shutil.copy(
        PEDA_CHECKPOINTS / "MO-HalfCheetah-v2" / "dt" / "step=1.ckpt",
        root / "ckpt" / "step=2500.ckpt",
    )
    with pytest.raises(ParetoscopeError, match=r"mixes architectures: step=2500"):
        open_run(root)


def test_a_peda_run_of_other_widths_is_refused_when_loaded(tmp_path: Path) -> None:
    """Same parameter names, other sizes: only the tensors tell, so the sweep stops there."""
    import torch

    root = peda_run(tmp_path / "run", steps=(1000, 2000))
    saved = torch.load(root / "ckpt" / "step=2000.ckpt", weights_only=True)
    model = dict(saved["model"])
    hidden = model["model.mlp_extractor.shared_net.0.weight"].shape[0]
    narrow = hidden // 2
    for key in list(model):
        tensor = model[key]
        if key.startswith("model.mlp_extractor.shared_net.0."):
            model[key] = tensor[:narrow]
        elif key.startswith(
            ("model.mlp_extractor.shared_net.2.", "model.mlp_extractor.shared_net.4.")
        ):
            model[key] = tensor[:narrow, :narrow] if tensor.ndim == 2 else tensor[:narrow]
        elif key == "model.action_net.weight":
            model[key] = tensor[:, :narrow]
    torch.save({"model": model, "optimizer": {}}, root / "ckpt" / "step=2000.ckpt")
    run = with_answers(open_run(root), "MO-HalfCheetah-v2")
    with pytest.raises(ParetoscopeError, match=r"mixes architectures: step=2000 .*other weight"):
        sweep_run(run, "MO-HalfCheetah-v2", SweepSettings(granularity=1, horizon=3, workers=1))


def test_peda_rollout_logs_are_read_as_saved(tmp_path: Path) -> None:
    run = open_run(peda_run(tmp_path / "run"))
    fronts, notices = run.logged_fronts()
    assert notices == []
    assert [front.step for front in fronts] == [1000, 2000, 3000]
    for index, front in enumerate(fronts):
        expected = rollout_log(2, index)
        np.testing.assert_array_equal(front.preferences, expected["target_prefs"])
        np.testing.assert_array_equal(front.returns, expected["rollout_original_raw_r"])


class _Payload:
    """A pickle that would create a file when loaded (os.system-free, still code)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (os.mkdir, (str(self.marker),))  # type: ignore[return-value]


def test_a_hostile_or_broken_rollout_log_is_left_out_and_runs_nothing(tmp_path: Path) -> None:
    root = peda_run(tmp_path / "run")
    marker = tmp_path / "ran"
    (root / "logs" / "step=2000_rollout.pkl").write_bytes(
        pickle.dumps({"target_prefs": _Payload(marker)})
    )
    broken = rollout_log(2, 2)
    broken["rollout_original_raw_r"] = np.full((2, 2), np.nan)
    (root / "logs" / "step=3000_rollout.pkl").write_bytes(pickle.dumps(broken))
    fronts, notices = open_run(root).logged_fronts()
    assert [front.step for front in fronts] == [1000]
    assert {notice.path.name for notice in notices} == {
        "step=2000_rollout.pkl",
        "step=3000_rollout.pkl",
    }
    assert "refused" in str(notices[0]) and "NaN" in str(notices[1])
    assert not marker.exists()


def test_a_rollout_log_of_mismatched_shapes_is_refused(tmp_path: Path) -> None:
    log = rollout_log(2, 0)
    log["rollout_original_raw_r"] = np.ones((3, 2))
    path = tmp_path / "step=5_rollout.pkl"
    path.write_bytes(pickle.dumps(log))
    with pytest.raises(ParetoscopeError, match="returns of shape"):
        read_rollout_log(path, 5)


# --- sweeping a run ----------------------------------------------------------------------------


def _mean_front(rows: pd.DataFrame, env_id: str) -> list[tuple[float, float]]:
    spec = get_spec(env_id)
    means: dict[tuple[float, ...], list[np.ndarray]] = {}
    for _, row in rows.iterrows():
        key = tuple(row[objective_columns("preference", spec)])
        means.setdefault(key, []).append(row[objective_columns("return", spec)].to_numpy(float))
    return [tuple(np.mean(values, axis=0)) for values in means.values()]


def test_sweeping_a_run_equals_sweeping_each_snapshot_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_id = "deep-sea-treasure-v0"
    run = open_run(envelope_run(tmp_path))
    store = ResultsStore(tmp_path / "results")
    settings = SweepSettings(granularity=4, seeds=(0, 1), workers=1)
    result = sweep_run(run, env_id, settings, store=store)
    assert result.steps == [100, 200, 300] and result.notices == []
    spec = get_spec(env_id)
    returns = objective_columns("return", spec)
    for snapshot in run.snapshots:
        alone = sweep(run.load(snapshot), env_id, settings)
        rows = result.table[result.table[STEP_COLUMN] == snapshot.step]
        np.testing.assert_allclose(rows[returns].to_numpy(), alone[returns].to_numpy())
        assert set(rows["agent"]) == {f"deep-sea-treasure-v0@step={snapshot.step}"}

    # Everything is stored: a rerun computes no episode.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an episode was computed again")

    monkeypatch.setattr("paretoscope.evaluate.evaluate_batch", refuse)
    again = sweep_run(run, env_id, settings, store=store)
    pd.testing.assert_frame_equal(again.table, result.table)


def test_step_metrics_are_each_steps_own_front(tmp_path: Path) -> None:
    env_id = "MO-Swimmer-v2"
    run = open_run(policy_set_run(tmp_path / "run", steps=(10, 20, 30)))
    settings = SweepSettings(granularity=3, seeds=(0, 1), horizon=20, workers=1)
    table = sweep_run(run, env_id, settings).table
    metrics = step_metrics(table, env_id)
    assert metrics[STEP_COLUMN].tolist() == [10, 20, 30]
    spec = get_spec(env_id)
    for _, row in metrics.iterrows():
        rows = table[table[STEP_COLUMN] == row[STEP_COLUMN]]
        front = _mean_front(rows, env_id)
        assert row["hypervolume"] == pytest.approx(
            hypervolume_2d(front, (spec.reference_point[0], spec.reference_point[1])), rel=1e-9
        )
        weights = rows[objective_columns("preference", spec)].drop_duplicates().to_numpy()
        best = [max(float(np.dot(w, point)) for point in front) for w in weights]
        assert row["expected_utility"] == pytest.approx(np.mean(best), rel=1e-9)
        assert row["episodes"] == len(rows) == 4 * 2


def test_evaluate_run_prints_every_steps_metrics_as_json(tmp_path: Path) -> None:
    root = envelope_run(tmp_path / "runs")
    out = tmp_path / "results"
    result = run_cli(
        "evaluate", str(root), "--env", "deep-sea-treasure-v0", "--granularity", "4",
        "--episodes", "2", "--out", str(out), "--json", "--workers", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["format"] == "morl-baselines" and record["step"] == 300
    assert [row["step"] for row in record["steps"]] == [100, 200, 300]
    # The same numbers from the stored episodes, recomputed here from their mean fronts.
    stored = ResultsStore(out).read("deep-sea-treasure-v0")
    reference = get_spec("deep-sea-treasure-v0").reference_point
    for row in record["steps"]:
        rows = stored[stored["agent"] == f"deep-sea-treasure-v0@step={row['step']}"]
        assert len(rows) == row["episodes"] == 5 * 2
        front = _mean_front(rows, "deep-sea-treasure-v0")
        assert row["hypervolume"] == pytest.approx(
            hypervolume_2d(front, (reference[0], reference[1])), abs=1e-9
        )
    last = record["steps"][-1]
    assert record["hypervolume"] == last["hypervolume"]
    assert record["skipped"] == []


def test_evaluate_run_takes_the_peda_type_and_chosen_steps(tmp_path: Path) -> None:
    root = peda_run(tmp_path / "run")
    common = ("--env", "MO-HalfCheetah-v2", "--granularity", "1", "--horizon", "3")
    out = ("--out", str(tmp_path / "results"), "--workers", "1")
    wrong = run_cli("evaluate", str(root), *common, *out, "--type", "dt")
    assert wrong.returncode != 0
    assert "holds a 'rvs' model" in wrong.stderr and "Traceback" not in wrong.stderr
    chosen = run_cli(
        "evaluate", str(root), *common, *out, "--type", "rvs", "--steps", "1000,3000", "--json"
    )
    assert chosen.returncode == 0, chosen.stderr
    assert [row["step"] for row in json.loads(chosen.stdout)["steps"]] == [1000, 3000]


def test_evaluate_refuses_steps_for_a_single_agent_and_names_a_mixed_run(tmp_path: Path) -> None:
    refused = run_cli("evaluate", "random", "--env", "deep-sea-treasure-v0", "--steps", "1")
    assert refused.returncode != 0 and "not a training run" in refused.stderr
    root = policy_set_run(tmp_path / "run", steps=(10, 20))
    policy_set_run(tmp_path / "other", steps=(15,), members=2)
    shutil.copytree(snapshot_dir(tmp_path / "other", 15), snapshot_dir(root, 15))
    mixed = run_cli("evaluate", str(root), "--env", "MO-Swimmer-v2")
    assert mixed.returncode != 0 and "step=15" in mixed.stderr
    assert "Traceback" not in mixed.stderr


def test_answers_for_a_run_keep_the_env_its_files_name(tmp_path: Path) -> None:
    run = open_run(envelope_run(tmp_path))
    with pytest.raises(ParetoscopeError, match="is for deep-sea-treasure-v0"):
        with_answers(run, "fruit-tree-v0")
    assert with_answers(run, None) is run
    assert ImportAnswers().env_id is None


@pytest.mark.slow
def test_a_run_sweeps_alike_on_ray_and_on_local_processes(tmp_path: Path) -> None:
    run = open_run(envelope_run(tmp_path))
    settings = SweepSettings(granularity=3, seeds=(0, 1))
    local = sweep_run(
        run, "deep-sea-treasure-v0", replace(settings, workers=2), progress=False
    ).table
    on_ray = sweep_run(
        run, "deep-sea-treasure-v0", replace(settings, backend="ray"), progress=False
    ).table
    columns = [c for c in local.columns if c != "wall_time"]
    pd.testing.assert_frame_equal(local[columns], on_ray[columns])
