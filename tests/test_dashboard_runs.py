"""The Training page and Compare's training curves, driven with Streamlit's AppTest on run
folders written as each trainer writes them (`tests.run_fixtures`).

What the page shows is checked against independent computations: every snapshot loaded with
`paretoscope.runs.run.open_run(...).load(...)` and swept with `paretoscope.evaluate.sweep`
directly, the
hypervolume and expected utility of each step's mean front by brute force, PEDA's fronts read
back from the pickled logs the fixture wrote, a rollout of the chosen snapshot run with core."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.envs import get_spec
from paretoscope.runs.fronts import STEP_COLUMN, step_metrics
from paretoscope.runs.run import open_run
from tests.apptests import (
    captions,
    episode_returns,
    episode_videos,
    open_app,
    page_ok,
    plotly_array,
    plotly_chart,
    served_files,
)
from tests.brute_force import hypervolume_2d
from tests.run_fixtures import envelope_run, peda_run, policy_set_run, rollout_log

DST = "deep-sea-treasure-v0"
CHEETAH = "MO-HalfCheetah-v2"
SWIMMER = "MO-Swimmer-v2"
STEPS = [100, 200, 300]
# Far enough below every step's returns that each step's front has a hypervolume.
REFERENCE = (0.0, -200.0)

pytestmark = pytest.mark.slow


def _assets(root: Path) -> Path:
    """An assets folder holding one MORL-Baselines run on deep-sea-treasure (`DST`)."""
    envelope_run(root / "agents", steps=STEPS)
    return root


@pytest.fixture(scope="module")
def dst_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _assets(tmp_path_factory.mktemp("runs"))


@pytest.fixture
def on_dst(dst_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(dst_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    yield dst_assets


def _training(query: dict[str, str] | None = None):  # noqa: ANN202 - an AppTest
    at = open_app({"env": DST, **(query or {})})
    at.switch_page("views/training.py").run()
    return at


def _independent_sweeps(run_folder: Path, steps: list[int] | None = None) -> pd.DataFrame:
    """Each snapshot (of `steps`, default all) loaded by core and swept on the default plan
    (granularity 20, seed 0, the env's horizon), with its step: no dashboard code involved."""
    from paretoscope.agents.importers import ImportAnswers
    from paretoscope.evaluate import sweep
    from paretoscope.settings import SweepSettings

    run = open_run(run_folder)
    tables = []
    for step in run.steps if steps is None else steps:
        agent = run.load(run.snapshot(step), ImportAnswers(env_id=DST))
        settings = SweepSettings(granularity=20, seeds=[0], workers=1)
        table = sweep(agent, DST, settings, progress=False)
        tables.append(table.assign(**{STEP_COLUMN: step}))
    return pd.concat(tables, ignore_index=True)


def _means(table: pd.DataFrame, step: int) -> tuple[np.ndarray, np.ndarray]:
    """(preferences, mean returns) per preference of one step's episodes."""
    rows = table[table[STEP_COLUMN] == step]
    grouped = rows.groupby(["preference_treasure", "preference_time"], sort=True)
    means = grouped[["return_treasure", "return_time"]].mean()
    return np.asarray(list(means.index)), means.to_numpy()


def _expected_utility(points: np.ndarray, weights: np.ndarray) -> float:
    return float(np.mean([max(float(w @ p) for p in points) for w in weights]))


def _front_points(at, step: int) -> np.ndarray:  # noqa: ANN001
    """The points the front figure draws for `step` (undominated and dominated traces)."""
    figure = plotly_chart(at, "train_front")
    traces = [
        t for t in figure["data"] if t["name"] in (f"step {step}", f"step {step} (dominated)")
    ]
    return np.vstack(
        [np.column_stack([plotly_array(t["x"]), plotly_array(t["y"])]) for t in traces]
    )


def _undominated_drawn(at, step: int) -> int:  # noqa: ANN001
    """How many distinct undominated points the front figure draws for `step`."""
    (trace,) = [t for t in plotly_chart(at, "train_front")["data"] if t["name"] == f"step {step}"]
    points = np.column_stack([plotly_array(trace["x"]), plotly_array(trace["y"])])
    return len(np.unique(points, axis=0))


def _shown_step(at) -> int:  # noqa: ANN001
    """The step whose front the page draws (its figure's title, "Front at step N")."""
    title = plotly_chart(at, "train_front")["layout"]["title"]["text"]
    return int(title.removeprefix("Front at step "))


def _steps(at) -> list[int]:  # noqa: ANN001
    """The steps the scrubber offers."""
    return [int(step) for step in at.select_slider(key="train_step").options]


def _shown_metrics(at) -> pd.DataFrame:  # noqa: ANN001
    """The hypervolume and expected utility over the steps, as the metrics chart draws them."""
    from paretoscope.figures.training import METRICS

    columns = {}
    for trace in plotly_chart(at, "train_metrics")["data"]:
        for column, name in METRICS.items():
            if trace["name"] == name:  # the line, not the marker of the step shown
                columns[STEP_COLUMN] = plotly_array(trace["x"])
                columns[column] = plotly_array(trace["y"])
    return pd.DataFrame(columns)


_VIDEO_CAPTION = re.compile(
    r"Step (?P<step>\d+), preference (?P<preference>.+?), seed (?P<seed>\d+) → return .+"
)


# The caption under the evolution's download: its pace.
_EXPORT_PACE = re.compile(
    r"One step every (?P<every>[\d.]+) s \((?P<steps>\d+) steps\), the last held (?P<hold>[\d.]+) s"
)


def _shown_video(at) -> tuple[int, list[float], int]:  # noqa: ANN001
    """(step, preference, seed) of the episode the page plays, as the caption under it says."""
    (caption,) = [m for text in captions(at) if (m := _VIDEO_CAPTION.fullmatch(text))]
    preference = [float(part.rsplit(" ", 1)[1]) for part in caption["preference"].split(", ")]
    return int(caption["step"]), preference, int(caption["seed"])


def _same_rows(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_allclose(np.unique(a, axis=0), np.unique(b, axis=0), rtol=1e-12)


# --- the Training page ----------------------------------------------------------------------


def test_each_steps_front_and_metrics_equal_an_independent_sweep(on_dst: Path) -> None:
    at = _training()
    page_ok(at)
    assert list(at.select_slider(key="train_step").options) == [str(step) for step in STEPS]
    assert at.select_slider(key="train_step").value == STEPS[-1]  # the last step by default
    assert _shown_step(at) == STEPS[-1]
    # The sidebar's reference point is the one the metrics use.
    at.number_input(key="ref_1").set_value(REFERENCE[1]).run()
    page_ok(at)
    shown = _shown_metrics(at)
    episodes = _independent_sweeps(on_dst / "agents" / DST)
    expected = step_metrics(episodes, DST, reference_point=REFERENCE)
    assert list(shown[STEP_COLUMN]) == STEPS
    for column in ("hypervolume", "expected_utility"):
        np.testing.assert_allclose(shown[column], expected[column], rtol=1e-9)
    cardinality = dict(zip(expected[STEP_COLUMN], expected["cardinality"], strict=True))
    volumes = []
    for step in STEPS:
        preferences, means = _means(episodes, step)
        row = shown[shown[STEP_COLUMN] == step].iloc[0]
        assert row["hypervolume"] == pytest.approx(hypervolume_2d(means, REFERENCE))
        assert row["expected_utility"] == pytest.approx(_expected_utility(means, preferences))
        volumes.append(row["hypervolume"])
    assert len(set(volumes)) > 1, "the fixture's steps differ"

    # The drawn front follows the scrubber: each step's own mean returns, as many of them
    # undominated as the step's cardinality.
    _same_rows(_front_points(at, 300), _means(episodes, 300)[1])
    assert _undominated_drawn(at, 300) == cardinality[300]
    at.select_slider(key="train_step").set_value(200).run()
    page_ok(at)
    assert _shown_step(at) == 200 and _undominated_drawn(at, 200) == cardinality[200]
    at.select_slider(key="train_step").set_value(100).run()
    page_ok(at)
    assert _shown_step(at) == 100
    _same_rows(_front_points(at, 100), _means(episodes, 100)[1])
    assert _undominated_drawn(at, 100) == cardinality[100]
    figure = plotly_chart(at, "train_front")
    later = ("step 200", "step 300", "step 200 (dominated)", "step 300 (dominated)")
    assert not [t for t in figure["data"] if t["name"] in later]  # none later
    assert at.query_params["step"] in ("100", ["100"])
    # At the last step the earlier fronts are drawn behind it, the older one fainter, on axes
    # that stay the same from step to step.
    ranges = (figure["layout"]["xaxis"]["range"], figure["layout"]["yaxis"]["range"])
    at.select_slider(key="train_step").set_value(300).run()
    figure = plotly_chart(at, "train_front")
    older = {
        t["name"]: t["opacity"] for t in figure["data"] if t["name"] in ("step 100", "step 200")
    }
    assert older["step 100"] < older["step 200"] < 1.0
    assert (figure["layout"]["xaxis"]["range"], figure["layout"]["yaxis"]["range"]) == ranges


def test_play_moves_through_the_steps_then_the_agent_of_the_last_step_plays(
    on_dst: Path,
) -> None:
    from paretoscope.rollout import rollout_batch

    at = _training()
    at.button(key="train_play").click().run()  # at the last step: starts from the first
    page_ok(at)
    assert _shown_step(at) == 100
    assert any(button.label == "Pause" for button in at.button)
    seen = []
    for _ in range(3):
        at.run()  # what each tick of the timer does
        seen.append(_shown_step(at))
    assert seen == [200, 300, 300]
    page_ok(at)
    assert any(button.label == "Play" for button in at.button)  # stopped at the last step
    assert "The agent at step 300" in [header.value for header in at.subheader]
    assert episode_videos(at), "the agent of the last step plays"
    step, preference, seed = _shown_video(at)
    assert step == 300
    run = open_run(on_dst / "agents" / DST)
    direct = rollout_batch(
        run.load(run.snapshot(300)),
        DST,
        np.asarray([preference]),
        [seed],
        horizon=get_spec(DST).horizon,
    )
    np.testing.assert_allclose(episode_returns(at, "train_video"), direct.returns[0], rtol=1e-12)


def test_the_evolution_exports_as_one_mp4_with_a_frame_per_step(
    on_dst: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.apptests import video_frames

    served = served_files(monkeypatch)
    at = _training()
    assert not [b for b in at.get("download_button") if b.label == "Download the evolution MP4"]
    at.button(key="train_export").click().run()
    page_ok(at)
    (button,) = [b for b in at.get("download_button") if b.label == "Download the evolution MP4"]
    frames = video_frames(served[button.proto.url])  # what the button downloads
    # The pace the caption under the button gives: a step every `every` s, the last held.
    (pace,) = [match for text in captions(at) if (match := _EXPORT_PACE.match(text))]
    every, count, hold = float(pace["every"]), int(pace["steps"]), float(pace["hold"])
    assert count == len(STEPS)
    held = round(hold / every)
    assert len(frames) == len(STEPS) + held  # one per step, then the last step held
    assert frames[0].shape == (540, 960, 3)
    # Each step its own picture (the fronts differ), the held frames the last step's.
    steps = [frame.astype(int) for frame in frames[: len(STEPS)]]
    assert all(np.abs(a - b).mean() > 0.1 for a, b in zip(steps, steps[1:], strict=False))
    assert all(np.abs(frame.astype(int) - steps[-1]).mean() < 1.0 for frame in frames[-held:])


def test_the_link_chooses_the_step_and_a_wrong_one_is_noted(on_dst: Path) -> None:
    at = _training({"step": "200"})
    page_ok(at)
    assert _shown_step(at) == 200
    at = _training({"step": "250"})
    page_ok(at)
    assert _shown_step(at) == 300
    notes = " ".join(warning.value for warning in at.warning)
    assert "step=" in notes and "no step 250 in this run" in notes, notes


def test_a_single_agent_is_explained_and_the_envs_runs_offered(on_dst: Path) -> None:
    at = _training({"agent": "random"})
    page_ok(at)
    assert any("not a training run" in info.value for info in at.info)
    assert "--snapshot-every" in " ".join(caption.value for caption in at.caption)
    at.button(key=f"train_open_{DST}").click().run()
    page_ok(at)
    assert at.selectbox(key="agent").value == DST
    assert _steps(at) == STEPS


def test_a_corrupt_snapshot_is_skipped_with_a_notice_and_the_rest_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    assets = _assets(tmp_path / "assets")
    folder = assets / "agents" / DST
    # One file cut short (its reader leaves it out), one whose first layer does not fit the env
    # (read, then refused when loaded).
    truncated = folder / "Envelope step=200.tar"
    truncated.write_bytes(truncated.read_bytes()[:500])
    misfit = folder / "Envelope step=300.tar"
    content = torch.load(misfit, weights_only=True)
    content["q_net_state_dict"]["net.0.weight"] = torch.zeros(64, 3)
    torch.save(content, misfit)
    envelope_run(tmp_path / "more", steps=(400,))
    shutil.copy(tmp_path / "more" / DST / "Envelope step=400.tar", folder)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = _training()
    page_ok(at)
    warnings = [warning.value for warning in at.warning]
    assert any("Envelope step=200.tar" in text for text in warnings), warnings
    assert any("Envelope step=300.tar" in text and "skipped" in text for text in warnings)
    assert _steps(at) == [100, 400]
    shown = _shown_metrics(at)
    episodes = _independent_sweeps(folder, [100, 400])
    expected = step_metrics(episodes, DST)
    np.testing.assert_allclose(shown["hypervolume"], expected["hypervolume"], rtol=1e-9)
    _same_rows(_front_points(at, 400), _means(episodes, 400)[1])


def test_a_run_mixing_architectures_names_the_odd_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assets = _assets(tmp_path / "assets")
    mixed = assets / "agents" / "swimmer-run"
    policy_set_run(mixed, steps=(10, 20))
    policy_set_run(mixed, steps=(30,), members=4)  # another experiment's snapshot
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = _training()
    page_ok(at)
    (warning,) = [w.value for w in at.warning if "swimmer-run" in w.value]
    assert "mixes architectures" in warning and "step=30" in warning, warning
    assert "step=10" not in warning and "step=20" not in warning
    # The sidebar's list of unreadable entries says it too.
    captions = " ".join(caption.value for caption in at.sidebar.caption)
    assert "step=30" in captions, captions
    assert _steps(at) == STEPS  # the other run is shown


def test_a_run_evaluated_on_the_command_line_is_read_not_recomputed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paretoscope.evaluate
    from paretoscope.cli import main
    from paretoscope.results_store import ResultsStore

    assets = tmp_path / "assets"
    run = policy_set_run(assets / "agents" / "swim-run", env_id=SWIMMER, steps=(10, 20, 30))
    plan = {"granularity": 2, "seeds": [0], "horizon": 5}
    (assets / "manifest.json").write_text(json.dumps({"sweep": plan}))
    command = ["evaluate", str(run), "--env", SWIMMER, "--granularity", "2", "--horizon", "5"]
    assert main([*command, "--workers", "1", "--out", str(assets / "results")]) == 0
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app({"env": SWIMMER})
    page_ok(at)
    simulated: list[object] = []
    monkeypatch.setattr(
        paretoscope.evaluate, "evaluate_batch", lambda *args: simulated.append(args)
    )
    at.switch_page("views/training.py").run()
    page_ok(at)
    assert not simulated, "every episode was read from the command line's results"
    assert _steps(at) == [10, 20, 30]
    stored = ResultsStore(assets / "results").read(SWIMMER)
    stored[STEP_COLUMN] = stored["agent"].str.rsplit("step=", n=1).str[1].astype(int)
    expected = step_metrics(stored, SWIMMER)
    shown = _shown_metrics(at)
    for column in (STEP_COLUMN, "hypervolume", "expected_utility"):
        np.testing.assert_allclose(shown[column], expected[column], rtol=1e-12)
    # Each step's front: the mean returns of exactly the stored episodes of that step.
    names = get_spec(SWIMMER).objective_names
    for step in (10, 20, 30):
        at.select_slider(key="train_step").set_value(step).run()
        page_ok(at)
        rows = stored[stored[STEP_COLUMN] == step]
        means = rows.groupby([f"preference_{name}" for name in names])[
            [f"return_{name}" for name in names]
        ].mean()
        _same_rows(_front_points(at, step), means.to_numpy())
    assert not simulated


# --- PEDA's logged evaluations --------------------------------------------------------------


@pytest.fixture
def peda_assets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assets = tmp_path / "assets"
    peda_run(assets / "agents" / "cheetah-run", env_id=CHEETAH, steps=(1000, 2000, 3000))
    # Short episodes for the video: the logs themselves are never re-run.
    plan = {"granularity": 4, "seeds": [0], "horizon": 10}
    manifest = {"sweep": plan, "agents": {"cheetah-run": {"env": CHEETAH}}}
    (assets / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    return assets


def test_peda_logs_are_shown_without_sweeping(
    peda_assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paretoscope.evaluate

    at = open_app({"env": CHEETAH})
    page_ok(at)
    swept: list[object] = []
    original = paretoscope.evaluate.sweep

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        swept.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(paretoscope.evaluate, "sweep", counting)
    at.switch_page("views/training.py").run()
    page_ok(at)
    assert at.radio(key="train_source").value == "logged"
    assert _steps(at) == [1000, 2000, 3000]
    spec = get_spec(CHEETAH)
    for index, step in enumerate(_steps(at)):
        at.select_slider(key="train_step").set_value(step).run()
        page_ok(at)
        log = rollout_log(spec.n_obj, index)
        _same_rows(_front_points(at, step), log["rollout_original_raw_r"])
        row = _shown_metrics(at).iloc[index]
        expected = hypervolume_2d(log["rollout_original_raw_r"], spec.reference_point)
        assert row["hypervolume"] == pytest.approx(expected)
        assert row["expected_utility"] == pytest.approx(
            _expected_utility(log["rollout_original_raw_r"], log["target_prefs"])
        )
    assert not swept, "the logs were shown without sweeping a snapshot"
    assert episode_videos(at), "the snapshot itself still plays"
    # A sweep here instead: every snapshot evaluated on the plan's grid.
    at.radio(key="train_source").set_value("sweep").run()
    page_ok(at)
    assert at.radio(key="train_source").value == "sweep"
    assert len(swept) == 3


# --- Compare --------------------------------------------------------------------------------


def test_compare_draws_two_runs_curves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.figures.training import METRICS

    assets = _assets(tmp_path / "assets")
    other = envelope_run(tmp_path / "other", steps=(50, 150))
    shutil.move(other, assets / "agents" / "dst-second")  # the env is then the manifest's
    manifest = {"agents": {"dst-second": {"env": DST, "label": "second run"}}}
    (assets / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app({"env": DST, "agents": f"{DST},dst-second"})
    at.switch_page("views/compare.py").run()
    page_ok(at)
    charts = {column: plotly_chart(at, f"compare_curve_{column}") for column in METRICS}
    for figure in charts.values():
        assert [trace["name"] for trace in figure["data"]] == [DST, "second run"]
    reference = get_spec(DST).reference_point
    for index, name in enumerate((DST, "dst-second")):
        episodes = _independent_sweeps(assets / "agents" / name)
        expected = step_metrics(episodes, DST, reference_point=reference)
        for column, figure in charts.items():
            curve = figure["data"][index]
            np.testing.assert_array_equal(plotly_array(curve["x"]), expected[STEP_COLUMN])
            np.testing.assert_allclose(plotly_array(curve["y"]), expected[column], rtol=1e-9)


# --- the bundled demo's run -----------------------------------------------------------------

DEMO_RUN = "halfcheetah-morvs-run"


def test_the_bundled_demo_shows_its_run_and_the_front_growing_over_its_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of the box: HalfCheetah's opening agent is a single agent, so the page offers the
    demo's training run; chosen, it shows every snapshot in the run folder, each step's front
    the mean of exactly the bundled episodes of that snapshot (read, nothing rolled out), the
    earlier fronts behind the last, and a hypervolume that grows over the run."""
    import paretoscope.evaluate
    from paretoscope.catalog import bundled_assets_dir
    from paretoscope.results_store import ResultsStore

    monkeypatch.delenv("PARETOSCOPE_ASSETS", raising=False)
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    assets = bundled_assets_dir()
    folder_steps = sorted(
        int(entry.name.removeprefix("step="))
        for entry in (assets / "agents" / DEMO_RUN / "snapshots").iterdir()
    )
    assert len(folder_steps) > 1
    at = open_app({"env": CHEETAH})
    page_ok(at)
    simulated: list[object] = []
    monkeypatch.setattr(
        paretoscope.evaluate, "evaluate_batch", lambda *args: simulated.append(args)
    )
    at.switch_page("views/training.py").run()
    page_ok(at)
    assert any("not a training run" in info.value for info in at.info)
    (offer,) = [button for button in at.button if button.key == f"train_open_{DEMO_RUN}"]
    assert f"({len(folder_steps)} steps)" in offer.label
    offer.click().run()
    page_ok(at)
    assert not simulated, "every episode was read from the bundled results"
    assert _steps(at) == folder_steps
    assert _shown_step(at) == folder_steps[-1]

    # Independent truth: the bundled episodes of each snapshot, averaged per preference by
    # hand, their hypervolume over the env's reference point by brute force.
    spec = get_spec(CHEETAH)
    stored = ResultsStore(assets / "results").read(CHEETAH)
    stored = stored[stored["agent"].str.startswith(f"{DEMO_RUN}@step=")]
    stored[STEP_COLUMN] = stored["agent"].str.rsplit("step=", n=1).str[1].astype(int)
    assert sorted(stored[STEP_COLUMN].unique()) == folder_steps
    preference_columns = [f"preference_{name}" for name in spec.objective_names]
    return_columns = [f"return_{name}" for name in spec.objective_names]
    reference = tuple(float(value) for value in spec.reference_point)
    shown = _shown_metrics(at)
    assert list(shown[STEP_COLUMN]) == folder_steps
    for step in folder_steps:
        rows = stored[stored[STEP_COLUMN] == step]
        means = rows.groupby(preference_columns)[return_columns].mean().to_numpy()
        volume = float(shown.loc[shown[STEP_COLUMN] == step, "hypervolume"].iloc[0])
        assert volume == pytest.approx(hypervolume_2d(means, reference), rel=1e-9)
        if step == folder_steps[-1]:
            _same_rows(_front_points(at, step), means)
    assert shown["hypervolume"].iloc[-1] > shown["hypervolume"].iloc[0]  # the front grew

    # More than one snapshot's front on the chart: the earlier ones fade behind the last.
    drawn = {trace["name"] for trace in plotly_chart(at, "train_front")["data"]}
    earlier = {f"step {step}" for step in folder_steps[:-1]} & drawn
    assert len(earlier) >= 2, drawn
    at.select_slider(key="train_step").set_value(folder_steps[0]).run()
    page_ok(at)
    assert _shown_step(at) == folder_steps[0]
    assert not simulated


# --- W&B runs: logged fronts only ------------------------------------------------------------


def test_a_wandb_run_shows_its_logged_fronts_without_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MORL-Baselines' Envelope run logged offline (tests/fixtures/wandb/morlb): every logged
    step's front is the table W&B wrote, its hypervolume the brute-force one."""
    from tests.test_runs_wandb import _run_folder, _tables_by_wandb_step

    run = _run_folder("morlb")
    assets = tmp_path / "assets"
    shutil.copytree(run, assets / "agents" / run.name)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = _training({"agent": run.name})
    page_ok(at)
    assert all(radio.key != "train_source" for radio in at.radio)  # logged only: no choice
    assert _steps(at) == [500, 1000, 1500]
    tables = _tables_by_wandb_step(run)
    reference = get_spec(DST).reference_point
    for index, step in enumerate(_steps(at)):
        at.select_slider(key="train_step").set_value(step).run()
        page_ok(at)
        _same_rows(_front_points(at, step), np.asarray(tables[index]))
        row = _shown_metrics(at).iloc[index]
        assert row["hypervolume"] == pytest.approx(
            hypervolume_2d(np.asarray(tables[index]), reference)
        )
    assert any("no snapshot at step 1500" in info.value for info in at.info)


def test_compare_spreads_one_algorithms_seeds_and_draws_their_final_attainment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three seeds of MORL-Baselines' Envelope (logged offline by its own code) beside a run of
    another algorithm: the seeds are one group, whose curve is the step-by-step median (and
    range) of their brute-force hypervolumes, and whose final fronts are W&B's last tables."""
    from tests.test_runs_seeds import MORLB_SEEDS
    from tests.test_runs_wandb import _run_folder, _tables_by_wandb_step

    assets = tmp_path / "assets"
    names = []
    for fixture in (*MORLB_SEEDS, "logged"):
        run = _run_folder(fixture)
        shutil.copytree(run, assets / "agents" / run.name)
        names.append(run.name)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app({"env": DST, "agents": ",".join(names)})
    at.switch_page("views/compare.py").run()
    page_ok(at)
    assert any(header.value == "Across seeds" for header in at.subheader)
    reference = get_spec(DST).reference_point
    tables = [_tables_by_wandb_step(_run_folder(fixture)) for fixture in MORLB_SEEDS]
    volumes = np.array([[hypervolume_2d(front, reference) for front in run] for run in tables])
    spread = plotly_chart(at, "compare_spread_hypervolume")
    band, median, *others = spread["data"]
    assert median["name"] == "Envelope (median of 3 runs)"
    np.testing.assert_array_equal(plotly_array(median["x"]), [500, 1000, 1500])
    np.testing.assert_allclose(plotly_array(median["y"]), np.median(volumes, axis=0))
    np.testing.assert_allclose(
        plotly_array(band["y"]), [*volumes.max(axis=0), *volumes.min(axis=0)[::-1]]
    )
    assert [trace["name"] for trace in others] == [
        "hand-logged: lowest to highest",
        "hand-logged (median of 1 run)",
    ]
    attainment = plotly_chart(at, "compare_seed_attainment_Envelope")
    cloud = next(trace for trace in attainment["data"] if trace["mode"] == "markers")
    shown = np.column_stack([plotly_array(cloud["x"]), plotly_array(cloud["y"])])
    finals = np.vstack([np.asarray(run[-1], dtype=np.float64) for run in tables])
    assert sorted(map(tuple, shown)) == sorted(map(tuple, finals))
    levels = [trace["name"] for trace in attainment["data"] if trace["mode"] == "lines"]
    assert levels == [
        "best (attained by ≥ 1 of 3 seeds)",
        "median (attained by ≥ 2 of 3 seeds)",
        "worst (attained by ≥ 3 of 3 seeds)",
    ]


def test_checkpoints_with_their_wandb_run_show_the_logged_fronts_and_offer_a_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MORL-Baselines run whose W&B log is beside its checkpoints: the Training page offers
    both sources, and shows the logged fronts (W&B's tables) by default; a sweep of the
    checkpoints draws its hypervolume curve (an independent sweep's) with the logged one
    (brute force on W&B's tables) dashed beside it."""
    from tests.test_runs_wandb import _checkpoints_with_their_wandb_run, _tables_by_wandb_step
    from tests.test_runs_wandb import _run_folder as wandb_fixture

    assets = tmp_path / "assets"
    _checkpoints_with_their_wandb_run(assets / "agents", "morlb")
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = _training({"agent": DST})
    page_ok(at)
    assert at.radio(key="train_source").value == "logged"
    assert _steps(at) == [500, 1000, 1500]
    tables = _tables_by_wandb_step(wandb_fixture("morlb"))
    for step, table in zip([500, 1000, 1500], tables, strict=True):
        at.select_slider(key="train_step").set_value(step).run()
        page_ok(at)
        _same_rows(_front_points(at, step), np.asarray(table))

    at.radio(key="train_source").set_value("sweep").run()
    page_ok(at)
    reference = get_spec(DST).reference_point
    swept = step_metrics(
        _independent_sweeps(assets / "agents" / DST), DST, reference_point=reference
    )
    curves = plotly_chart(at, "train_metrics")["data"]
    sweep_curve = curves[0]  # hypervolume, the sweep's
    np.testing.assert_allclose(plotly_array(sweep_curve["y"]), swept["hypervolume"])
    (logged_curve,) = [
        trace
        for trace in curves
        if trace["name"] == "the trainer's logged evaluations" and trace.get("yaxis") in (None, "y")
    ]
    np.testing.assert_array_equal(plotly_array(logged_curve["x"]), [500, 1000, 1500])
    np.testing.assert_allclose(
        plotly_array(logged_curve["y"]),
        [hypervolume_2d(np.asarray(table), reference) for table in tables],
    )
