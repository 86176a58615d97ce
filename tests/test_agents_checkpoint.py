"""The paretoscope checkpoint: round trips, the config's content, every way a file can be bad."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

from paretoscope.agents import checkpoint
from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
)
from paretoscope.agents.conditioned import ConditionedAgent, ObservationNormalizer, create_agent
from paretoscope.agents.target_model import LinearTargetModel
from paretoscope.errors import ParetoscopeError

ENV = "MO-HalfCheetah-v2"
KINDS = ("morvs", "bc", "modt")
ARCHITECTURES = {
    "modt": TransformerArchitecture(hidden_size=32, n_layer=2, n_head=2, inner_size=48),
    "morvs": MORvSArchitecture(hidden_sizes=(24, 16)),
    "bc": BCArchitecture(hidden_sizes=(16,), context_length=3),
}


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny forward passes: on a busy 2-core machine a second intra-op thread only adds waits."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def make_agent(kind: str, seed: int = 0) -> ConditionedAgent:
    rng = np.random.default_rng(seed)
    return create_agent(
        kind,
        ENV,
        architecture=ARCHITECTURES[kind],
        normalizer=ObservationNormalizer(
            mean=tuple(rng.normal(size=17)), std=tuple(rng.uniform(0.5, 2, size=17))
        ),
        target_model=None
        if kind == "bc"
        else LinearTargetModel(((900.0, -90.0), (260.0, 580.0)), source="test"),
        training={"steps": 123, "dataset": {"file": "x.pkl", "sha256": "ab" * 32}},
        seed=seed,
    )


def actions_over_episode(agent, seed: int = 0, steps: int = 6, batch: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    preferences = rng.dirichlet(np.ones(2), size=batch)
    remaining = rng.uniform(100, 900, size=(batch, 2))
    agent.reset(batch)
    out = []
    for _ in range(steps):
        out.append(agent.act(rng.normal(size=(batch, 17)), preferences, remaining))
        remaining = remaining - rng.normal(1, 0.2, size=(batch, 2))
    return np.stack(out)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("single_file", [False, True])
def test_round_trip_gives_identical_actions(tmp_path: Path, kind: str, single_file: bool) -> None:
    agent = make_agent(kind)
    path = tmp_path / ("agent.safetensors" if single_file else "agent")
    checkpoint.save(agent, path, single_file=single_file)
    loaded = checkpoint.load(path)
    assert type(loaded) is type(agent)
    assert loaded.spec == agent.spec
    assert loaded.architecture == agent.architecture
    assert loaded.target_model == agent.target_model
    assert loaded.fingerprint() == agent.fingerprint()
    np.testing.assert_array_equal(actions_over_episode(loaded), actions_over_episode(agent))
    assert checkpoint.parameter_count(path) == agent.parameter_count


def test_config_holds_everything_needed(tmp_path: Path) -> None:
    agent = make_agent("modt")
    checkpoint.save(agent, tmp_path / "a")
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (config["format"], config["format_version"], config["kind"]) == (
        "paretoscope-agent",
        1,
        "modt",
    )
    assert (config["env_id"], config["n_obj"], config["obs_dim"], config["act_dim"]) == (
        ENV,
        2,
        17,
        6,
    )
    assert config["conditioning"] == {
        "preference_in_state": True,
        "preference_in_return": True,
        "preference_in_action": True,
        "return_conditioned": True,
        "vector_return": True,
    }
    assert config["architecture"]["hidden_size"] == 32
    assert config["architecture"]["context_length"] == 5
    assert config["rtg_scale"] == 1000.0 and config["preference_weighted_return"] is True
    assert config["action_bound"] == [1.0] * 6
    assert config["observation_normalization"]["mean"] == list(agent.normalizer.mean)
    assert config["observation_normalization"]["clip"] == 10.0
    assert config["target_model"]["corner_returns"] == [[900.0, -90.0], [260.0, 580.0]]
    assert config["training"]["steps"] == 123
    assert set(config["versions"]) >= {"paretoscope", "torch", "safetensors"}
    weights = (tmp_path / "a" / "weights.safetensors").read_bytes()
    assert config["weights"]["sha256"] == hashlib.sha256(weights).hexdigest()
    assert config["weights"]["parameter_count"] == agent.parameter_count


def test_cli_show_reads_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from paretoscope.cli import agent as agent_cli

    agent = make_agent("morvs")
    checkpoint.save(agent, tmp_path / "a")
    parser = argparse.ArgumentParser()
    agent_cli.register(parser.add_subparsers())
    args = parser.parse_args(["agent", "show", str(tmp_path / "a"), "--json"])
    assert args.func(args) == 0
    shown = json.loads(capsys.readouterr().out)
    # MLP 21 -> 24 -> 16 -> 6 (17 observations + 2 preference weights + 2 returns in).
    assert shown["parameter_count"] == (21 * 24 + 24) + (24 * 16 + 16) + (16 * 6 + 6)
    assert shown["config"]["architecture"]["hidden_sizes"] == [24, 16]
    args = parser.parse_args(["agent", "show", str(tmp_path / "a")])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "morvs" in text and ENV in text and "objective 1 at pure preferences" in text


# --- bad checkpoints ---------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    return checkpoint.save(make_agent("morvs"), tmp_path / "agent")


def edit_config(path: Path, **changes) -> None:
    config = json.loads((path / "config.json").read_text())
    config.update(changes)
    (path / "config.json").write_text(json.dumps(config))


def test_missing_config_or_weights(saved: Path) -> None:
    weights = saved / "weights.safetensors"
    moved = saved.parent / "w"
    shutil.move(weights, moved)
    with pytest.raises(ParetoscopeError, match="weights.safetensors is missing"):
        checkpoint.load(saved)
    shutil.move(moved, weights)
    (saved / "config.json").unlink()
    with pytest.raises(ParetoscopeError, match="config.json is missing"):
        checkpoint.load(saved)
    with pytest.raises(ParetoscopeError, match="no such checkpoint"):
        checkpoint.load(saved.parent / "nothing-here")


def test_truncated_weights(saved: Path, tmp_path: Path) -> None:
    weights = saved / "weights.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) - 100])
    with pytest.raises(ParetoscopeError, match="sha256 differs"):
        checkpoint.load(saved)
    # Without the digest (or in a single file) safetensors itself notices.
    config = json.loads((saved / "config.json").read_text())
    config["weights"]["sha256"] = None
    (saved / "config.json").write_text(json.dumps(config))
    with pytest.raises(ParetoscopeError, match="not a readable safetensors file"):
        checkpoint.load(saved)
    single = checkpoint.save(make_agent("bc"), tmp_path / "one.safetensors", single_file=True)
    single.write_bytes(single.read_bytes()[:-50])
    with pytest.raises(ParetoscopeError, match="not a readable safetensors file"):
        checkpoint.load(single)


def test_weights_that_do_not_fit_the_architecture(saved: Path) -> None:
    architecture = json.loads((saved / "config.json").read_text())["architecture"]
    edit_config(saved, architecture={**architecture, "hidden_sizes": [32, 16]})
    with pytest.raises(
        ParetoscopeError, match=r"'layers.0.weight' has shape \[24, 21\].*\[32, 21\]"
    ):
        checkpoint.load(saved)

    edit_config(saved, architecture=architecture)
    tensors = {k: v.clone() for k, v in make_agent("morvs").network.state_dict().items()}
    tensors["output.bias"] = torch.zeros(7)
    save_file(tensors, saved / "weights.safetensors")
    config = json.loads((saved / "config.json").read_text())
    config["weights"]["sha256"] = hashlib.sha256(
        (saved / "weights.safetensors").read_bytes()
    ).hexdigest()
    (saved / "config.json").write_text(json.dumps(config))
    with pytest.raises(ParetoscopeError, match=r"'output.bias' has shape \[7\].*needs \[6\]"):
        checkpoint.load(saved)

    del tensors["output.bias"]
    save_file(tensors, saved / "weights.safetensors")
    config["weights"]["sha256"] = None
    (saved / "config.json").write_text(json.dumps(config))
    with pytest.raises(ParetoscopeError, match=r"missing tensor\(s\) \['output.bias'\]"):
        checkpoint.load(saved)


def test_pickle_in_place_of_weights_never_runs(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "payload-ran"

    class WritesMarker:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    (saved / "weights.safetensors").write_bytes(pickle.dumps({"w": WritesMarker()}))
    edit_config(saved, weights={"file": "weights.safetensors", "sha256": None})
    with pytest.raises(ParetoscopeError, match="not a readable safetensors file"):
        checkpoint.load(saved)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"obs_dim": 11}, r"obs_dim is 11, but MO-HalfCheetah-v2 has obs_dim=17"),
        ({"n_obj": 3}, r"n_obj is 3, but MO-HalfCheetah-v2 has n_obj=2"),
        ({"act_dim": 3}, r"act_dim is 3"),
        ({"env_id": "MO-Nothing-v0"}, r"unknown environment id 'MO-Nothing-v0'"),
        ({"env_id": "MO-Hopper-v3"}, r"n_obj is 2, but MO-Hopper-v3 has n_obj=3"),
        (
            {"kind": "ppo"},
            r"kind is 'ppo', expected one of \['bc', 'modt', 'morlb_actor', .*'policy_set'\]",
        ),
        ({"format_version": 2}, r"format_version is 2"),
        ({"format": "something"}, r"format is 'something'"),
        ({"rtg_scale": "big"}, r"rtg_scale must be a number"),
        ({"conditioning": {"preference_in_state": 1}}, r"conditioning.preference_in_state"),
        ({"architecture": {"hidden_sizes": [8], "depth": 3}}, r"unknown field\(s\) \['depth'\]"),
        ({"architecture": {"hidden_sizes": "wide"}}, r"hidden_sizes: expected a list"),
        ({"observation_normalization": {"mean": [0.0], "std": [1.0]}}, r"1 values.*obs_dim=17"),
        ({"target_model": {"type": "linear", "corner_returns": [[1.0]]}}, r"expected 2 x 2"),
        ({"target_model": None}, r"return-conditioned morvs agent needs one"),
        ({"action_bound": [1.0, 1.0]}, r"action_bound: expected 6 positive numbers"),
    ],
)
def test_config_errors_name_the_field(saved: Path, changes: dict, message: str) -> None:
    edit_config(saved, **changes)
    with pytest.raises(ParetoscopeError, match=message):
        checkpoint.load(saved)


def test_not_json_and_foreign_files(saved: Path, tmp_path: Path) -> None:
    (saved / "config.json").write_text("{not json")
    with pytest.raises(ParetoscopeError, match="not readable JSON"):
        checkpoint.load(saved)
    peda_like = tmp_path / "step=1.ckpt"
    torch.save({"model": {}}, peda_like)
    with pytest.raises(ParetoscopeError, match="paretoscope agent import FILE"):
        checkpoint.load(peda_like)
    plain = tmp_path / "plain.safetensors"
    save_file({"w": torch.zeros(2)}, plain)
    with pytest.raises(ParetoscopeError, match="without a paretoscope config"):
        checkpoint.load(plain)


def test_single_file_must_be_safetensors(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="ends in .safetensors"):
        checkpoint.save(make_agent("bc"), tmp_path / "agent.bin", single_file=True)


def test_policy_sets_load_through_the_same_entry_point(tmp_path: Path) -> None:
    from paretoscope.agents.policy_set import PolicySetAgent

    rng = np.random.default_rng(0)
    members = 3
    agent = PolicySetAgent(
        ENV,
        np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]),
        rng.normal(size=(members, 6, 17)),
        np.zeros((members, 17)),
        np.ones((members, 17)),
        None,
        {},
    )
    path = checkpoint.save(agent, tmp_path / "set")
    loaded = checkpoint.load(path)
    assert loaded.spec.kind == "policy_set"
    observations = rng.normal(size=(2, 17))
    preferences = np.array([[0.9, 0.1], [0.2, 0.8]])
    agent.reset(2)
    loaded.reset(2)
    np.testing.assert_array_equal(
        loaded.act(observations, preferences, np.zeros((2, 2))),
        agent.act(observations, preferences, np.zeros((2, 2))),
    )
    assert checkpoint.parameter_count(path) == members * 6 * 17


@pytest.mark.parametrize("bound", ["x" * 100_000, [1.0] * 100_000, {"a": 1}])
def test_an_action_bound_that_is_not_numbers_is_named_briefly(bound: object) -> None:
    with pytest.raises(ParetoscopeError, match=r"^action_bound: expected 6 positive numbers") as e:
        create_agent("bc", ENV, architecture=ARCHITECTURES["bc"], action_bound=bound, seed=0)
    assert len(str(e.value)) < 400


def test_a_tensor_of_the_wrong_shape_is_named_with_both_shapes(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    agent = make_agent("bc")
    single = checkpoint.save(agent, tmp_path / "one.safetensors", single_file=True)
    tensors = load_file(single)
    name = next(key for key, tensor in tensors.items() if tensor.ndim == 2)
    rows, columns = tensors[name].shape
    tensors[name] = tensors[name].T.contiguous()  # the same bytes, the wrong shape
    with open(single, "rb") as handle:  # keep the header's metadata (the config)
        length = int.from_bytes(handle.read(8), "little")
        metadata = json.loads(handle.read(length))["__metadata__"]
    save_file(tensors, single, metadata=metadata)
    needed = rf"has shape \[{columns}, {rows}\], the architecture in the config needs"
    with pytest.raises(ParetoscopeError, match=needed):
        checkpoint.load(single)
