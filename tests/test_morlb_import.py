"""MORL-Baselines checkpoints imported: the actions its own eval() returned, its own episodes,
sizes read from the files, safe reading, and one clear message per bad input.

Independent truth: golden.json (actions MORL-Baselines 1.3.0's eval() returned for the files
beside it, tests/fixtures/morl-baselines/README.md), envelope_episodes.json (episodes its own
eval_mo played, scripts/morlb_envelope_episodes.py), and, for sizes the fixtures do not have,
the eval() formulas written out in numpy on random weights.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from paretoscope.agents import load, save
from paretoscope.agents.importers import import_agent, sniff_import
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import agent_fingerprint
from paretoscope.rollout import rollout_batch

FIXTURES = Path(__file__).parent / "fixtures" / "morl-baselines"
GOLDEN = json.loads((FIXTURES / "golden.json").read_text())
BY_FILE = {entry["file"]: entry for entry in GOLDEN["checkpoints"]}
ENVELOPE = FIXTURES / "envelope/deep-sea-treasure-v0/Envelope.tar"
ENVELOPE_WITH_BUFFER = FIXTURES / "envelope-with-replay-buffer/deep-sea-treasure-v0/Envelope.tar"
PCN = FIXTURES / "pcn/deep-sea-treasure-v0/PCN_model.pt"
MORLD = FIXTURES / "morld/mo-halfcheetah-v5/morld_save.tar"
GPI_LS = FIXTURES / "gpi-ls/minecart-v0/GPI-LS.tar"


def _act(agent, obs, w, target=None):
    agent.reset(1)
    w = np.asarray([w], dtype=np.float64)
    target = np.zeros_like(w) if target is None else np.asarray([target], dtype=np.float64)
    return agent.act(np.asarray([obs], dtype=np.float64), w, target)[0]


# --- golden actions --------------------------------------------------------------------------

WEIGHT_AGENTS = [
    entry["file"] for entry in GOLDEN["checkpoints"] if entry["algo_key"] not in ("pcn", "morld")
]


@pytest.mark.parametrize("file", WEIGHT_AGENTS)
def test_imported_agents_return_the_actions_morl_baselines_eval_returned(file: str) -> None:
    entry = BY_FILE[file]
    agent = import_agent(FIXTURES / file)
    assert agent.spec.env_id == entry["env_id"]
    for case in entry["cases"]:
        action = _act(agent, case["obs"], case["w"])
        if isinstance(case["action"], int):
            assert int(action) == case["action"]
        else:
            np.testing.assert_allclose(action, case["action"], rtol=0, atol=1e-5)


def test_gpi_without_gpi_takes_the_minimum_over_psi_nets_as_morl_baselines_does() -> None:
    agent = import_agent(GPI_LS, options={"use_gpi": "false"})
    for case in BY_FILE["gpi-ls/minecart-v0/GPI-LS.tar"]["cases"]:
        assert int(_act(agent, case["obs"], case["w"])) == case["action_if_use_gpi_false"]


def test_pcn_is_refused_without_trust_and_acts_as_morl_baselines_with_it() -> None:
    with pytest.raises(ParetoscopeError, match=r"pickled Python object.*--trust") as refused:
        import_agent(PCN, options={"horizon": "1"})
    assert "Nothing from it ran" in str(refused.value)
    with pytest.raises(ParetoscopeError, match="horizon"):
        import_agent(PCN, trust=True)
    for case in BY_FILE["pcn/deep-sea-treasure-v0/PCN_model.pt"]["cases"]:
        agent = import_agent(PCN, trust=True, options={"horizon": str(case["desired_horizon"])})
        assert int(_act(agent, case["obs"], [0.5, 0.5], case["desired_return"])) == case["action"]


def test_pcn_counts_its_horizon_down_to_one_and_starts_from_the_known_front() -> None:
    agent = import_agent(PCN, trust=True, options={"horizon": "3"})
    # DST's exact front: the best point for "treasure only" is the farthest treasure.
    np.testing.assert_allclose(agent.initial_target(np.array([[1.0, 0.0]])), [[23.7, -19.0]])
    agent.reset(1)
    horizons = []
    for _ in range(5):
        horizons.append(max(3.0 - agent._steps, 1.0))
        agent.act(np.zeros((1, 2)), np.array([[0.5, 0.5]]), np.array([[1.0, -1.0]]))
    assert horizons == [3.0, 2.0, 1.0, 1.0, 1.0]


def test_morld_archive_members_act_as_their_policies_deterministic_means() -> None:
    entry = BY_FILE["morld/mo-halfcheetah-v5/morld_save.tar"]
    archive = import_agent(MORLD)
    everything = import_agent(MORLD, options={"members": "all"})
    assert [m["source"] for m in archive.behaviour["members"]] == [
        "archive_policy_0",
        "archive_policy_1",
    ]
    sources = [m["source"] for m in everything.behaviour["members"]]
    evaluations = entry["archive_evaluations"]
    for name, cases in entry["policies"].items():
        member = sources.index(name)
        record = everything.behaviour["members"][member]
        if name.startswith("archive"):
            assert record["evaluation"] == pytest.approx(evaluations[f"{name}_eval"])
        for case in cases:
            assert record["weights"] == pytest.approx(case["w"])
            chosen = everything.member_for(np.array([case["w"]]))[0]
            action = _act(_only_member(everything, member), case["obs"], case["w"])
            np.testing.assert_allclose(action, case["deterministic_action"], rtol=0, atol=1e-5)
            assert everything.behaviour["members"][chosen]["weights"] == pytest.approx(case["w"])


def _only_member(agent, index):
    from paretoscope.agents.morlb.agents import ActorSetAgent

    info = agent.behaviour["members"][index]
    behaviour = {**agent.behaviour, "members": [info]}
    return ActorSetAgent(agent.spec.env_id, [agent.members[index]], behaviour)


def test_where_weights_repeat_the_best_scalarised_archived_evaluation_serves() -> None:
    agent = import_agent(MORLD, options={"members": "all"})
    weights = [m["weights"] for m in agent.behaviour["members"]]
    evaluations = [m["evaluation"] for m in agent.behaviour["members"]]
    for preference in ([1.0, 0.0], [0.0, 1.0]):
        chosen = agent.member_for(np.array([preference]))[0]
        # Brute force: among members whose weight is nearest, the best w · evaluation.
        distance = [np.sum((np.array(w) - preference) ** 2) for w in weights]
        nearest = [i for i, d in enumerate(distance) if np.isclose(d, min(distance))]
        scored = [i for i in nearest if evaluations[i] is not None]
        best = max(scored, key=lambda i: np.dot(weights[i], evaluations[i])) if scored else None
        assert chosen == (best if best is not None else nearest[0])


# --- MORL-Baselines' own episodes ------------------------------------------------------------


def test_an_imported_envelope_plays_exactly_morl_baselines_own_episodes_on_dst() -> None:
    recorded = json.loads((FIXTURES / "envelope_episodes.json").read_text())
    agent = import_agent(FIXTURES / recorded["checkpoint"])
    episodes = recorded["episodes"]
    preferences = np.array([e["weights"] for e in episodes], dtype=np.float32).astype(np.float64)
    preferences /= preferences.sum(axis=1, keepdims=True)
    result = rollout_batch(
        agent,
        recorded["env_id"],
        preferences,
        [e["seed"] for e in episodes],
        horizon=recorded["time_limit"],
        record=True,
    )
    assert result.trajectories is not None
    for episode, trajectory, terminated in zip(
        episodes, result.trajectories, result.terminated, strict=True
    ):
        assert trajectory["actions"].tolist() == episode["actions"]
        np.testing.assert_array_equal(trajectory["raw_rewards"], episode["rewards"])
        assert bool(terminated) == episode["terminated"][-1]
    np.testing.assert_allclose(
        result.returns, [e["vec_return"] for e in episodes], rtol=0, atol=1e-5
    )


# --- safe reading ----------------------------------------------------------------------------


def test_the_default_save_with_its_replay_buffer_imports_without_unpickling_the_buffer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where the demo extra is installed, an earlier test may have imported the library: hide it
    # (monkeypatch puts it back), so the import below is seen if it happens.
    for name in [name for name in sys.modules if name.split(".")[0] == "morl_baselines"]:
        monkeypatch.delitem(sys.modules, name)
    assert "morl_baselines" not in sys.modules
    agent = import_agent(ENVELOPE_WITH_BUFFER)
    assert "morl_baselines" not in sys.modules  # nothing of the library was imported or run
    assert agent.training["skipped"] == [
        "morl_baselines.common.prioritized_buffer.PrioritizedReplayBuffer",
        "morl_baselines.common.prioritized_buffer.SumTree",
    ]
    assert agent_fingerprint(agent) == agent_fingerprint(import_agent(ENVELOPE))


class _Payload:
    """Unpickling this calls `Path.touch` on the marker: what a hostile file would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_file_carrying_a_payload_imports_its_weights_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    content = torch.load(ENVELOPE, weights_only=True)
    content["replay_buffer"] = _Payload(marker)
    hostile = tmp_path / "deep-sea-treasure-v0" / "Envelope.tar"
    hostile.parent.mkdir()
    torch.save(content, hostile)
    agent = import_agent(hostile)
    assert not marker.exists()
    assert "pathlib.Path" in agent.training["skipped"]  # named, never built
    # A whole object at the top (not a save() dict) is refused, also without running it.
    whole = tmp_path / "deep-sea-treasure-v0" / "whole.tar"
    torch.save(_Payload(marker), whole)
    assert sniff_import(whole) is None
    with pytest.raises(ParetoscopeError):
        import_agent(whole, env_id="deep-sea-treasure-v0", kind="envelope")
    assert not marker.exists()


# --- sizes come from the file ---------------------------------------------------------------


def _mlp(rng: np.random.Generator, sizes: list[int], norm: bool) -> dict[str, torch.Tensor]:
    """A state_dict laid out as MORL-Baselines' mlp(): Linear, [Dropout, LayerNorm], ReLU."""
    tensors, index = {}, 0
    for position, (inputs, outputs) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        tensors[f"{index}.weight"] = torch.tensor(rng.normal(size=(outputs, inputs)) / 3)
        tensors[f"{index}.bias"] = torch.tensor(rng.normal(size=outputs) / 3)
        last = position == len(sizes) - 2
        if norm and not last:
            tensors[f"{index + 2}.weight"] = torch.tensor(1 + rng.normal(size=outputs) / 5)
            tensors[f"{index + 2}.bias"] = torch.tensor(rng.normal(size=outputs) / 5)
        index += 4 if norm else 2
    return {key: value.float() for key, value in tensors.items()}


def _numpy_mlp(tensors: dict, x: np.ndarray, norm: bool, final_relu: bool) -> np.ndarray:
    linear = sorted(int(key.split(".")[0]) for key in tensors if tensors[key].ndim == 2)
    for position, index in enumerate(linear):
        x = x @ tensors[f"{index}.weight"].double().numpy().T + tensors[f"{index}.bias"].numpy()
        last = position == len(linear) - 1
        if norm and not last:
            mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
            x = (x - mean) / np.sqrt(var + 1e-5) * tensors[f"{index + 2}.weight"].numpy()
            x = x + tensors[f"{index + 2}.bias"].numpy()
        if not last or final_relu:
            x = np.maximum(x, 0)
    return x


def test_an_envelope_of_other_sizes_acts_as_the_eval_formula(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    net = _mlp(rng, [2 + 2, 32, 16, 8, 4 * 2], norm=False)
    path = tmp_path / "deep-sea-treasure-v0" / "Envelope.tar"
    path.parent.mkdir()
    torch.save({"q_net_state_dict": {f"net.{k}": v for k, v in net.items()}}, path)
    agent = import_agent(path)
    for _ in range(20):
        obs, w = rng.integers(0, 10, size=2).astype(float), rng.dirichlet([1, 1])
        q = _numpy_mlp(net, np.concatenate([obs, w]), False, False).reshape(4, 2)
        assert int(_act(agent, obs, w)) == int(np.argmax(q @ w))


def test_gpi_of_other_sizes_acts_as_the_gpi_formula(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    hidden = 24
    psi = {
        **{f"weights_features.{k}": v for k, v in _mlp(rng, [3, hidden], False).items()},
        **{f"state_features.{k}": v for k, v in _mlp(rng, [7, hidden], False).items()},
        **{f"net.{k}": v for k, v in _mlp(rng, [hidden, 40, 20, 6 * 3], True).items()},
    }
    support = [torch.tensor(w, dtype=torch.float32) for w in rng.dirichlet([1, 1, 1], size=5)]
    path = tmp_path / "minecart-v0" / "GPI-LS.tar"
    path.parent.mkdir()
    torch.save({"psi_net_0_state_dict": psi, "M": support}, path)
    agent = import_agent(path)

    def q(obs: np.ndarray, m: np.ndarray) -> np.ndarray:
        part = {
            k: {n[len(k) + 1 :]: v for n, v in psi.items() if n.startswith(k + ".")}
            for k in ("weights_features", "state_features", "net")
        }
        features = _numpy_mlp(part["state_features"], obs, False, True) * _numpy_mlp(
            part["weights_features"], m, False, True
        )
        return _numpy_mlp(part["net"], features, True, False).reshape(6, 3)

    for _ in range(20):
        obs, w = rng.normal(size=7), rng.dirichlet([1, 1, 1])
        scores = np.array([q(obs, m.numpy()) @ w for m in support])  # (M, A)
        assert int(_act(agent, obs, w)) == int(np.unravel_index(scores.argmax(), scores.shape)[1])


def test_a_capql_actor_of_other_sizes_acts_as_the_eval_formula(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    latent = _mlp(rng, [11 + 2, 20, 30], norm=False)
    mean = _mlp(rng, [30, 3], norm=False)
    policy = {f"latent_pi.{k}": v for k, v in latent.items()}
    policy |= {"mean.weight": mean["0.weight"], "mean.bias": mean["0.bias"]}
    policy |= {"log_std_linear.weight": mean["0.weight"], "log_std_linear.bias": mean["0.bias"]}
    policy |= {"action_scale": torch.ones(3), "action_bias": torch.zeros(3)}
    path = tmp_path / "mo-hopper-2obj-v5" / "CAPQL.tar"
    path.parent.mkdir()
    torch.save({"policy_state_dict": policy, "q_net_0_state_dict": {}}, path)
    agent = import_agent(path)
    for _ in range(10):
        obs, w = rng.normal(size=11), rng.dirichlet([1, 1])
        hidden = _numpy_mlp(latent, np.concatenate([obs, w]), False, True)
        expected = np.tanh(_numpy_mlp(mean, hidden, False, False))
        np.testing.assert_allclose(_act(agent, obs, w), expected, atol=1e-5)


# --- round trip, bad input -------------------------------------------------------------------


@pytest.mark.parametrize("path", [ENVELOPE_WITH_BUFFER, GPI_LS, MORLD])
def test_the_safe_checkpoint_acts_exactly_as_the_import(path: Path, tmp_path: Path) -> None:
    imported = import_agent(path)
    loaded = load(save(imported, tmp_path / "agent"))
    assert agent_fingerprint(loaded) == agent_fingerprint(imported)
    rng = np.random.default_rng(0)
    spec = imported.spec
    obs = rng.normal(size=(6, spec.obs_dim))
    prefs = rng.dirichlet(np.ones(spec.n_obj), size=6)
    imported.reset(6)
    loaded.reset(6)
    targets = np.zeros_like(prefs)
    np.testing.assert_array_equal(
        imported.act(obs, prefs, targets), loaded.act(obs, prefs, targets)
    )
    assert not any(p.suffix in (".tar", ".pt", ".pkl") for p in (tmp_path / "agent").iterdir())


def test_a_checkpoint_that_does_not_fit_the_env_names_the_tensor_and_dimension() -> None:
    with pytest.raises(ParetoscopeError, match=r"'q_net_state_dict.net.0.weight' takes 4 inputs"):
        import_agent(ENVELOPE, env_id="minecart-v0")
    with pytest.raises(ParetoscopeError, match=r"latent_pi.0.weight' takes 19 inputs.*13"):
        import_agent(FIXTURES / "capql/mo-halfcheetah-v5/CAPQL.tar", env_id="mo-hopper-2obj-v5")
    with pytest.raises(ParetoscopeError, match="discrete action spaces"):
        import_agent(ENVELOPE, env_id="mo-halfcheetah-v5")


def test_wrong_kind_truncated_file_and_missing_env_each_get_one_message(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match=r"--kind capql: .*'envelope' model"):
        import_agent(ENVELOPE, kind="capql")
    with pytest.raises(ParetoscopeError, match="reads capql, gpi-pd-continuous"):
        import_agent(ENVELOPE, kind="dqn")
    truncated = tmp_path / "deep-sea-treasure-v0" / "Envelope.tar"
    truncated.parent.mkdir()
    truncated.write_bytes(ENVELOPE.read_bytes()[:30_000])
    with pytest.raises(ParetoscopeError):
        import_agent(truncated)
    no_env = tmp_path / "Envelope.tar"
    no_env.write_bytes(ENVELOPE.read_bytes())
    with pytest.raises(ParetoscopeError, match=r"say its environment.*--env ID"):
        import_agent(no_env)
    assert import_agent(no_env, env_id="deep-sea-treasure-v0").spec.env_id == (
        "deep-sea-treasure-v0"
    )


def test_a_damaged_zip_member_is_a_message_not_a_crash(tmp_path: Path) -> None:
    damaged = tmp_path / "deep-sea-treasure-v0" / "Envelope.tar"
    damaged.parent.mkdir()
    with zipfile.ZipFile(ENVELOPE) as source, zipfile.ZipFile(damaged, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("data.pkl"):
                data = data[: len(data) // 2]
            target.writestr(info, data)
    assert sniff_import(damaged) is None  # its pickle does not decode: nobody claims it
    with pytest.raises(ParetoscopeError, match="no importer reads this file"):
        import_agent(damaged)


def test_sniffing_needs_no_torch_and_tells_each_algorithm() -> None:
    found = {
        entry["file"]: sniff_import(FIXTURES / entry["file"]).kind
        for entry in GOLDEN["checkpoints"]
    }
    assert found == {
        "capql/mo-halfcheetah-v5/CAPQL.tar": "capql",
        "gpi-pd-continuous/mo-hopper-2obj-v5/GPI-PD Continuous Action.tar": "gpi-pd-continuous",
        "envelope/deep-sea-treasure-v0/Envelope.tar": "envelope",
        "envelope-with-replay-buffer/deep-sea-treasure-v0/Envelope.tar": "envelope",
        "gpi-ls/minecart-v0/GPI-LS.tar": "gpi-ls",
        "pcn/deep-sea-treasure-v0/PCN_model.pt": "pcn",
        "morld/mo-halfcheetah-v5/morld_save.tar": "morld",
    }
    script = (
        "import sys; from paretoscope.agents.importers import sniff_import; "
        f"plan = sniff_import({str(MORLD)!r}); "
        "print(plan.kind, 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[1],
    )
    assert out.stdout.split() == ["morld", "False"]


# --- the command line -----------------------------------------------------------------------


def _cli(argv: list[str]) -> int:
    import argparse

    from paretoscope.cli import agent as agent_cli

    parser = argparse.ArgumentParser(prog="paretoscope")
    agent_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_agent_import_writes_a_safe_checkpoint_or_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pcn"
    with pytest.raises(ParetoscopeError, match="--trust"):
        _cli(["agent", "import", str(PCN), "--set", "horizon=2", "--out", str(out)])
    with pytest.raises(ParetoscopeError, match=r"--set horizon=VALUE"):
        _cli(["agent", "import", str(PCN), "--trust", "--out", str(out)])
    with pytest.raises(ParetoscopeError, match="expected NAME=VALUE"):
        _cli(["agent", "import", str(PCN), "--trust", "--set", "horizon", "--out", str(out)])
    assert not out.exists()  # nothing written by any refusal
    assert (
        _cli(["agent", "import", str(PCN), "--trust", "--set", "horizon=2", "--out", str(out)]) == 0
    )
    assert "morlb_pcn" in capsys.readouterr().out
    config = json.loads((out / "config.json").read_text())
    assert config["behaviour"]["horizon"] == 2.0 and config["training"]["algorithm"] == "pcn"
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "weights.safetensors"]
    # The converted checkpoint needs no trust: it holds JSON and tensors only.
    assert load(out).spec.kind == "morlb_pcn"
    assert _cli(["agent", "show", str(ENVELOPE_WITH_BUFFER), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["format"], shown["kind"], shown["env_id"]) == (
        "morl-baselines",
        "envelope",
        "deep-sea-treasure-v0",
    )
    assert shown["details"]["left_unread"][0].endswith("PrioritizedReplayBuffer")


PGMORL = FIXTURES / "pgmorl/mo-hopper-2obj-v5"


def test_pgmorl_saved_as_documented_acts_as_its_own_actor_means() -> None:
    golden = json.loads((PGMORL / "golden.json").read_text())
    assert sniff_import(PGMORL / golden["file"]).kind == "pgmorl"
    agent = import_agent(PGMORL / golden["file"])
    members = agent.behaviour["members"]
    assert len(members) == golden["archive_size"]
    for case in golden["cases"]:
        member = members[case["member"]]
        assert member["weights"] == pytest.approx(case["weights"])
        assert member["evaluation"] == pytest.approx(case["evaluation"])
        action = _act(_only_member(agent, case["member"]), case["obs"], case["weights"])
        np.testing.assert_allclose(action, case["clipped_mean_action"], rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    "path", [ENVELOPE, GPI_LS, MORLD, FIXTURES / "capql/mo-halfcheetah-v5/CAPQL.tar"]
)
def test_a_row_acts_the_same_alone_and_in_a_batch(path: Path) -> None:
    agent = import_agent(path)
    spec = agent.spec
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(37, spec.obs_dim))
    prefs = rng.dirichlet(np.ones(spec.n_obj), size=37)
    targets = np.zeros_like(prefs)
    agent.reset(37)
    together = agent.act(obs, prefs, targets)
    for row in range(37):
        agent.reset(1)
        alone = agent.act(obs[row : row + 1], prefs[row : row + 1], targets[row : row + 1])
        np.testing.assert_array_equal(alone[0], together[row])


def test_morld_sampling_draws_what_mosac_eval_drew_after_seeding_torch() -> None:
    entry = BY_FILE["morld/mo-halfcheetah-v5/morld_save.tar"]
    agent = import_agent(MORLD, options={"members": "all", "sample": "true"})
    sources = [m["source"] for m in agent.behaviour["members"]]
    for name, cases in entry["policies"].items():
        single = _only_member(agent, sources.index(name))
        for case in cases:
            single.reset(1)
            single.seed_rows(np.array([case["eval_torch_manual_seed"]]))
            action = single.act(np.array([case["obs"]]), np.array([case["w"]]), np.zeros((1, 2)))
            np.testing.assert_allclose(action[0], case["action"], rtol=0, atol=1e-5)


def test_a_sampling_episode_depends_on_its_seed_alone() -> None:
    agent = import_agent(MORLD, options={"sample": "true"})
    prefs = np.array([[1.0, 0.0], [0.0, 1.0]])
    both = rollout_batch(agent, "mo-halfcheetah-v5", prefs, [3, 5], horizon=20)
    alone = rollout_batch(agent, "mo-halfcheetah-v5", prefs[1:], [5], horizon=20)
    again = rollout_batch(agent, "mo-halfcheetah-v5", prefs[1:], [6], horizon=20)
    np.testing.assert_array_equal(both.returns[1], alone.returns[0])
    assert not np.array_equal(alone.returns[0], again.returns[0])  # another seed, another episode
    mean = rollout_batch(import_agent(MORLD), "mo-halfcheetah-v5", prefs[1:], [5], horizon=20)
    assert not np.array_equal(mean.returns[0], alone.returns[0])


def test_the_envs_a_file_fits_are_those_of_its_sizes_the_named_one_first(tmp_path: Path) -> None:
    from paretoscope.agents.importers import get_importer

    importer = get_importer("morl-baselines")
    # An upload keeps no folder: Envelope's [obs 2 + 2 weights] -> 4 actions x 2 objectives fit
    # the three deep-sea-treasure maps only (by hand from `paretoscope envs`), never a MuJoCo task.
    uploaded = tmp_path / "Envelope.tar"
    uploaded.write_bytes((FIXTURES / "envelope/deep-sea-treasure-v0/Envelope.tar").read_bytes())
    info = importer.inspect(uploaded)  # type: ignore[attr-defined]
    assert info["env_candidates"] == [
        "deep-sea-treasure-v0",
        "deep-sea-treasure-concave-v0",
        "deep-sea-treasure-mirrored-v0",
    ]
    assert info["env_guess"] == "deep-sea-treasure-v0"
    # GPI-LS: 7 observations, 6 actions, 3 objectives: the two minecarts (not the 691200-pixel one).
    gpi = importer.inspect(FIXTURES / "gpi-ls/minecart-v0/GPI-LS.tar")  # type: ignore[attr-defined]
    assert gpi["env_candidates"] == ["minecart-v0", "minecart-deterministic-v0"]
    # A continuous actor of 11 observations, 3 actions, 2 objectives: the 2-objective hoppers,
    # MO-Gymnasium's first; the folder's name (the env it was trained on) goes before them all.
    hopper = FIXTURES / "gpi-pd-continuous/mo-hopper-2obj-v5/GPI-PD Continuous Action.tar"
    moved = tmp_path / "mo-hopper-2d-v4" / hopper.name
    moved.parent.mkdir()
    moved.write_bytes(hopper.read_bytes())
    assert importer.inspect(moved)["env_candidates"] == [  # type: ignore[attr-defined]
        "mo-hopper-2d-v4",
        "mo-hopper-2obj-v5",
        "MO-Hopper-v2",
    ]
