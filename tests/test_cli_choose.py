"""`paretoscope choose` on the bundled demo's results store: the JSON's recommendation and
questions are points of the front `paretoscope front` prints, a noiseless simulated person
answers by their utility, and the decision record replays to its recommendation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paretoscope.catalog import bundled_assets_dir
from paretoscope.cli import main
from paretoscope.decision.elicitation import Elicitation, decode_answers
from paretoscope.envs import get_spec
from paretoscope.results_store import ResultsStore, objective_columns

RESULTS = bundled_assets_dir() / "results"
HOPPER = ["--env", "MO-Hopper-v3", "--agent", "hopper-morvs"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_choose_json_on_the_bundled_hopper_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    front = run_json(capsys, "front", str(RESULTS), *HOPPER, "--json")
    weights = np.array([0.2, 0.5, 0.3])
    out = tmp_path / "record.json"
    record = run_json(
        capsys, "choose", str(RESULTS), *HOPPER, "--simulate", "0.2,0.5,0.3", "--noise", "0",
        "--questions", "6", "--seed", "4", "--json", "--out", str(out),
    )  # fmt: skip
    assert json.loads(out.read_text()) == record
    points = {tuple(p["preference"]): p["returns"] for p in front["front"]}
    returns = np.array(list(points.values()))
    low, high = returns.min(axis=0), returns.max(axis=0)

    def utility(point: dict) -> float:
        return float(weights @ ((np.array(point["returns"]) - low) / (high - low)))

    assert len(record["questions"]) == 6
    pairs = set()
    for item in record["questions"]:
        for side in ("a", "b"):
            assert points[tuple(item[side]["preference"])] == item[side]["returns"]
        # Noise 0: the simulated person picks the higher utility.
        expected = "A" if utility(item["a"]) >= utility(item["b"]) else "B"
        assert item["answer"] == expected
        pairs.add(frozenset((tuple(item["a"]["preference"]), tuple(item["b"]["preference"]))))
    assert len(pairs) == 6
    pick = record["recommendation"]
    assert points[tuple(pick["preference"])] == pick["returns"]
    assert 0.0 <= record["probability_best"] <= 1.0
    # The record replays: its answers rebuild the recommendation ...
    settings_fields = {k: v for k, v in record["model"].items() if k != "strategy"}
    from paretoscope.decision.elicitation import ElicitationSettings

    state = Elicitation.replay(
        returns, decode_answers(record["answers"]), ElicitationSettings(**settings_fields)
    )
    assert state.front.returns[state.recommendation].tolist() == pick["returns"]
    # ... and its episode is a stored one of that policy, with the command to render it.
    episode = pick["episode"]
    spec = get_spec("MO-Hopper-v3")
    table = ResultsStore(RESULTS).read("MO-Hopper-v3")
    table = table[(table["agent"] == "hopper-morvs") & (table["seed"] == episode["seed"])]
    stored = table[
        np.isclose(table[objective_columns("preference", spec)], pick["preference"]).all(axis=1)
    ]
    assert stored[objective_columns("return", spec)].to_numpy()[0].tolist() == episode["returns"]
    assert episode["command"].startswith("paretoscope render ")
    assert f"--seed {episode['seed']}" in episode["command"]
    assert record["agent_fingerprint"] == stored["agent_fingerprint"].iloc[0]


def test_choose_markdown_record_and_bad_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "record.md"
    argv = ["choose", str(RESULTS), "--env", "MO-HalfCheetah-v2", "--agent", "halfcheetah-morvs"]
    assert main([*argv, "--simulate", "0.5,0.5", "--questions", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\nQ") == 2 and "recommended: preference" in printed
    text = out.read_text()
    assert text.startswith("# Decision record: halfcheetah-morvs on MO-HalfCheetah-v2")
    assert text.count("\n| ") == 4  # header + 3 questions
    for bad in ("0.5", "0.7,0.7", "-0.5,1.5"):
        assert main([*argv, f"--simulate={bad}"]) == 2
        assert "--simulate" in capsys.readouterr().err
