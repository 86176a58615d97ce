"""The public API (`paretoscope.list_envs`, `load_agent`, `sweep`, `record`) against independent
truth: the registry, the checkpoint's own config, MORL-Baselines' eval() actions (golden.json),
the CLI's own stored rows and `evaluate --json`, a separate rollout, and the mp4 decoded back."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

import paretoscope
from paretoscope.agents import load
from paretoscope.agents.random_agent import RandomAgent
from paretoscope.cli import main as cli_main
from paretoscope.envs import REGISTRY
from paretoscope.errors import ParetoscopeError
from paretoscope.results_store import ResultsStore
from paretoscope.rollout import rollout_batch

REPO = Path(__file__).resolve().parents[1]
DST = "deep-sea-treasure-v0"
BUNDLED = REPO / "assets" / "agents" / "dst-gpi-ls"
FIXTURES = REPO / "tests" / "fixtures" / "morl-baselines"
ENVELOPE = FIXTURES / "envelope" / DST / "Envelope.tar"
GPI_LS = FIXTURES / "gpi-ls/minecart-v0/GPI-LS.tar"
PCN = FIXTURES / "pcn" / DST / "PCN_model.pt"
GOLDEN = {
    entry["file"]: entry
    for entry in json.loads((FIXTURES / "golden.json").read_text())["checkpoints"]
}
WALK = "py:tests.plugin_examples:walk_then_dive"


def _act(agent, observation, preference) -> np.ndarray:
    agent.reset(1)
    weights = np.asarray([preference], dtype=np.float64)
    return agent.act(np.asarray([observation], dtype=np.float64), weights, np.zeros_like(weights))[
        0
    ]


def _assert_golden_actions(agent, file: str, key: str = "action") -> None:
    for case in GOLDEN[file]["cases"]:
        assert int(_act(agent, case["obs"], case["w"])) == case[key]


# --- import stays light -----------------------------------------------------------------------


def test_import_paretoscope_loads_nothing_heavy_and_the_names_resolve_later() -> None:
    script = (
        "import sys, paretoscope\n"
        "heavy = [name for name in ('torch', 'mujoco', 'streamlit') if name in sys.modules]\n"
        "assert not heavy, heavy\n"
        "import paretoscope.api.sweeping as sweeping\n"
        "assert paretoscope.sweep is sweeping.sweep\n"
        "assert paretoscope.Sweep is sweeping.Sweep\n"
        "assert 'streamlit' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# --- environments -----------------------------------------------------------------------------


def test_list_envs_is_the_registry_and_what_the_cli_lists(capsys) -> None:
    assert paretoscope.list_envs() == list(REGISTRY.names())
    assert cli_main(["envs", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [entry["id"] for entry in listed] == paretoscope.list_envs()


def test_make_env_and_get_spec_are_the_registrys_and_name_close_ids() -> None:
    assert paretoscope.get_spec(DST).n_obj == 2
    env = paretoscope.make_env(DST)
    try:
        _, info = env.reset(seed=0)
        _, reward, *_ = env.step(1)
        assert np.asarray(reward).shape == (2,)
    finally:
        env.close()
    for function in (paretoscope.get_spec, paretoscope.make_env):
        with pytest.raises(ParetoscopeError, match="closest: deep-sea-treasure-v0"):
            function("deep-sea-treasur-v0")


# --- agents -----------------------------------------------------------------------------------


def test_load_agent_reads_a_bundled_checkpoint_as_the_checkpoint_loader_does() -> None:
    config = json.loads((BUNDLED / "config.json").read_text())
    agent = paretoscope.load_agent(BUNDLED)
    assert agent.spec.env_id == config["env_id"] == DST
    same = load(BUNDLED)
    for observation in ([0, 0], [3, 4], [7, 9]):
        for preference in ([1.0, 0.0], [0.5, 0.5], [0.0, 1.0]):
            assert _act(agent, observation, preference) == _act(same, observation, preference)
    with pytest.raises(ParetoscopeError, match="horizon=20 answer an importer's questions"):
        paretoscope.load_agent(BUNDLED, horizon=20)


def test_load_agent_builds_random_and_plugins_for_the_env_named() -> None:
    agent = paretoscope.load_agent("random", env=DST)
    assert isinstance(agent, RandomAgent)
    assert agent.spec.env_id == DST
    plugin = paretoscope.load_agent(WALK, DST)
    # walk_then_dive walks right round(9 * w0) steps, then dives (tests/plugin_examples.py).
    plugin.reset(2)
    observations = np.zeros((2, 2))
    preferences = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert plugin.act(observations, preferences, np.zeros((2, 2))).ravel().tolist() == [3, 1]
    for source in ("random", WALK):
        with pytest.raises(ParetoscopeError, match="name its env id"):
            paretoscope.load_agent(source)
    with pytest.raises(ParetoscopeError, match="closest: deep-sea-treasure-v0"):
        paretoscope.load_agent("random", env="deep-sea-treasur-v0")
    with pytest.raises(ParetoscopeError, match="expected a path"):
        paretoscope.load_agent(42)  # type: ignore[arg-type]


def test_load_agent_imports_a_morl_baselines_file_asking_only_what_it_cannot_read(
    tmp_path: Path,
) -> None:
    # The fixture's path names its env: nothing to ask.
    agent = paretoscope.load_agent(ENVELOPE)
    assert agent.spec.env_id == DST
    _assert_golden_actions(agent, "envelope/deep-sea-treasure-v0/Envelope.tar")
    # The same file where its path says nothing: the env is asked for, by keyword.
    bare = tmp_path / "Envelope.tar"
    shutil.copyfile(ENVELOPE, bare)
    with pytest.raises(ParetoscopeError, match="environment"):
        paretoscope.load_agent(bare)
    agent = paretoscope.load_agent(bare, env=DST)
    assert agent.spec.env_id == DST
    _assert_golden_actions(agent, "envelope/deep-sea-treasure-v0/Envelope.tar")


def test_load_agent_passes_importer_options_and_keeps_untrusted_files_refused() -> None:
    agent = paretoscope.load_agent(GPI_LS, use_gpi=False)
    _assert_golden_actions(agent, "gpi-ls/minecart-v0/GPI-LS.tar", "action_if_use_gpi_false")
    with pytest.raises(ParetoscopeError, match="pickled Python object"):
        paretoscope.load_agent(PCN, horizon=1)


# --- sweep ------------------------------------------------------------------------------------

SETTINGS = {"granularity": 4, "episodes": 2, "seed": 5}


def _cli_evaluate(out: Path, capsys) -> dict:
    argv = ["evaluate", "random", "--env", DST, "--out", str(out), "--json"]
    argv += ["--granularity", "4", "--episodes", "2", "--seed", "5"]
    assert cli_main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_sweep_gives_the_rows_and_the_summary_of_paretoscope_evaluate(
    tmp_path: Path, capsys
) -> None:
    record = _cli_evaluate(tmp_path / "cli", capsys)
    stored = ResultsStore(tmp_path / "cli").read(DST)

    result = paretoscope.sweep("random", DST, progress=False, **SETTINGS)

    assert isinstance(result, paretoscope.Sweep)
    columns = [column for column in result.table.columns if column != "wall_time"]
    assert len(result.table) == len(stored) == 5 * 2
    mine = result.table.sort_values("episode_key")[columns].reset_index(drop=True)
    theirs = stored.sort_values("episode_key")[columns].reset_index(drop=True)
    assert mine.equals(theirs)
    assert result.summary["hypervolume"] == record["hypervolume"]
    for key in ("sparsity", "cardinality", "expected_utility"):
        assert result.summary[key] == record[key]
    assert list(result.summary["reference_point"]) == record["reference_point"]
    # deep-sea-treasure has a known front: measured against it as the CLI does.
    assert result.summary["igd"] == record["known_front"]["igd"]
    max_loss = record["known_front"]["maximum_utility_loss"]
    assert result.summary["maximum_utility_loss"] == max_loss
    assert result.env == DST and result.agent == record["agent"] == "random"
    shown = repr(result)
    assert "deep-sea-treasure-v0" in shown and "rows=10" in shown and "hypervolume=" in shown
    assert "hypervolume" in result._repr_html_()


def test_sweep_with_a_store_reads_the_episodes_stored_there(tmp_path: Path, capsys) -> None:
    _cli_evaluate(tmp_path / "cli", capsys)
    stored = ResultsStore(tmp_path / "cli").read(DST)
    result = paretoscope.sweep("random", DST, store=tmp_path / "cli", progress=False, **SETTINGS)
    # Read, not rolled out again: even the wall times are the stored ones.
    times = stored.set_index("episode_key")["wall_time"]
    assert result.table.set_index("episode_key")["wall_time"].equals(
        times.loc[result.table["episode_key"]]
    )


def test_sweep_takes_an_agent_object_and_its_own_env() -> None:
    agent = paretoscope.load_agent(WALK, DST)
    result = paretoscope.sweep(agent, granularity=2, episodes=1, progress=False)
    assert result.env == DST
    # walk_then_dive walks right round(9 * w0) steps before diving: at w0 = 0 it dives at
    # column 0 onto the first treasure, 0.7, in one step.
    first = result.table.iloc[0]
    assert first["preference_treasure"] == 0.0
    assert first["return_treasure"] == pytest.approx(0.7)
    assert first["return_time"] == -1.0


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"backend": "dask"}, "backend: expected 'local' or 'ray'"),
        ({"granularity": 0}, "granularity: expected at least 1"),
        ({"episodes": 1.5}, "episodes: expected an integer"),
        ({"gamma": 0.0}, "gamma"),
        ({"env": "deep-sea-treasur-v0"}, "closest: deep-sea-treasure-v0"),
        ({"env": "mo-hopper-2obj-v5"}, "n_obj|action space"),
    ],
)
def test_sweep_refuses_bad_settings(keywords: dict, message: str) -> None:
    arguments = {"env": DST, "progress": False, **keywords}
    with pytest.raises(ParetoscopeError, match=message):
        paretoscope.sweep(paretoscope.load_agent("random", DST), **arguments)


def test_sweep_refuses_what_is_no_agent() -> None:
    with pytest.raises(ParetoscopeError, match="expected an agent"):
        paretoscope.sweep(3.5, DST)  # type: ignore[arg-type]


# --- record -----------------------------------------------------------------------------------


def test_record_gives_a_playable_mp4_of_the_episode_a_rollout_plays(tmp_path: Path) -> None:
    recording = paretoscope.record("random", DST, [0.5, 0.5], seed=3, size=(256, 256))
    assert isinstance(recording, paretoscope.Recording)

    rollout = rollout_batch(RandomAgent(DST), DST, np.array([[0.5, 0.5]]), [3])
    np.testing.assert_array_equal(recording.returns, rollout.returns[0])
    assert recording.length == int(rollout.lengths[0])

    frames = iio.imread(recording.mp4, extension=".mp4", index=None)
    # A discrete env is drawn at every step: one frame per step, at the size asked for.
    assert frames.shape == (recording.length, 256, 256, 3)
    assert recording.frames == recording.length

    page = recording._repr_html_()
    assert "<video" in page and "controls" in page
    data = re.search(r"src='data:video/mp4;base64,([A-Za-z0-9+/=]+)'", page)
    assert data is not None and base64.b64decode(data.group(1)) == recording.mp4
    assert "http" not in page

    saved = recording.save(tmp_path / "episode.mp4")
    assert saved.read_bytes() == recording.mp4
    with pytest.raises(ParetoscopeError, match=r"\.mp4"):
        recording.save(tmp_path / "episode.gif")


def test_record_draws_the_frames_paretoscope_render_writes(tmp_path: Path) -> None:
    out = tmp_path / "cli.mp4"
    argv = ["render", "random", "--env", DST, "--preference", "0.3,0.7", "--seed", "2"]
    assert cli_main([*argv, "--size", "128x128", "--out", str(out), "--quiet"]) == 0
    recording = paretoscope.record("random", DST, (0.3, 0.7), seed=2, size=(128, 128))
    mine = iio.imread(recording.mp4, extension=".mp4", index=None)
    theirs = iio.imread(out, index=None)
    np.testing.assert_array_equal(mine, theirs)


class _TargetWalker:
    """Return-conditioned on deep-sea-treasure: walks right as many steps as the treasure
    target says (the treasure target stays whole until the one treasure is collected), then
    dives. Its episode shows which target it was given."""

    spec = {"return_conditioned": True, "preference_in_state": False}

    def __init__(self) -> None:
        self.steps = np.zeros(0, dtype=int)

    def reset(self, batch_size: int) -> None:
        self.steps = np.zeros(batch_size, dtype=int)

    def act(self, observations, preferences, targets):
        walk = np.clip(np.rint(targets[:, 0]), 0, 9).astype(int)
        actions = np.where(self.steps < walk, 3, 1)  # right, down
        self.steps += 1
        return actions

    def initial_target(self, preferences):
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))


def test_record_passes_the_target_to_a_return_conditioned_agent() -> None:
    from paretoscope.agents.plugin import PluginAgent

    agent = PluginAgent("target-walker", _TargetWalker(), DST)
    own = paretoscope.record(agent, DST, [0.5, 0.5], size=(64, 64))
    asked = paretoscope.record(agent, DST, [0.5, 0.5], target=[3.0, -20.0], size=(64, 64))
    separate = rollout_batch(
        agent, DST, np.array([[0.5, 0.5]]), [0], targets=np.array([[3.0, -20.0]])
    )
    np.testing.assert_array_equal(asked.returns, separate.returns[0])
    assert asked.target == (3.0, -20.0) and own.target is None
    # Deep-sea-treasure's map: diving at column 0 finds 0.7 after 1 step; walking 3 right
    # first finds 14.0 at depth 4, after 7 steps.
    np.testing.assert_allclose(own.returns, [0.7, -1.0], rtol=1e-6)
    np.testing.assert_allclose(asked.returns, [14.0, -7.0], rtol=1e-6)
    assert (own.length, asked.length) == (1, 7)
    with pytest.raises(ParetoscopeError, match="target: expected 2 finite numbers"):
        paretoscope.record(agent, None, [0.5, 0.5], target=[1.0, float("nan")])


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"preference": [0.3, 0.8]}, "preference: expected 2 non-negative weights summing to 1"),
        ({"preference": [-0.5, 1.5]}, "preference: expected 2 non-negative weights"),
        ({"preference": [1.0]}, "preference: expected 2 finite numbers"),
        ({"preference": "0.5,0.5"}, "preference: expected 2 finite numbers"),
        ({"target": [1.0, 2.0, 3.0]}, "target: expected 2 finite numbers"),
        ({"size": (0, 64)}, "size: expected width and height between 1"),
        ({"seed": 1.5}, "seed: expected an integer"),
        ({"env": "deep-sea-treasur-v0"}, "closest: deep-sea-treasure-v0"),
    ],
)
def test_record_refuses_bad_inputs(keywords: dict, message: str) -> None:
    arguments = {"env": DST, "preference": [0.5, 0.5], **keywords}
    with pytest.raises(ParetoscopeError, match=message):
        paretoscope.record("random", **arguments)


# A policy class defined in the running program itself (as in a notebook's cell), swept over
# 101 preferences: two batches, more than one worker would take.
_SWEEP_A_CLASS_OF_MAIN = """
import numpy as np
import paretoscope

class Diver:
    def act(self, observations, preferences, targets):
        columns = np.asarray(observations)[:, 1]
        return np.where(columns < np.rint(preferences[:, 0] * 9), 3, 1).astype(np.int64)

def make(env_id):
    return Diver()

diver = paretoscope.load_agent("py:__main__:make", env="deep-sea-treasure-v0")
result = paretoscope.sweep(diver, granularity=100, episodes=1, progress=False)
print(len(result.table), result.summary["cardinality"])
"""


@pytest.mark.slow
def test_an_agent_class_of_the_notebook_itself_sweeps_in_many_batches(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SWEEP_A_CLASS_OF_MAIN],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows, cardinality = (int(value) for value in done.stdout.split())
    assert rows == 101
    # The diver reaches each of the ten treasures (dive column 0..9): all on the front.
    assert cardinality == 10
