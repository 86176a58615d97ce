"""`paretoscope demo build`: the QUICK recipe end to end, skipping, resuming, changed settings."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents import Agent, load
from paretoscope.catalog import discover_assets
from paretoscope.cli import main
from paretoscope.data import open_native
from paretoscope.demo import QUICK, build_demo, demo_status, morlb_training
from paretoscope.demo.ledger import LEDGER_FILE
from paretoscope.demo.manifest import TABLE_HEADER, folder_size, human_size
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import DemoBuildSettings
from tests.brute_force import hypervolume_2d


def quiet(_: str) -> None:
    return None


def only(*steps: str) -> DemoBuildSettings:
    return DemoBuildSettings(steps=steps)


FIXTURE_ENVELOPE = (
    Path(__file__).parent
    / "fixtures"
    / "morl-baselines"
    / "envelope"
    / "deep-sea-treasure-v0"
    / "Envelope.tar"
)


def saved_by_morl_baselines(algorithm: str, env_id: str, folder: Path, **_: object) -> Path:
    """Stands in for MORL-Baselines' training where it is not installed (it is a build-time
    extra, not a test dependency): the file its own Envelope.save wrote for the fixtures."""
    assert (algorithm, env_id) == ("envelope", "deep-sea-treasure-v0")
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copyfile(FIXTURE_ENVELOPE, folder / "Envelope.tar"))


@contextlib.contextmanager
def morl_baselines_or_its_file() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        if importlib.util.find_spec("morl_baselines") is None:
            patch.setattr(morlb_training, "train_with_morl_baselines", saved_by_morl_baselines)
        yield


@pytest.fixture(autouse=True)
def _morl_baselines_everywhere() -> Iterator[None]:
    with morl_baselines_or_its_file():
        yield


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One QUICK build shared by the tests (each test that changes it works on a copy)."""
    out = tmp_path_factory.mktemp("demo") / "assets"
    with morl_baselines_or_its_file():
        report = build_demo(out, QUICK, progress=False, log=quiet)
    assert report.count("built") == len(report.outcomes)
    return out


def copy_of(built: Path, tmp_path: Path) -> Path:
    target = tmp_path / "assets"
    shutil.copytree(built, target)
    return target


def ledger(out: Path) -> dict:
    return json.loads((out / LEDGER_FILE).read_text(encoding="utf-8"))["steps"]


def test_quick_build_makes_every_artefact(built: Path) -> None:
    catalog = discover_assets(built)
    assert catalog.problems == ()
    expected_agents = (
        {env.behaviour_name for env in QUICK.envs}
        | {env.agent_name(agent) for env in QUICK.envs for agent in env.agents}
        | {env.run_name(run) for env in QUICK.envs for run in env.runs}
        | {imported.name for imported in QUICK.morlb}
    )
    expected_datasets = {env.dataset_name(d) for env in QUICK.envs for d in env.datasets}
    assert {agent.name for agent in catalog.agents} == expected_agents
    assert {dataset.name for dataset in catalog.datasets} == expected_datasets
    assert catalog.results_dirs == (built / "results",)
    # Finished offline agents keep their run record but not their optimizer state (size).
    for env in QUICK.envs:
        for agent in env.agents:
            training = built / "agents" / env.agent_name(agent) / "training"
            assert (training / "run.json").is_file()
            assert not (training / "state.pt").exists()
    # Each agent's sweep plan comes from the manifest, as the recipe says.
    for env in QUICK.envs:
        for agent in catalog.agents_for(env.env_id):
            assert agent.sweep_plan() == env.sweep


def test_quick_build_bundles_a_training_run_with_every_snapshot_swept(built: Path) -> None:
    """A run keeps the agent every N steps and at the end, and every snapshot's sweep is stored
    (under the name `paretoscope evaluate RUN` gives it), so the Training page reads it."""
    from paretoscope.results_store import ResultsStore

    runs = [(env, run) for env in QUICK.envs for run in env.runs]
    assert runs, "the quick recipe bundles no training run"
    catalog = discover_assets(built)
    for env, run in runs:
        asset = catalog.agent(env.run_name(run))
        assert asset.is_run
        every = run.settings.snapshot_every
        assert every is not None
        assert list(asset.steps) == list(range(every, run.settings.steps + 1, every))
        stored = ResultsStore(built / "results").read(env.env_id)
        named = {str(name) for name in stored["agent"].unique()}
        swept = {name for name in named if name.startswith(f"{asset.name}@")}
        assert swept == {f"{asset.name}@step={step}" for step in asset.steps}
        episodes_per_step = len(env.sweep.seeds) * (env.sweep.granularity + 1)  # two objectives
        for name in swept:
            assert (stored["agent"] == name).sum() == episodes_per_step, name
        manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
        figures = manifest["agents"][asset.name]["figures"]
        assert [row["step"] for row in figures["by_step"]] == list(asset.steps)
        assert "--snapshot-every" in manifest["agents"][asset.name]["command"]


def discounted_returns(agent: Agent, preference: np.ndarray, gamma: float) -> np.ndarray:
    """One episode of `agent` in MO-Gymnasium's own env, stepped here, discounted by hand."""
    import mo_gymnasium

    env = mo_gymnasium.make("deep-sea-treasure-v0")
    observation, _ = env.reset(seed=0)
    agent.reset(1)
    total, factor = np.zeros(2), 1.0
    for _ in range(get_spec("deep-sea-treasure-v0").horizon):
        action = agent.act(observation[None], preference[None], np.zeros((1, 2)))[0]
        observation, reward, terminated, truncated, _ = env.step(int(action))
        total += factor * np.asarray(reward, dtype=np.float64)
        factor *= gamma
        if terminated or truncated:
            break
    return total


def test_the_morl_baselines_agent_is_imported_and_measured_against_the_known_front(
    built: Path, tmp_path: Path
) -> None:
    import mo_gymnasium

    (imported,) = QUICK.morlb
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["agents"][imported.name]
    assert (entry["env"], entry["kind"]) == ("deep-sea-treasure-v0", "envelope")
    # The recorded command imports the file MORL-Baselines saved into the same agent.
    command = shlex.split(entry["command"])
    assert command[:3] == ["paretoscope", "agent", "import"]
    command[command.index("--out") + 1] = str(tmp_path / "again")
    assert main(command[1:]) == 0
    agent = load(built / "agents" / imported.name)
    assert load(tmp_path / "again").fingerprint() == agent.fingerprint()
    # The known front is MO-Gymnasium's own, its hypervolume a brute-force one.
    figures = entry["figures"]["known_front"]
    gamma = imported.front_gamma
    front = np.asarray(mo_gymnasium.make("deep-sea-treasure-v0").unwrapped.pareto_front(gamma))
    reference = np.asarray(get_spec("deep-sea-treasure-v0").reference_point)
    assert figures["gamma"] == gamma and figures["known_points"] == len(front)
    assert figures["known_front_hypervolume"] == pytest.approx(hypervolume_2d(front, reference))
    # The agent's own points, from episodes stepped here at every grid preference.
    grid = [np.array([w, 1 - w]) for w in np.linspace(0, 1, imported.sweep.granularity + 1)]
    points = np.array([discounted_returns(agent, w, gamma) for w in grid])
    assert figures["hypervolume"] == pytest.approx(hypervolume_2d(points, reference))
    assert figures["fraction_of_known_front"] == pytest.approx(
        figures["hypervolume"] / figures["known_front_hypervolume"]
    )
    reached = sum(any(np.allclose(p, known, atol=1e-6) for p in points) for known in front)
    assert figures["known_points_reached"] == reached
    check = next(q for q in manifest["quality"] if q["artefact"] == imported.name)
    assert check["value"] == figures["fraction_of_known_front"]
    assert check["met"] == (check["value"] >= QUICK.targets.min_known_front_fraction)


def test_a_morl_baselines_agent_without_a_known_front_is_reported_not_checked(
    tmp_path: Path,
) -> None:
    # Like the full recipe's CAPQL on a MuJoCo task: no known front, the library's file dropped.
    (imported,) = QUICK.morlb
    unmeasured = replace(imported, front_gamma=None, keep_saved_file=False)
    recipe = replace(QUICK, name="quick-no-front", envs=QUICK.envs[:1], morlb=(unmeasured,))
    out = tmp_path / "assets"
    report = build_demo(out, recipe, progress=False, log=quiet)
    assert report.count("built") == len(report.outcomes)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["agents"][imported.name]
    assert "known_front" not in entry["figures"] and "known front" not in entry["description"]
    assert entry["figures"]["hypervolume"] > 0  # its undiscounted sweep is still measured
    assert all(check["artefact"] != imported.name for check in manifest["quality"])
    folder = out / "agents" / imported.name
    assert (folder / "config.json").is_file()
    assert not list((folder / "training").glob("*.tar"))  # imported, then not kept
    assert load(folder).fingerprint()  # the imported agent loads without the file


def test_manifest_lists_provenance_sizes_and_figures(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    for section in ("agents", "datasets"):
        for name, entry in manifest[section].items():
            path = built / section / name
            assert entry["size_bytes"] == folder_size(path) > 0, name
            assert re.fullmatch(r"[0-9a-f]{40}|unknown", entry["commit"]), name
            assert entry["command"].startswith("paretoscope "), name
            assert isinstance(entry["seed"], int)
            assert entry["figures"], name
    for env in QUICK.envs:
        behaviour = manifest["agents"][env.behaviour_name]["figures"]
        members = behaviour["members"]
        assert behaviour["non_dominated_members"] == sum(m["non_dominated"] for m in members)
        for agent in env.agents:
            figures = manifest["agents"][env.agent_name(agent)]["figures"]
            # The fraction is the ratio of the two hypervolumes stored beside it.
            if behaviour["hypervolume"]:
                assert figures["hypervolume_fraction_of_behaviour"] == pytest.approx(
                    figures["hypervolume"] / behaviour["hypervolume"]
                )
            assert ("rtg_weighted_error" in figures) == (agent.kind != "bc")
        assert "rtg_weighted_error" not in behaviour  # a policy set ignores targets
    # Every quality target is reported, met or not.
    assert manifest["quality"] and all(isinstance(q["met"], bool) for q in manifest["quality"])


def test_the_manifest_command_rebuilds_the_behaviour_set(built: Path, tmp_path: Path) -> None:
    # The recorded command line, run by hand, trains the same policy set (same run.json,
    # same members); the Hopper entry exercises --transfer-every and --survival-bonus.
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    for env in QUICK.envs:
        command = shlex.split(manifest["agents"][env.behaviour_name]["command"])
        out = command.index("--out") + 1
        command[out] = str(tmp_path / env.behaviour_name)
        assert command[0] == "paretoscope" and main([*command[1:], "--quiet"]) == 0
        made, built_dir = tmp_path / env.behaviour_name, built / "agents" / env.behaviour_name
        run_file = Path("training") / "run.json"
        assert json.loads((made / run_file).read_text()) == json.loads(
            (built_dir / run_file).read_text()
        )
        assert load(made).fingerprint() == load(built_dir).fingerprint()


def test_the_manifest_command_retrains_the_same_offline_agent(built: Path, tmp_path: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    env = QUICK.envs[0]
    for agent in env.agents:
        name = env.agent_name(agent)
        command = shlex.split(manifest["agents"][name]["command"])
        command[command.index("--out") + 1] = str(tmp_path / name)
        assert main([*command[1:], "--quiet"]) == 0
        assert load(tmp_path / name).fingerprint() == load(built / "agents" / name).fingerprint()


def test_the_manifest_command_recollects_the_same_datasets(built: Path, tmp_path: Path) -> None:
    # The Hopper expert set carries action noise: its command must say so to give the same data.
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    hopper = next(env for env in QUICK.envs if env.short_name == "hopper")
    assert any(dataset.action_noise for dataset in hopper.datasets)
    for dataset in hopper.datasets:
        name = hopper.dataset_name(dataset)
        command = shlex.split(manifest["datasets"][name]["command"])
        assert ("--action-noise" in command) == bool(dataset.action_noise)
        label = manifest["datasets"][name]["label"]
        assert ("with action noise 0.05" in label) == bool(dataset.action_noise)
        command[command.index("--out") + 1] = str(tmp_path / name)
        assert main(command[1:]) == 0
        made, bundled = open_native(tmp_path / name), open_native(built / "datasets" / name)
        for field in ("observations", "actions", "raw_rewards", "preferences", "offsets"):
            np.testing.assert_array_equal(getattr(made, field), getattr(bundled, field))
        assert made.info.extra.get("action_noise", 0.0) == dataset.action_noise


def test_readme_table_matches_manifest(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    lines = (built / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(TABLE_HEADER) + 2
    rows = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        rows[cells[0].strip("`").rstrip("/")] = cells
    for section in ("agents", "datasets"):
        for entry in manifest[section].values():
            cells = rows.pop(entry["path"])
            assert cells[3] == human_size(entry["size_bytes"])
            assert cells[4] == str(entry["seed"])
            assert entry["commit"].startswith(cells[5])
            assert cells[6] == f"`{entry['command']}`"
    assert set(rows) == {entry["path"] for entry in manifest["results"].values()}


def test_second_run_skips_every_step_and_rewrites_nothing(built: Path, tmp_path: Path) -> None:
    out = copy_of(built, tmp_path)
    before = {path: path.stat().st_mtime_ns for path in out.rglob("*") if path.is_file()}
    report = build_demo(out, QUICK, progress=False, log=quiet)
    assert {outcome.status for outcome in report.outcomes} == {"skipped"}
    after = {path: path.stat().st_mtime_ns for path in out.rglob("*") if path.is_file()}
    assert after == before
    assert all(line.startswith("done") for line in demo_status(out, QUICK))


def test_interrupted_run_resumes_with_only_what_is_missing(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The state of a build stopped after the agents: no sweeps, no manifest.
    out = copy_of(built, tmp_path)
    shutil.rmtree(out / "results")
    (out / "manifest.json").unlink()
    steps = ledger(out)
    for step_id in [s for s in steps if s.startswith("sweep:") or s == "manifest"]:
        del steps[step_id]
    (out / LEDGER_FILE).write_text(json.dumps({"format": "paretoscope-demo-ledger",
                                               "version": 1, "steps": steps}))  # fmt: skip

    import paretoscope.evaluate

    real_sweep = paretoscope.evaluate.sweep
    calls: list[str] = []

    def sweep_then_stop(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(str(kwargs["agent_id"]))
        if kwargs["agent_id"] == "halfcheetah-bc":
            raise KeyboardInterrupt
        return real_sweep(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(paretoscope.evaluate, "sweep", sweep_then_stop)
    with pytest.raises(KeyboardInterrupt):
        build_demo(out, QUICK, progress=False, log=quiet)
    done = set(ledger(out))
    assert {"sweep:halfcheetah-behaviour", "sweep:halfcheetah-morvs"} <= done
    assert "sweep:halfcheetah-bc" not in done and "manifest" not in done

    monkeypatch.setattr(paretoscope.evaluate, "sweep", real_sweep)
    report = build_demo(out, QUICK, progress=False, log=quiet)
    status = {outcome.id: outcome.status for outcome in report.outcomes}
    assert status["sweep:halfcheetah-behaviour"] == status["sweep:halfcheetah-morvs"] == "skipped"
    assert status["sweep:halfcheetah-bc"] == "built" and status["manifest"] == "built"
    assert all(state == "skipped" for step, state in status.items()
               if step.split(":")[0] in ("behaviour", "dataset", "agent"))  # fmt: skip
    assert discover_assets(out).problems == ()
    # The resumed build's figures equal those of the uninterrupted one.
    original = json.loads((built / "manifest.json").read_text())["agents"]
    resumed = json.loads((out / "manifest.json").read_text())["agents"]
    for name, entry in original.items():
        assert resumed[name]["figures"] == entry["figures"], name


def test_changed_settings_are_refused_or_continued(built: Path, tmp_path: Path) -> None:
    out = copy_of(built, tmp_path)
    cheetah = QUICK.envs[0]
    # A dataset with more episodes cannot be continued from the collected one: refused.
    datasets = (replace(cheetah.datasets[0], episodes=7), *cheetah.datasets[1:])
    changed = replace(QUICK, envs=(replace(cheetah, datasets=datasets), *QUICK.envs[1:]))
    with pytest.raises(ParetoscopeError, match=r"dataset:halfcheetah-expert-uniform.*episodes"):
        build_demo(out, changed, only("datasets"), progress=False, log=quiet)

    # More training steps for an agent whose optimizer state was dropped: trained again.
    morvs = cheetah.agents[0]
    longer_training = replace(morvs.settings, steps=morvs.settings.steps + 5)
    agents = (replace(morvs, settings=longer_training), *cheetah.agents[1:])
    changed = replace(QUICK, envs=(replace(cheetah, agents=agents), *QUICK.envs[1:]))
    report = build_demo(out, changed, only("agents", "sweeps"), progress=False, log=quiet)
    status = {outcome.id: outcome.status for outcome in report.outcomes}
    assert status["agent:halfcheetah-morvs"] == "continued"
    assert status["sweep:halfcheetah-morvs"] == "continued"  # a new agent: its episodes added
    assert status["agent:halfcheetah-bc"] == status["sweep:halfcheetah-bc"] == "skipped"
    config = json.loads((out / "agents" / "halfcheetah-morvs" / "config.json").read_text())
    assert config["training"]["steps"] == morvs.settings.steps + 5

    # A larger ARS budget continues the behaviour set ...
    longer = replace(cheetah.behaviour, iterations=cheetah.behaviour.iterations + 1)
    changed = replace(QUICK, envs=(replace(cheetah, behaviour=longer), *QUICK.envs[1:]))
    report = build_demo(out, changed, only("behaviour"), progress=False, log=quiet)
    assert report.outcomes[0].status == "continued"
    assert report.outcomes[1].status == "skipped"  # the Hopper set did not change
    # ... and the datasets collected from the old policies are then out of date: refused.
    with pytest.raises(ParetoscopeError, match="agent_fingerprint"):
        build_demo(out, changed, only("datasets"), progress=False, log=quiet)
    assert any(line.startswith("changed") for line in demo_status(out, changed))


def test_cli_rejects_unknown_steps(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "build", "--quick", "--out", str(built), "--steps", "bogus"]) == 2
    assert "unknown step bogus" in capsys.readouterr().err
    assert main(["demo", "status", "--quick", "--out", str(built)]) == 0
    assert "done" in capsys.readouterr().out


def test_env_filter_builds_one_env_and_names_unknown_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "assets"
    cheetah = QUICK.envs[0]
    chosen = DemoBuildSettings(steps=("behaviour", "datasets"), envs=(cheetah.env_id,))
    report = build_demo(out, QUICK, chosen, progress=False, log=quiet)
    assert [outcome.id for outcome in report.outcomes] == [
        f"behaviour:{cheetah.behaviour_name}",
        *(f"dataset:{cheetah.dataset_name(dataset)}" for dataset in cheetah.datasets),
    ]
    assert {path.name for path in (out / "agents").iterdir()} == {cheetah.behaviour_name}
    assert main(["demo", "build", "--quick", "--out", str(out), "--env", "MO-Ant-v9"]) == 2
    assert "no MO-Ant-v9" in capsys.readouterr().err


def test_offline_agents_are_swept_on_seeds_no_dataset_episode_started_from(built: Path) -> None:
    from paretoscope.data.sources import open_dataset
    from paretoscope.envs import make_env

    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    for env in QUICK.envs:
        # Independent of how collection draws its seeds: a dataset episode started from seed s
        # would begin with the observation reset(seed=s) gives.
        starts = [
            trajectory.observations[0]
            for dataset in env.datasets
            for trajectory in open_dataset(built / "datasets" / env.dataset_name(dataset))
        ]
        environment = make_env(env.env_id)
        reused = [
            seed
            for seed in env.sweep.seeds
            if any(np.array_equal(environment.reset(seed=seed)[0], start) for start in starts)
        ]
        for agent in env.agents:
            figures = manifest["agents"][env.agent_name(agent)]["figures"]
            assert figures["held_out_seeds"] is (not reused)
        assert not reused


def test_member_count_targets_count_non_dominated_members_of_the_kept_set() -> None:
    """Hopper needs 13 non-dominated members and at most 2 dominated: a set thinned by dropping
    to 12 members, all non-dominated, still misses; 15 with 13 non-dominated meets it."""
    from paretoscope.demo.figures import quality_checks
    from paretoscope.demo.recipe import FULL

    hopper = FULL.env("MO-Hopper-v3")

    def member_check(total: int, non_dominated: int) -> tuple[str, bool]:
        members = [{"non_dominated": i < non_dominated} for i in range(total)]
        figures = {
            hopper.behaviour_name: {"members": members, "non_dominated_members": non_dominated}
        }
        (check,) = [
            c for c in quality_checks(FULL, figures)
            if c.artefact == hopper.behaviour_name and "non-dominated" in c.target
        ]  # fmt: skip
        return check.target, check.met

    assert member_check(15, 13) == ("at least 13 members non-dominated (of 15)", True)
    assert member_check(15, 12) == ("at least 13 members non-dominated (of 15)", False)
    assert member_check(12, 12) == ("at least 13 members non-dominated (of 12)", False)
    assert member_check(17, 14) == ("at least 15 members non-dominated (of 17)", False)
    assert member_check(17, 15) == ("at least 15 members non-dominated (of 17)", True)
