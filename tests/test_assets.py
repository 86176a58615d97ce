"""Assets folder discovery and manifests (paretoscope.catalog), and the format sniffers it asks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from paretoscope.catalog import (
    AssetCatalog,
    SweepPlan,
    default_sweep_plan,
    describe_agent,
    discover_assets,
    discover_many,
    write_manifest,
)
from paretoscope.data.native import REQUIRED_COLUMNS
from paretoscope.errors import ParetoscopeError
from tests.conftest import PEDA_FIXTURES, REPO_DIR


def _config(env_id: str = "MO-HalfCheetah-v2", kind: str = "morvs", **extra: object) -> dict:
    from paretoscope.envs import get_spec

    spec = get_spec(env_id)
    config = {
        "format": "paretoscope-agent",
        "format_version": 1,
        "kind": kind,
        "env_id": env_id,
        "n_obj": spec.n_obj,
        "obs_dim": spec.obs_dim,
        "act_dim": spec.act_dim,
        "conditioning": {"return_conditioned": kind != "bc"},
    }
    config.update(extra)
    return config


def _agent_dir(root: Path, name: str, config: dict) -> Path:
    folder = root / "agents" / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "weights.safetensors").write_bytes(b"")
    return folder


def _native_dataset(root: Path, name: str, env_id: str, count: int = 5) -> Path:
    folder = root / "datasets" / name
    folder.mkdir(parents=True)
    header = {
        "format": "paretoscope-trajectories",
        "version": 1,
        "info": {"env_id": env_id, "quality": "expert", "preference_distribution": "wide"},
        "n_trajectories": count,
        # Discovery reads the header alone, yet checks it whole: each column named, no file read.
        "columns": {
            name: {"file": f"{name}.npy", "dtype": "float64", "shape": [0]}
            for name in REQUIRED_COLUMNS
        },
    }
    (folder / "paretoscope-dataset.json").write_text(json.dumps(header))
    return folder


def test_discovers_agents_datasets_and_results_from_headers_only(tmp_path: Path) -> None:
    _agent_dir(tmp_path, "cheetah", _config())
    _agent_dir(tmp_path, "hopper", _config("MO-Hopper-v3", "bc"))
    _native_dataset(tmp_path, "cheetah-data", "MO-HalfCheetah-v2", count=7)
    (tmp_path / "datasets" / "MO-Hopper-v3_50000_amateur_narrow.pkl").write_bytes(b"x")
    (tmp_path / "results").mkdir()
    write_manifest(
        tmp_path,
        {
            "title": "Demo",
            "defaults": {"env": "MO-Hopper-v3"},
            "sweep": {"granularity": 5, "seeds": [0, 1], "horizon": 100},
            "agents": {"cheetah": {"label": "Cheetah MORvS", "dataset": "cheetah-data"}},
        },
    )
    catalog = discover_assets(tmp_path)
    assert catalog.title == "Demo"
    assert catalog.problems == ()
    assert [agent.name for agent in catalog.agents] == ["cheetah", "hopper"]
    cheetah = catalog.agent("cheetah")
    assert cheetah.label == "Cheetah MORvS" and cheetah.dataset == "cheetah-data"
    assert cheetah.return_conditioned and cheetah.n_obj == 2
    assert cheetah.sweep_plan() == SweepPlan(granularity=5, seeds=(0, 1), horizon=100)
    assert catalog.agent("hopper").return_conditioned is False
    assert catalog.agent("hopper").label == "hopper"  # no note: the folder name
    datasets = {dataset.name: dataset for dataset in catalog.datasets}
    assert datasets["cheetah-data"].format == "native"
    assert datasets["cheetah-data"].n_trajectories == 7
    d4morl = datasets["MO-Hopper-v3_50000_amateur_narrow"]
    assert (d4morl.format, d4morl.env_id, d4morl.n_trajectories) == (
        "d4morl",
        "MO-Hopper-v3",
        50000,
    )
    assert catalog.results_dirs == (tmp_path / "results",)
    assert catalog.env_ids() == ["MO-HalfCheetah-v2", "MO-Hopper-v3"]
    assert [a.name for a in catalog.agents_for("MO-Hopper-v3")] == ["hopper"]
    assert [d.name for d in catalog.datasets_for("MO-HalfCheetah-v2")] == ["cheetah-data"]
    assert catalog.defaults["env"] == "MO-Hopper-v3"


def test_broken_entries_become_problems_and_the_rest_stays(tmp_path: Path) -> None:
    _agent_dir(tmp_path, "good", _config())
    bad_dims = _config()
    bad_dims["n_obj"] = 3
    _agent_dir(tmp_path, "wrong-dims", bad_dims)
    _agent_dir(tmp_path, "wrong-obs", _config(obs_dim=5))
    unknown_env = _config()
    unknown_env["env_id"] = "NoSuchEnv-v0"
    _agent_dir(tmp_path, "unknown-env", unknown_env)
    broken = tmp_path / "agents" / "not-json"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "mystery.pkl").write_bytes(b"x")
    catalog = discover_assets(tmp_path)
    assert [agent.name for agent in catalog.agents] == ["good"]
    messages = {problem.path.name: problem.message for problem in catalog.problems}
    assert "n_obj is 3" in messages["wrong-dims"]
    assert "obs_dim is 5, but MO-HalfCheetah-v2 has obs_dim=17" in messages["wrong-obs"]
    assert "NoSuchEnv-v0" in messages["unknown-env"]
    assert "not readable JSON" in messages["not-json"]
    assert "does not say its env" in messages["mystery.pkl"]


def test_missing_folder_and_bad_manifest_raise(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="no such directory"):
        discover_assets(tmp_path / "absent")
    (tmp_path / "manifest.json").write_text('{"format": "other"}')
    with pytest.raises(ParetoscopeError, match="expected 'paretoscope-assets'"):
        discover_assets(tmp_path)
    (tmp_path / "manifest.json").write_text('{"sweep": {"granularity": 0}}')
    with pytest.raises(ParetoscopeError, match="granularity"):
        discover_assets(tmp_path)


def test_flat_folder_and_many_folders(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    agent = flat / "mine"
    agent.mkdir()
    (agent / "config.json").write_text(json.dumps(_config("MO-Swimmer-v2", "bc")))
    (flat / "notes.txt").write_text("ignored")
    structured = tmp_path / "structured"
    _agent_dir(structured, "mine", _config())
    catalog = discover_many([structured, flat, tmp_path / "missing"])
    # Name clash: the later folder's agent gets a suffix; the missing folder is a problem.
    assert [a.name for a in catalog.agents] == ["mine", "mine (2)"]
    assert catalog.agent("mine (2)").env_id == "MO-Swimmer-v2"
    assert len(catalog.problems) == 1 and "no such directory" in catalog.problems[0].message
    with pytest.raises(ParetoscopeError, match="no agent named"):
        catalog.agent("nobody")
    assert AssetCatalog().env_ids() == []


def test_single_file_checkpoint_header_is_read_without_torch(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    path = tmp_path / "agent.safetensors"
    save_file(
        {"w": np.zeros(2, dtype=np.float32)},
        str(path),
        metadata={"paretoscope_config": json.dumps(_config("MO-Ant-v2"))},
    )
    described = describe_agent(path)
    assert described is not None
    assert described.env_id == "MO-Ant-v2"
    assert (described.kind, described.format) == ("morvs", "checkpoint")
    other = tmp_path / "plain.safetensors"
    save_file({"w": np.zeros(2, dtype=np.float32)}, str(other))
    with pytest.raises(ParetoscopeError, match="without a paretoscope config"):
        describe_agent(other)


def test_peda_checkpoint_is_listed_for_import(tmp_path: Path) -> None:
    source = PEDA_FIXTURES / "ckpts" / "MO-Hopper-v3" / "rvs" / "step=1.ckpt"
    (tmp_path / "agents").mkdir()
    shutil.copy(source, tmp_path / "agents" / "hopper-rvs.ckpt")
    shutil.copy(source, tmp_path / "agents" / "known.ckpt")
    write_manifest(tmp_path, {"agents": {"known": {"env": "MO-Hopper-v3", "peda_type": "rvs"}}})
    catalog = discover_assets(tmp_path)
    unknown = catalog.agent("hopper-rvs")
    assert unknown.format == "peda" and unknown.env_id is None
    assert catalog.pending_agents() == [unknown]
    known = catalog.agent("known")
    assert known.env_id == "MO-Hopper-v3" and known.kind == "rvs"


def test_default_sweep_plan_matches_the_slider_grid() -> None:
    assert default_sweep_plan(2).granularity == 20
    assert default_sweep_plan(3).granularity == 10
    assert default_sweep_plan(5).granularity >= 1
    with pytest.raises(ParetoscopeError):
        SweepPlan(granularity=2, seeds=())


def test_one_sniffer_per_format_serves_discovery_the_cli_and_uploads(tmp_path: Path) -> None:
    import subprocess
    import sys

    from paretoscope.agents.formats import sniff_agent
    from paretoscope.cli.data import find_datasets
    from paretoscope.dashboard.uploads import check_signature
    from paretoscope.data.formats import sniff_dataset

    native = _native_dataset(tmp_path, "native-data", "MO-Ant-v2", count=3)
    pickled = tmp_path / "datasets" / "MO-Hopper-v2_10_expert_wide.pkl"
    pickled.write_bytes(b"\x80\x04 not read")
    checkpoint = _agent_dir(tmp_path, "morvs", _config("MO-Walker2d-v2"))
    peda = tmp_path / "agents" / "step=1.ckpt"
    peda.write_bytes(b"PK\x03\x04 not read")
    headers = {path.name: sniff_dataset(path) for path in (native, pickled)}
    assert (headers["native-data"].format, headers["native-data"].env_id) == ("native", "MO-Ant-v2")
    assert headers[pickled.name].n_trajectories == 10
    assert sniff_dataset(checkpoint) is None and sniff_agent(native) is None
    assert (sniff_agent(checkpoint).format, sniff_agent(checkpoint).env_id) == (
        "checkpoint",
        "MO-Walker2d-v2",
    )
    assert (sniff_agent(peda).format, sniff_agent(peda).env_id) == ("peda", None)
    # Sniffing and discovery import no torch (checked in a fresh interpreter).
    script = (
        "import sys; from paretoscope.catalog import discover_assets; "
        f"discover_assets({str(tmp_path)!r}); print('torch' in sys.modules)"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_DIR, check=True
    )
    assert fresh.stdout.strip() == "False"
    # The CLI's listing and discovery say the same as the sniffers.
    listed = {Path(item["path"]).name: item for item in find_datasets(tmp_path / "datasets")}
    assert listed["native-data"]["trajectories"] == 3
    assert listed[pickled.name]["env_id"] == "MO-Hopper-v2"
    catalog = discover_assets(tmp_path)
    assert {dataset.format for dataset in catalog.datasets} == {"native", "d4morl"}
    assert {agent.format for agent in catalog.agents} == {"checkpoint", "peda"}
    # Uploads check the signature each format's module defines.
    check_signature("ok.pkl", pickled.read_bytes())
    with pytest.raises(ParetoscopeError, match="not a pickle"):
        check_signature("bad.pkl", b"PK\x03\x04")
    with pytest.raises(ParetoscopeError, match="not a torch checkpoint"):
        check_signature("bad.ckpt", b"hello world!")
    with pytest.raises(ParetoscopeError, match="not a safetensors file"):
        check_signature("bad.safetensors", b"\x02\x00\x00\x00\x00\x00\x00\x00[]")


def test_every_env_offers_the_builtin_random_agent_beside_the_folders(tmp_path: Path) -> None:
    from paretoscope.agents.builtin import BUILTIN_FORMAT
    from paretoscope.catalog import builtin_asset

    _agent_dir(tmp_path, "cheetah", _config())
    catalog = discover_assets(tmp_path)
    choices = catalog.agent_choices("MO-HalfCheetah-v2")
    assert [(a.name, a.format) for a in choices] == [
        ("cheetah", "checkpoint"),
        ("random", BUILTIN_FORMAT),
    ]
    builtin = choices[-1]
    assert builtin.builtin and not builtin.return_conditioned and builtin.kind == "random"
    assert builtin.label == "random (uniform baseline)" and builtin.sweep_plan().granularity == 20
    # An env without any asset: the built-in agent alone; agents_for stays the folder's.
    assert [a.name for a in catalog.agent_choices("deep-sea-treasure-v0")] == ["random"]
    assert catalog.agents_for("deep-sea-treasure-v0") == []
    assert catalog.agent_choice("minecart-v0", "random").env_id == "minecart-v0"
    with pytest.raises(ParetoscopeError, match="no agent named 'cheetah' for minecart-v0"):
        catalog.agent_choice("minecart-v0", "cheetah")
    with pytest.raises(ParetoscopeError, match="no agent named 'oracle'"):
        builtin_asset("oracle", "minecart-v0")
    with pytest.raises(ParetoscopeError, match="unknown environment id"):
        builtin_asset("random", "MO-Nope-v9")


def test_a_folder_agent_called_random_hides_no_one(tmp_path: Path) -> None:
    _agent_dir(tmp_path, "random", _config())
    catalog = discover_assets(tmp_path)
    choices = catalog.agent_choices("MO-HalfCheetah-v2")
    assert [(a.name, a.builtin) for a in choices] == [
        ("random", False),
        ("random (built-in)", True),
    ]
    # The bare name means the file (as on the command line); the built-in keeps its kind.
    assert not catalog.agent_choice("MO-HalfCheetah-v2", "random").builtin
    assert catalog.agent_choice("MO-HalfCheetah-v2", "random (built-in)").kind == "random"
    # In another env the folder's agent is not offered, yet its name stays taken.
    assert [a.name for a in catalog.agent_choices("minecart-v0")] == ["random (built-in)"]


def test_a_builtin_asset_loads_by_name_never_from_a_file_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.agents.random_agent import RandomAgent
    from paretoscope.asset_agents import load_asset_agent
    from paretoscope.catalog import builtin_asset

    monkeypatch.chdir(tmp_path)
    (tmp_path / "random").write_text("not a checkpoint: must not be read")
    loaded = load_asset_agent(builtin_asset("random", "deep-sea-treasure-v0"))
    assert isinstance(loaded.agent, RandomAgent) and loaded.name == "random"
    assert loaded.fingerprint == "random:deep-sea-treasure-v0:seed=0"
    assert not loaded.return_conditioned


def test_env_ids_build_no_spec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import paretoscope.envs.registry as registry

    _agent_dir(tmp_path, "cheetah", _config())
    catalog = discover_assets(tmp_path)
    built: list[str] = []
    original = registry.Registration.spec

    def counting(self: registry.Registration) -> object:
        built.append(self.env_id)
        return original(self)

    monkeypatch.setattr(registry.Registration, "spec", counting)
    assert catalog.env_ids() == ["MO-HalfCheetah-v2"]
    assert built == []


def test_the_builtin_agent_sweeps_like_the_folders_agents_of_its_env(tmp_path: Path) -> None:
    _agent_dir(tmp_path, "a", _config())
    _agent_dir(tmp_path, "b", _config())
    plan = {"granularity": 10, "seeds": [0, 1], "horizon": 30}
    write_manifest(tmp_path, {"agents": {"a": {"sweep": plan}, "b": {"sweep": plan}}})
    shared = discover_assets(tmp_path).agent_choices("MO-HalfCheetah-v2")[-1]
    assert shared.builtin and shared.sweep_plan() == SweepPlan(10, (0, 1), 30)
    # Plans that differ: the env's default plan (full episodes).
    write_manifest(tmp_path, {"agents": {"a": {"sweep": plan}}})
    alone = discover_assets(tmp_path).agent_choices("MO-HalfCheetah-v2")[-1]
    assert alone.sweep_plan() == default_sweep_plan(2)
