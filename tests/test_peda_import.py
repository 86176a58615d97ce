"""Importing PEDA checkpoints: default sizes, bad files, env mismatches, provenance, CLI."""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from paretoscope.agents import checkpoint
from paretoscope.agents.peda import import_peda, inspect_peda
from paretoscope.cli import agent as agent_cli
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch
from tests.conftest import PEDA_FIXTURES

ENVS = ("MO-HalfCheetah-v2", "MO-Hopper-v3")
TYPES = ("dt", "rvs", "bc")


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Tiny forward passes: on a busy 2-core machine a second intra-op thread only adds waits."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def fixture_checkpoint(env: str, peda_type: str) -> Path:
    return PEDA_FIXTURES / "ckpts" / env / peda_type / "step=1.ckpt"


def fixture_state_dict(env: str, peda_type: str) -> dict[str, torch.Tensor]:
    content = torch.load(fixture_checkpoint(env, peda_type), map_location="cpu", weights_only=True)
    return dict(content["model"])


def write_ckpt(path: Path, state_dict: dict[str, torch.Tensor]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": state_dict, "optimizer": {"state": {}, "param_groups": []}}, path)
    return path


# --- PEDA's default sizes (hidden 512: what users' real checkpoints look like) ------------------


def random_state_dict_from_manifest(entries: list[dict], seed: int) -> dict[str, torch.Tensor]:
    """A state_dict with exactly the manifest's keys, shapes and dtypes, random weights."""
    generator = torch.Generator().manual_seed(seed)
    state: dict[str, torch.Tensor] = {}
    for entry in entries:
        shape, key = entry["shape"], entry["key"]
        if key.endswith(".attn.bias"):
            size = shape[-1]
            state[key] = torch.ones(size, size, dtype=torch.uint8).tril().view(*shape)
        elif key.endswith(".attn.masked_bias"):
            state[key] = torch.tensor(-1e4)
        elif "ln" in key.split(".")[-2] and key.endswith("weight"):
            state[key] = torch.ones(shape)
        else:
            fan_in = shape[-1] if len(shape) > 1 else 1
            state[key] = torch.randn(shape, generator=generator) / math.sqrt(fan_in)
    # Small actions, so that even a Hopper with random weights stays up for the whole test.
    for layer in ("predict_action.0", "model.action_net", "model.9"):
        for key in (f"{layer}.weight", f"{layer}.bias"):
            if key in state:
                state[key] = state[key] * 0.02
    return state


@pytest.fixture(scope="module")
def default_size_checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    manifest = json.loads((PEDA_FIXTURES / "manifest-default-sizes.json").read_text())
    root = tmp_path_factory.mktemp("peda-default")
    paths = {}
    for index, (name, model) in enumerate(sorted(manifest["models"].items())):
        env, peda_type = name.split("/")
        state = random_state_dict_from_manifest(model["state_dict"], seed=index)
        paths[name] = write_ckpt(root / env / peda_type / "ckpt" / "step=1000.ckpt", state)
    return paths


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("peda_type", TYPES)
def test_default_size_agent_imports_and_runs_50_steps(
    default_size_checkpoints: dict[str, Path], env: str, peda_type: str
) -> None:
    manifest = json.loads((PEDA_FIXTURES / "manifest-default-sizes.json").read_text())
    model = manifest["models"][f"{env}/{peda_type}"]
    agent = import_peda(default_size_checkpoints[f"{env}/{peda_type}"], env, peda_type)

    # Every trained weight was kept; only PEDA's unused wte (dt) and log_std (rvs) are dropped.
    unused = ("transformer.wte.weight", "model.log_std")
    dropped = sum(math.prod(e["shape"]) for e in model["state_dict"] if e["key"] in unused)
    assert agent.parameter_count == model["n_parameters"] - dropped
    architecture = vars(agent.architecture)
    if peda_type == "dt":
        assert (architecture["hidden_size"], architecture["n_layer"]) == (512, 3)
        assert (architecture["inner_size"], architecture["max_timestep"]) == (2048, 500)
    else:
        assert architecture["hidden_sizes"] == (512, 512, 512)
    if peda_type == "bc":
        assert architecture["context_length"] == 20
    assert agent.training["steps"] == 1000  # from the file name step=1000.ckpt

    preferences = np.eye(agent.spec.n_obj)[:2] * 0.6 + 0.4 / agent.spec.n_obj
    result = rollout_batch(agent, env, preferences, seeds=[0, 1], horizon=50)
    assert not result.diverged.any()
    assert np.isfinite(result.returns).all()
    np.testing.assert_array_equal(result.lengths, [50, 50])
    np.testing.assert_allclose(result.targets, agent.initial_target(preferences))


# --- bad files ---------------------------------------------------------------------------------


class WritesMarker:
    """Unpickling this creates a file: the classic code-execution payload, made harmless."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_pickle_payload_is_proven_live_then_refused(tmp_path: Path) -> None:
    # The payload really runs under a plain unpickler (so the refusal below means something).
    probe = tmp_path / "probe-ran"
    pickle.loads(pickle.dumps(WritesMarker(probe))).close()
    assert probe.exists()

    marker = tmp_path / "payload-ran"
    state = fixture_state_dict("MO-Hopper-v3", "bc")
    zipped = tmp_path / "zip" / "step=1.ckpt"
    zipped.parent.mkdir()
    torch.save({"model": state, "optimizer": WritesMarker(marker)}, zipped)
    raw = tmp_path / "raw" / "step=1.ckpt"
    raw.parent.mkdir()
    raw.write_bytes(pickle.dumps({"model": state, "extra": WritesMarker(marker)}, protocol=2))
    for path in (zipped, raw):
        with pytest.raises(ParetoscopeError, match="refused"):
            import_peda(path, "MO-Hopper-v3", "bc")
        with pytest.raises(ParetoscopeError, match="refused"):
            inspect_peda(path)
    assert not marker.exists()


def test_non_peda_state_dict_is_refused(tmp_path: Path) -> None:
    path = write_ckpt(tmp_path / "other.ckpt", {"fc.weight": torch.zeros(4, 3)})
    for peda_type in TYPES:
        with pytest.raises(ParetoscopeError, match="not a PEDA"):
            import_peda(path, "MO-Hopper-v3", peda_type)
    assert inspect_peda(path).peda_type is None


def test_missing_key_is_named(tmp_path: Path) -> None:
    state = fixture_state_dict("MO-HalfCheetah-v2", "dt")
    del state["transformer.h.1.mlp.c_fc.weight"]
    path = write_ckpt(tmp_path / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match=r"transformer\.h\.1\.mlp\.c_fc\.weight"):
        import_peda(path, "MO-HalfCheetah-v2", "dt")


def test_wrong_shape_is_named_with_the_expected_shape(tmp_path: Path) -> None:
    state = fixture_state_dict("MO-HalfCheetah-v2", "dt")
    state["transformer.h.2.mlp.c_proj.weight"] = torch.zeros(256, 128)
    path = write_ckpt(tmp_path / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match=r"c_proj\.weight.*\[256, 128\].*\[512, 128\]"):
        import_peda(path, "MO-HalfCheetah-v2", "dt")

    state = fixture_state_dict("MO-Hopper-v3", "rvs")
    state["model.mlp_extractor.shared_net.2.weight"] = torch.zeros(128, 64)
    path = write_ckpt(tmp_path / "rvs" / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match=r"shared_net\.2\.weight.*64 inputs.*gives 128"):
        import_peda(path, "MO-Hopper-v3", "rvs")


def test_extra_tensor_is_refused(tmp_path: Path) -> None:
    state = fixture_state_dict("MO-Hopper-v3", "bc")
    state["model.extra.weight"] = torch.zeros(3)
    path = write_ckpt(tmp_path / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match=r"unexpected tensor.*model\.extra\.weight"):
        import_peda(path, "MO-Hopper-v3", "bc")


def test_broken_attention_buffer_is_refused(tmp_path: Path) -> None:
    state = fixture_state_dict("MO-Hopper-v3", "dt")
    state["transformer.h.0.attn.bias"] = torch.ones_like(state["transformer.h.0.attn.bias"])
    path = write_ckpt(tmp_path / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match="not a causal"):
        import_peda(path, "MO-Hopper-v3", "dt")


@pytest.mark.parametrize(
    ("peda_type", "env", "message"),
    [
        ("dt", "MO-Hopper-v3", r"embed_pref\.weight.*2 objectives.*MO-Hopper-v3 has 3"),
        ("dt", "MO-Swimmer-v2", r"predict_action\.0\.weight.*6 actions.*act_dim=2"),
        ("rvs", "MO-Hopper-v3", r"shared_net\.0\.weight.*21 inputs.*MO-Hopper-v3 needs.*= 17"),
        ("bc", "MO-Hopper-v3", r"model\.0\.weight.*380 inputs.*does not fit MO-Hopper-v3"),
    ],
)
def test_checkpoint_that_does_not_fit_the_env_says_which_tensor(
    peda_type: str, env: str, message: str
) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        import_peda(fixture_checkpoint("MO-HalfCheetah-v2", peda_type), env, peda_type)


def test_state_input_mismatch_is_named(tmp_path: Path) -> None:
    state = fixture_state_dict("MO-HalfCheetah-v2", "dt")
    for key in ("embed_pref.weight", "predict_return.weight", "predict_return.bias"):
        state.pop(key)
    state.pop("predict_pref.0.weight"), state.pop("predict_pref.0.bias")
    state["embed_state.weight"] = torch.zeros(128, 20)
    path = write_ckpt(tmp_path / "step=1.ckpt", state)
    with pytest.raises(ParetoscopeError, match=r"embed_state\.weight.*20 inputs.*17.*19"):
        import_peda(path, "MO-HalfCheetah-v2", "dt")


def test_wrong_type_and_wrong_env_family_are_refused() -> None:
    with pytest.raises(ParetoscopeError, match="PEDA dt model"):
        import_peda(fixture_checkpoint("MO-HalfCheetah-v2", "dt"), "MO-HalfCheetah-v2", "rvs")
    with pytest.raises(ParetoscopeError, match="D4MORL tasks only"):
        import_peda(fixture_checkpoint("MO-HalfCheetah-v2", "dt"), "mo-halfcheetah-v5", "dt")
    with pytest.raises(ParetoscopeError, match="expected one of"):
        import_peda(fixture_checkpoint("MO-HalfCheetah-v2", "dt"), "MO-HalfCheetah-v2", "gpt")


def test_truncated_and_foreign_files_are_refused(tmp_path: Path) -> None:
    data = fixture_checkpoint("MO-Hopper-v3", "rvs").read_bytes()
    truncated = tmp_path / "truncated.ckpt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ParetoscopeError, match="not a readable torch checkpoint"):
        import_peda(truncated, "MO-Hopper-v3", "rvs")
    tensor_only = tmp_path / "tensor.ckpt"
    torch.save(torch.zeros(3), tensor_only)
    with pytest.raises(ParetoscopeError, match="holds a Tensor"):
        import_peda(tensor_only, "MO-Hopper-v3", "rvs")
    garbage = tmp_path / "garbage.ckpt"
    garbage.write_bytes(b"\x80\x02not a pickle at all")
    with pytest.raises(ParetoscopeError, match="not a readable torch checkpoint"):
        import_peda(garbage, "MO-Hopper-v3", "rvs")
    with pytest.raises(ParetoscopeError, match="no such file"):
        import_peda(tmp_path / "missing.ckpt", "MO-Hopper-v3", "rvs")


# --- what can be told before importing (the dashboard asks for the rest) -----------------------


def test_inspect_guesses_type_and_env(tmp_path: Path) -> None:
    cheetah = inspect_peda(fixture_checkpoint("MO-HalfCheetah-v2", "dt"))
    assert cheetah.peda_type == "dt"
    assert cheetah.env_from_path == "MO-HalfCheetah-v2"
    # Walker2d has the same dims, so only the path tells them apart.
    assert set(cheetah.env_candidates) == {"MO-HalfCheetah-v2", "MO-Walker2d-v2"}
    assert cheetah.env_guess == "MO-HalfCheetah-v2"
    assert cheetah.training_steps == 1

    moved = tmp_path / "step=1.ckpt"
    shutil.copy(fixture_checkpoint("MO-HalfCheetah-v2", "bc"), moved)
    info = inspect_peda(moved)
    assert (info.peda_type, info.env_from_path, info.env_guess) == ("bc", None, None)

    shutil.copy(fixture_checkpoint("MO-Hopper-v3", "rvs"), moved)
    info = inspect_peda(moved)
    assert (info.peda_type, info.env_candidates, info.env_guess) == (
        "rvs",
        ("MO-Hopper-v3",),
        "MO-Hopper-v3",
    )


# --- the initial target -------------------------------------------------------------------------


def write_tiny_d4morl(path: Path, corner: np.ndarray, n: int = 30, seed: int = 0) -> None:
    """A D4MORL-format pickle whose returns are exactly corner @ preference."""
    rng = np.random.default_rng(seed)
    n_obj, steps = corner.shape[0], 3
    entries = []
    for _ in range(n):
        preference = rng.dirichlet(np.ones(n_obj))
        entry: collections.defaultdict = collections.defaultdict(list)
        observations = rng.normal(size=(steps + 1, 11))
        entry["observations"] = observations[:-1]
        entry["actions"] = rng.uniform(-1, 1, size=(steps, 3))
        entry["next_observations"] = observations[1:]
        entry["preference"] = np.tile(preference, (steps, 1))
        entry["terminals"] = np.array([False, False, True])
        entry["raw_rewards"] = np.tile(corner @ preference / steps, (steps, 1))
        entries.append(entry)
    path.write_bytes(pickle.dumps(entries, protocol=4))


def test_target_from_dataset_is_the_least_squares_line(tmp_path: Path) -> None:
    corner = np.array([[900.0, 100.0, -50.0], [150.0, 400.0, 80.0], [440.0, 460.0, 520.0]])
    dataset = tmp_path / "MO-Hopper-v3_30_expert_uniform.pkl"
    write_tiny_d4morl(dataset, corner)
    agent = import_peda(fixture_checkpoint("MO-Hopper-v3", "rvs"), "MO-Hopper-v3", "rvs", dataset)
    assert agent.target_model is not None
    np.testing.assert_allclose(agent.target_model.corner_returns, corner, atol=1e-8)
    preference = np.array([[0.2, 0.3, 0.5]])
    np.testing.assert_allclose(agent.initial_target(preference), preference @ corner.T)
    info = agent.training["dataset"]
    assert info["sha256"] == hashlib.sha256(dataset.read_bytes()).hexdigest()
    assert (info["n_trajectories"], info["quality"]) == (30, "expert")

    wrong = tmp_path / "MO-HalfCheetah-v2_30_expert_uniform.pkl"
    shutil.copy(dataset, wrong)
    with pytest.raises(ParetoscopeError, match="MO-HalfCheetah-v2.*MO-Hopper-v3"):
        import_peda(fixture_checkpoint("MO-Hopper-v3", "rvs"), "MO-Hopper-v3", "rvs", wrong)


def test_target_without_dataset_is_peda_published_model() -> None:
    agent = import_peda(fixture_checkpoint("MO-HalfCheetah-v2", "dt"), "MO-HalfCheetah-v2", "dt")
    # docs/reference.md#initial-target-at-evaluation: at the pure preferences, run/energy returns
    # are the table's columns.
    np.testing.assert_allclose(agent.initial_target(np.array([1.0, 0.0])), [923.7, 259.6])
    np.testing.assert_allclose(agent.initial_target(np.array([0.0, 1.0])), [-95.5, 578.5])
    np.testing.assert_allclose(
        agent.initial_target(np.array([0.5, 0.5])), [(923.7 - 95.5) / 2, (259.6 + 578.5) / 2]
    )
    bc = import_peda(fixture_checkpoint("MO-HalfCheetah-v2", "bc"), "MO-HalfCheetah-v2", "bc")
    np.testing.assert_array_equal(bc.initial_target(np.array([[0.3, 0.7]])), [[0.0, 0.0]])


# --- the command line -----------------------------------------------------------------------


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="paretoscope")
    agent_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_cli_import_then_load_acts_like_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = fixture_checkpoint("MO-Hopper-v3", "dt")
    out = tmp_path / "hopper-dt"
    argv = ["agent", "import-peda", str(source), "--env", "MO-Hopper-v3", "--type", "dt"]
    assert run_cli([*argv, "--out", str(out)]) == 0
    assert "MO-Hopper-v3" in capsys.readouterr().out
    with pytest.raises(ParetoscopeError, match="already exists"):
        run_cli([*argv, "--out", str(out)])

    loaded = checkpoint.load(out)
    direct = import_peda(source, "MO-Hopper-v3", "dt")
    rng = np.random.default_rng(3)
    preferences = rng.dirichlet(np.ones(3), size=4)
    loaded.reset(4)
    direct.reset(4)
    for _ in range(3):
        observations = rng.normal(size=(4, 11))
        targets = direct.initial_target(preferences)
        np.testing.assert_array_equal(
            loaded.act(observations, preferences, targets),
            direct.act(observations, preferences, targets),
        )

    assert run_cli(["agent", "show", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config"]["kind"] == "modt"
    assert shown["config"]["training"]["source"] == "peda"
    assert shown["parameter_count"] == direct.parameter_count
    assert run_cli(["agent", "show", str(out)]) == 0
    assert "modt" in capsys.readouterr().out

    assert run_cli(["agent", "show", str(source), "--json"]) == 0
    peda = json.loads(capsys.readouterr().out)
    assert (peda["format"], peda["kind"], peda["details"]["env_guess"]) == (
        "peda",
        "dt",
        "MO-Hopper-v3",
    )
