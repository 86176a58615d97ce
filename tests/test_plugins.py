"""Plug-in policies (`py:module:callable`) and installed entry points: wrapped into the Agent
protocol, usable wherever an agent path goes, with one clear message for each mistake."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.builtin import (
    builtin_agent,
    load_agent,
    named_agents,
    register_entry_points,
    register_plugin,
)
from paretoscope.agents.plugin import load_plugin
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch
from tests.registry_support import install_distribution, private_registries

DST = "deep-sea-treasure-v0"
WALK = "py:tests.plugin_examples:walk_then_dive"


def test_a_plugin_plays_its_own_rule_in_a_rollout() -> None:
    agent = load_agent(WALK, DST)
    assert agent.spec.kind == "plugin" and agent.spec.n_actions == 4
    result = rollout_batch(agent, DST, np.array([[0.0, 1.0], [1 / 9, 8 / 9]]), [0, 0], record=True)
    assert result.trajectories is not None
    # Weight 0 on treasure: dive at once (first treasure, 0.7, one step).
    assert result.trajectories[0]["actions"].tolist() == [1]
    np.testing.assert_allclose(result.returns[0], [0.7, -1.0], atol=1e-6)
    # One step right, then down until a treasure: the brute-force walk of DST's map.
    assert result.trajectories[1]["actions"].tolist()[:2] == [3, 1]


def test_evaluate_and_render_take_a_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    import argparse

    from paretoscope.cli import evaluate, render

    parser = argparse.ArgumentParser(prog="paretoscope")
    commands = parser.add_subparsers(dest="command")
    evaluate.register(commands)
    render.register(commands)
    args = parser.parse_args(["evaluate", WALK, "--env", DST, "--granularity", "5", "--json"])
    assert args.func(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["agent"] == WALK and record["episodes"] == 6
    out = tmp_path / "walk.mp4"
    args = parser.parse_args(
        [
            "render",
            WALK,
            "--env",
            DST,
            "--preference",
            "0.5,0.5",
            "--out",
            str(out),
            "--size",
            "64x64",
        ]
    )
    assert args.func(args) == 0 and out.stat().st_size > 1000


def test_a_plugin_may_declare_its_conditioning_and_initial_target() -> None:
    agent = load_plugin("py:tests.plugin_examples:constant", "mo-hopper-2obj-v5")
    assert agent.spec.conditioning.return_conditioned
    assert not agent.spec.conditioning.preference_in_state
    np.testing.assert_allclose(agent.initial_target(np.array([[0.25, 0.75]])), [[25.0, 75.0]])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("py:tests.plugin_examples:wrong_shape", r"act returned shape \(1, 5\), expected \(1,\)"),
        ("py:tests.plugin_examples:broken", "raised RuntimeError: the user's factory failed"),
        ("py:tests.plugin_examples:not_a_policy", "without act"),
        ("py:tests.no_such_module:make", "cannot import 'tests.no_such_module'"),
        ("py:tests.plugin_examples:missing", "has no attribute 'missing'"),
        ("py:tests.plugin_examples", "py:module.path:callable"),
        ("py:os;rm:x", "py:module.path:callable"),
    ],
)
def test_plugin_mistakes_get_one_message(name: str, message: str) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        agent = load_plugin(name, DST)
        agent.reset(1)
        agent.act(np.zeros((1, 2)), np.array([[0.5, 0.5]]), np.zeros((1, 2)))


def test_the_fingerprint_follows_the_plugins_source(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_plugin(WALK, DST).fingerprint() == load_plugin(WALK, DST).fingerprint()
    module2 = tmp_path / "user_policy2.py"
    module2.write_text(
        "import numpy as np\n"
        "class P:\n    def act(self, o, p, t):\n        return np.zeros(len(o), dtype=int)\n"
        "def make(env_id):\n    return P()\n"
    )
    before = load_plugin("py:user_policy2:make", DST).fingerprint()
    module2.write_text(module2.read_text().replace("np.zeros", "np.ones"))
    sys.modules.pop("user_policy2")
    assert load_plugin("py:user_policy2:make", DST).fingerprint() != before


def test_a_registered_plugin_is_a_named_agent_for_the_envs_it_serves(monkeypatch) -> None:
    from paretoscope.agents.builtin import NAMED_AGENTS

    private_registries(monkeypatch, NAMED_AGENTS)  # undone after the test
    registered = register_plugin(WALK)
    assert registered.env_ids == (DST,)
    assert WALK in [agent.name for agent in named_agents(DST)]
    assert WALK not in [agent.name for agent in named_agents("minecart-v0")]
    assert builtin_agent(WALK, DST).spec.kind == "plugin"
    with pytest.raises(ParetoscopeError, match="serves deep-sea-treasure-v0, not minecart-v0"):
        builtin_agent(WALK, "minecart-v0")


def test_installed_entry_points_add_agents_and_importers(tmp_path: Path, monkeypatch) -> None:
    from paretoscope.agents import importers
    from paretoscope.agents.builtin import NAMED_AGENTS

    install_distribution(
        tmp_path,
        "my-agents",
        {
            "paretoscope.agents": {
                "walker": "tests.plugin_examples:walk_then_dive",
                "peda-again": "paretoscope.agents.peda.importer:IMPORTER",
                "gone": "tests.no_such_module:make",
            }
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    private_registries(monkeypatch, NAMED_AGENTS, importers.IMPORTERS)
    problems = register_entry_points()
    assert [p.split(":")[0] for p in problems] == ["entry point 'gone'"]
    assert "walker" in [agent.name for agent in named_agents(DST)]
    assert "peda-again" in importers.importer_names()
    assert register_entry_points() is problems  # once per process
