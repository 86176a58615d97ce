"""The `paretoscope` command as a user runs it: real subprocesses, real output."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from paretoscope import __version__
from paretoscope.envs import list_specs
from tests.brute_force import hypervolume_2d


def dominates(q: tuple[float, ...], p: tuple[float, ...]) -> bool:
    return all(a >= b for a, b in zip(q, p, strict=True)) and q != p


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paretoscope.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"paretoscope {__version__}"


def test_help_lists_commands_and_each_command_has_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0 and "envs" in result.stdout
    assert run_cli("envs", "--help").returncode == 0


def test_envs_table_has_one_line_per_environment() -> None:
    result = run_cli("envs")
    assert result.returncode == 0
    lines = result.stdout.strip().splitlines()
    specs = list_specs()
    assert len(lines) == len(specs) + 3  # header, rule, and the note on default horizons
    assert lines[-1].startswith("* no registered time limit")
    for spec, line in zip(specs, lines[2:-1], strict=True):
        assert line.startswith(spec.id)
        assert spec.family in line


def test_envs_json_round_trips_the_registry() -> None:
    result = run_cli("envs", "--json")
    assert result.returncode == 0
    records = json.loads(result.stdout)
    by_id = {record["id"]: record for record in records}
    for spec in list_specs():
        record = by_id[spec.id]
        assert record["n_obj"] == spec.n_obj
        assert [o["name"] for o in record["objectives"]] == list(spec.objective_names)
        assert tuple(record["reference_point"]) == spec.reference_point
        assert (record["obs_dim"], record["act_dim"], record["horizon"]) == (
            spec.obs_dim,
            spec.act_dim,
            spec.horizon,
        )


def test_envs_show_prints_the_spec_and_mo_gymnasiums_own_front() -> None:
    import mo_gymnasium

    result = run_cli("envs", "show", "deep-sea-treasure-v0", "--gamma", "0.99", "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    listed = {item["id"]: item for item in json.loads(run_cli("envs", "--json").stdout)}
    front = record.pop("known_front")
    assert record == listed["deep-sea-treasure-v0"]  # the fields of `envs --json`
    assert record["reference_point"] == [0.0, -25.0] and record["action_space"] == "Discrete(4)"
    env = mo_gymnasium.make("deep-sea-treasure-v0")
    truth = sorted(map(tuple, np.asarray(env.unwrapped.pareto_front(gamma=0.99)).tolist()))
    assert front["exact"] is True and front["gamma"] == 0.99 and front["source"]
    np.testing.assert_allclose(sorted(map(tuple, front["points"])), truth)
    minecart = json.loads(run_cli("envs", "show", "minecart-v0", "--json").stdout)
    assert minecart["known_front"]["exact"] is False
    assert (
        json.loads(run_cli("envs", "show", "four-room-v0", "--json").stdout)["known_front"] is None
    )
    text = run_cli("envs", "show", "fruit-tree-v0")
    assert text.returncode == 0 and "known_front (exact, gamma 1, 64 points)" in text.stdout
    unknown = run_cli("envs", "show", "minecart")
    assert unknown.returncode != 0 and "closest: minecart-v0" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_evaluate_random_discounted_with_held_out_seeds(tmp_path) -> None:
    result = run_cli(
        "evaluate", "random", "--env", "deep-sea-treasure-v0", "--granularity", "2",
        "--episodes", "2", "--seed", "100", "--gamma", "0.9", "--workers", "1",
        "--out", str(tmp_path / "results"), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["agent"] == "random" and record["gamma"] == 0.9
    assert record["seeds"] == [100, 101] and record["episodes"] == 6
    known = record["known_front"]
    assert known["exact"] and known["points"] == 10 and known["igd"] > 0
    assert known["maximum_utility_loss"] >= known["mean_regret"] >= 0
    stored = pd.read_parquet(next((tmp_path / "results" / "deep-sea-treasure-v0").glob("*")))
    assert set(stored["gamma"]) == {0.9} and set(stored["seed"]) == {100, 101}


def test_unknown_command_fails_cleanly() -> None:
    result = run_cli("no-such-command")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_import_peda_then_evaluate_prints_the_front_metrics(tmp_path) -> None:
    from tests.conftest import PEDA_FIXTURES

    checkpoint = PEDA_FIXTURES / "ckpts" / "MO-HalfCheetah-v2" / "rvs" / "step=1.ckpt"
    agent_dir = tmp_path / "agent"
    imported = run_cli(
        "agent", "import-peda", str(checkpoint), "--env", "MO-HalfCheetah-v2", "--type", "rvs",
        "--out", str(agent_dir),
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    result = run_cli(
        "evaluate", str(agent_dir), "--env", "MO-HalfCheetah-v2", "--granularity", "2",
        "--horizon", "20", "--workers", "1", "--out", str(tmp_path / "results"), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["episodes"] == 3 and record["preferences"] == 3
    assert len(record["mean_returns"]) == 3
    # The front metrics, recomputed here by brute force from the returns the command printed.
    points = [(row["return_run"], row["return_energy"]) for row in record["mean_returns"]]
    weights = [(row["preference_run"], row["preference_energy"]) for row in record["mean_returns"]]
    assert record["reference_point"] == [0.0, 0.0]  # D4MORL's origin
    front = [p for p in points if not any(dominates(q, p) for q in points)]
    assert record["cardinality"] == len(front)
    assert record["hypervolume"] == pytest.approx(hypervolume_2d(points, (0.0, 0.0)), rel=1e-9)
    assert record["hypervolume"] > 0  # the fixture's returns are positive: not a vacuous check
    utility = sum(max(w[0] * p[0] + w[1] * p[1] for p in points) for w in weights) / len(weights)
    assert record["expected_utility"] == pytest.approx(utility, rel=1e-9)
    # One episode per preference: the printed means are the stored episodes' returns.
    shards = sorted((tmp_path / "results" / "MO-HalfCheetah-v2").glob("*.parquet"))
    stored = pd.concat([pd.read_parquet(shard) for shard in shards]).sort_values("preference_run")
    printed = sorted(record["mean_returns"], key=lambda row: row["preference_run"])
    np.testing.assert_allclose(
        stored[["return_run", "return_energy"]].to_numpy(),
        [[row["return_run"], row["return_energy"]] for row in printed],
        rtol=1e-12,
    )


def test_evaluate_reports_a_missing_agent_without_a_traceback(tmp_path) -> None:
    result = run_cli("evaluate", str(tmp_path / "nothing"), "--env", "MO-HalfCheetah-v2")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "nothing" in result.stderr
