"""`paretoscope front` on results stores written by core's own writer (and by a real
`paretoscope evaluate`), checked against pandas means and plain double loops."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.cli import main
from paretoscope.envs import get_spec
from paretoscope.results_store import ResultsStore, episode_key
from tests.test_decision import brute_asf, brute_knee, first_min, front_rows

DST = "deep-sea-treasure-v0"
FRUIT = "fruit-tree-v0"


def episodes(env_id: str, agent: str, gamma: float, seed_count: int, rng_seed: int) -> pd.DataFrame:
    """Rows shaped like a sweep's: a preference grid, several seeds, random returns."""
    spec = get_spec(env_id)
    names = spec.objective_names
    rng = np.random.default_rng(rng_seed)
    grid = [np.roll(np.linspace(1.0, 0.0, spec.n_obj) ** 2, shift) for shift in range(spec.n_obj)]
    grid += [np.full(spec.n_obj, 1.0)] + [rng.random(spec.n_obj) for _ in range(6)]
    records = []
    for index, preference in enumerate(grid):
        preference = preference / preference.sum()
        weak = 20.0 if index == len(grid) - 1 else 0.0  # a mean below others in every objective
        for seed in range(seed_count):
            returns = rng.normal(loc=10 * preference - weak, scale=1.0)
            record: dict[str, object] = {
                "agent": agent,
                "agent_fingerprint": f"{agent}-fingerprint",
                "env": env_id,
                "seed": seed,
                "horizon": 10,
                "gamma": gamma,
            }
            record.update(
                {f"preference_{n}": float(v) for n, v in zip(names, preference, strict=True)}
            )
            record.update({f"target_{n}": 0.0 for n in names})
            record.update({f"return_{n}": float(v) for n, v in zip(names, returns, strict=True)})
            record["explicit_target"] = False
            record["episode_key"] = episode_key(
                f"{agent}-fingerprint", env_id, list(preference), None, seed, 10, gamma
            )
            records.append(record)
    return pd.DataFrame(records)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    results = ResultsStore(root)
    results.write(DST, episodes(DST, "alpha", 1.0, 3, 0))
    results.write(DST, episodes(DST, "beta", 1.0, 2, 1))
    results.write(DST, episodes(DST, "beta", 0.9, 2, 2))
    results.write(FRUIT, episodes(FRUIT, "gamma-agent", 1.0, 2, 3))
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["front", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def expected_means(root: Path, env_id: str, agent: str, gamma: float) -> pd.DataFrame:
    """Mean returns per preference by pandas, sorted by preference."""
    spec = get_spec(env_id)
    table = ResultsStore(root).read(env_id)
    table = table[(table["agent"] == agent) & np.isclose(table["gamma"], gamma)]
    preferences = [f"preference_{n}" for n in spec.objective_names]
    returns = [f"return_{n}" for n in spec.objective_names]
    means = table.groupby(preferences, as_index=False)[returns].mean()
    return means.sort_values(preferences).reset_index(drop=True)


def check_record(record: dict, means: pd.DataFrame, env_id: str) -> None:
    names = list(get_spec(env_id).objective_names)
    assert record["objectives"] == names
    preferences = means[[f"preference_{n}" for n in names]].to_numpy().tolist()
    returns = means[[f"return_{n}" for n in names]].to_numpy().tolist()
    rows = front_rows(returns)
    assert len(rows) < len(returns)  # the data do hold dominated means
    assert [p["preference"] for p in record["front"]] == [preferences[i] for i in rows]
    for point, row in zip(record["front"], rows, strict=True):
        np.testing.assert_allclose(point["returns"], returns[row], rtol=1e-12)
    knee = brute_knee(returns)
    assert record["knee"]["preference"] == preferences[knee]
    np.testing.assert_allclose(record["knee"]["returns"], returns[knee], rtol=1e-12)


def test_front_json_matches_pandas_means_and_brute_force(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, str(store), "--env", DST, "--agent", "alpha", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert (record["env"], record["agent"], record["gamma"]) == (DST, "alpha", 1.0)
    check_record(record, expected_means(store, DST, "alpha", 1.0), DST)
    assert "aspiration_pick" not in record


def test_aspiration_pick_on_six_objectives_and_the_only_agent(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    aspiration = [2.0, 1.0, 3.0, 0.5, 1.5, 2.5]
    text = ",".join(str(value) for value in aspiration)
    code, out, err = run(capsys, str(store), "--env", FRUIT, "--aspiration", text, "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["agent"] == "gamma-agent"
    means = expected_means(store, FRUIT, "gamma-agent", 1.0)
    check_record(record, means, FRUIT)
    names = list(get_spec(FRUIT).objective_names)
    returns = means[[f"return_{n}" for n in names]].to_numpy().tolist()
    scores = brute_asf(returns, aspiration, 1e-6)
    best = first_min(scores)
    pick = record["aspiration_pick"]
    np.testing.assert_allclose(pick["returns"], returns[best], rtol=1e-12)
    assert pick["achievement"] == pytest.approx(scores[best])
    assert list(pick["difference"]) == names
    np.testing.assert_allclose(
        list(pick["difference"].values()), np.subtract(returns[best], aspiration), atol=1e-12
    )


def test_gamma_selects_one_discount(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(store), "--env", DST, "--agent", "beta", "--gamma", "0.9")
    assert code == 0, err
    means = expected_means(store, DST, "beta", 0.9)
    assert "beta on deep-sea-treasure-v0, gamma 0.9" in out
    assert "knee" in out and "treasure" in out
    front = len(front_rows(means[["return_treasure", "return_time"]].to_numpy().tolist()))
    assert len(out.strip().splitlines()) == 2 + front


def test_front_of_a_real_evaluate_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "results"
    assert (
        main(
            ["evaluate", "random", "--env", DST, "--granularity", "2", "--episodes", "2"]
            + ["--workers", "1", "--out", str(out_dir), "--json"]
        )
        == 0
    )
    capsys.readouterr()
    code, out, err = run(capsys, str(out_dir), "--aspiration", "1,-5", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert (record["env"], record["agent"]) == (DST, "random")
    means = expected_means(out_dir, DST, "random", 1.0)
    returns = means[["return_treasure", "return_time"]].to_numpy().tolist()
    assert len(record["front"]) == len(front_rows(returns))
    assert record["aspiration_pick"]["returns"] in [returns[i] for i in front_rows(returns)]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--env", "no-such-env"], "--env: no episodes for 'no-such-env'"),
        ([], f"--env: results folder .* has 2 to choose from, pick one of: {DST}, {FRUIT}"),
        (["--env", DST], "--agent: .* pick one of: alpha, beta"),
        (["--env", DST, "--agent", "nobody"], "stored: alpha, beta"),
        (["--env", DST, "--agent", "beta"], r"several discounts \[0.9, 1.0\]"),
        (["--env", DST, "--agent", "beta", "--gamma", "0.5"], r"stored: \[0.9, 1.0\]"),
        (["--env", DST, "--agent", "alpha", "--aspiration", "1"], "--aspiration: expected 2"),
        (["--env", DST, "--agent", "alpha", "--aspiration", "a,b"], "--aspiration: expected 2"),
        (["--env", DST, "--agent", "alpha", "--aspiration", "1,nan"], "--aspiration"),
    ],
)
def test_bad_choices_exit_2_with_the_choices(
    store: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    code, out, err = run(capsys, str(store), *args, "--json")
    assert code == 2 and out == ""
    assert err.startswith("paretoscope: error:")
    assert re.search(expected, err), err


def test_missing_results_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path / "nowhere"))
    assert code == 2 and "RESULTS_DIR" in err
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, str(tmp_path / "empty"))
    assert code == 2 and "RESULTS_DIR: no stored episodes" in err
