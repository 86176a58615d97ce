"""Every dashboard page driven with Streamlit's AppTest on a tiny generated assets folder.

Widgets are set as a user would; outputs are checked against independent computations
(rollouts run directly with core, metrics computed from the stored sweep)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.agents import load
from paretoscope.metrics import front_summary, hypervolume
from paretoscope.rollout import rollout_batch
from paretoscope.text import number
from tests.apptests import (
    captions,
    compare_metrics_shown,
    compare_metrics_table,
    count_episode_recordings,
    episode_chart,
    episode_returns,
    episode_video_files,
    episode_videos,
    front_chart_figure,
    front_points,
    open_app,
    page_ok,
    plotly_array,
    plotly_chart,
    served_files,
    shown_episode,
    shown_hypervolume,
    trajectory_returns,
    video_frames,
)
from tests.conftest import FIXTURES_DIR, PEDA_FIXTURES
from tests.demo_fixture import build_tiny_assets
from tests.waiting import wait_until

HORIZON = 30
CHEETAH = "MO-HalfCheetah-v2"
HOPPER3 = "MO-Hopper-v3"
DST = "deep-sea-treasure-v0"
RANDOM_LABEL = "random (uniform baseline)"  # how the agent list shows the built-in agent
OBJECTIVES = ["run", "energy"]  # HalfCheetah's
MORLB = FIXTURES_DIR / "morl-baselines"
ENVELOPE = MORLB / "envelope" / DST / "Envelope.tar"
PCN = MORLB / "pcn" / DST / "PCN_model.pt"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("assets"), horizon=HORIZON)


@pytest.fixture
def app_env(assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The assets folder for the app and a fresh cache (so nothing is pre-rendered)."""
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    yield tmp_path / "cache"


def _returns(assets: Path, agent: str, env_id: str, preference, seed=0, target=None):  # noqa: ANN001, ANN202
    """The return of one episode computed directly with core (independent of the app)."""
    result = rollout_batch(
        load(assets / "agents" / agent),
        env_id,
        np.asarray([preference], dtype=np.float64),
        [seed],
        targets=None if target is None else np.asarray([target], dtype=np.float64),
        horizon=HORIZON,
    )
    return result.returns[0]


def _select(at, key: str, curve: int, index: int, customdata: list[int]) -> None:  # noqa: ANN001
    at.session_state[key] = {
        "selection": {
            "points": [{"curve_number": curve, "point_index": index, "customdata": customdata}],
            "point_indices": [index],
            "box": [],
            "lasso": [],
        }
    }


# --- Explore -----------------------------------------------------------------------------------


def test_explore_streams_a_rollout_that_matches_core(
    app_env: Path, assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = served_files(monkeypatch)
    at = open_app()
    page_ok(at)
    assert shown_episode(at).preference == [0.5, 0.5]
    (video,) = episode_video_files(at, served)  # the finished MP4 is on the page
    assert any(button.label == "Download MP4" for button in at.get("download_button"))
    assert at.slider[0].label == "Preference between run and energy"
    assert at.query_params["env"] == [CHEETAH] or at.query_params["env"] == CHEETAH
    # A frame for each step the reward chart shows; its last return is the episode's.
    frames = video_frames(video)
    steps, cumulative = episode_chart(at)
    page_ok(at)
    assert len(frames) == len(steps) and frames.shape[1:] == (240, 240, 3)
    expected = _returns(assets, "cheetah-morvs", CHEETAH, [0.5, 0.5])
    np.testing.assert_allclose(cumulative[-1], expected, rtol=1e-9)


def test_slider_change_renders_once_per_preference(
    app_env: Path, assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = count_episode_recordings(monkeypatch)
    at = open_app()
    at.slider[0].set_value(0.8).run()
    page_ok(at)
    episode = shown_episode(at)
    assert episode.preference == pytest.approx([0.2, 0.8])
    np.testing.assert_allclose(
        episode_returns(at), _returns(assets, "cheetah-morvs", CHEETAH, [0.2, 0.8]), rtol=1e-9
    )
    at.slider[0].set_value(0.5).run()
    page_ok(at)
    assert shown_episode(at).preference == [0.5, 0.5]
    assert len(calls) == 2  # 0.5 once, 0.8 once: going back to 0.5 used the recording


def test_a_recording_stored_while_the_front_is_drawn_plays_with_its_caption(
    app_env: Path, assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a server with one worker: the page starts the recording, then the front's sweep
    # waits for the worker the recording holds, so the recording is stored before the page
    # reaches the video and plays at once (it used to play without its caption).
    from paretoscope.dashboard import loaders
    from paretoscope.dashboard.jobs import shared_board

    sweep_points = loaders.sweep_points

    def after_the_recordings(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        wait_until(lambda: not shared_board().running(), 60, "the page's recording to be stored")
        return sweep_points(*args, **kwargs)

    monkeypatch.setattr(loaders, "sweep_points", after_the_recordings)
    at = open_app()
    page_ok(at)
    returns = _returns(assets, "cheetah-morvs", CHEETAH, [0.5, 0.5])
    assert episode_videos(at), "the stored recording plays"
    captions = [caption.value for caption in at.caption if caption.value.startswith("Preference")]
    assert len(captions) == 1, [caption.value for caption in at.caption]
    assert captions[0].startswith("Preference run 0.5, energy 0.5 · seed 0 → return "), captions
    assert captions[0].endswith(f"run {number(returns[0])}, energy {number(returns[1])}"), captions


def test_url_reproduces_the_view(app_env: Path, assets: Path) -> None:
    at = open_app({"env": HOPPER3, "agent": "hopper3-modt", "pref": "0.25,0.25,0.5", "seed": "1"})
    page_ok(at)
    assert [slider.value for slider in at.slider] == [0.25, 0.25, 0.5]
    assert at.number_input(key="seed").value == 1
    episode = shown_episode(at)
    assert episode.seed == 1 and episode.preference == [0.25, 0.25, 0.5]
    np.testing.assert_allclose(
        episode_returns(at),
        _returns(assets, "hopper3-modt", HOPPER3, [0.25, 0.25, 0.5], seed=1),
        rtol=1e-6,
        atol=1e-6,
    )
    # The front (the front chart's figure) and the ternary plot of the preference.
    front = front_chart_figure(at)
    assert {trace["type"] for trace in front["data"]} == {"scatter3d"}
    assert [trace["name"] for trace in front["data"] if trace.get("uid") == "current"] == [
        "this rollout"
    ]
    assert at.get("plotly_chart"), "the ternary plot"


def test_three_objective_sliders_stay_on_the_simplex(app_env: Path) -> None:
    at = open_app({"env": HOPPER3, "agent": "hopper3-modt"})
    assert [slider.value for slider in at.slider] == [0.5, 0.25, 0.25]
    at.slider(key="w_pref3_1").set_value(0.5).run()
    page_ok(at)
    values = [slider.value for slider in at.slider]
    assert values[1] == 0.5 and sum(values) == pytest.approx(1.0)
    assert all(v * 4 == pytest.approx(round(v * 4)) for v in values)  # on the grid of 1/4
    # Clicking the ternary plot's candidate with all weight on energy.
    from paretoscope.metrics import preference_grid

    grid = preference_grid(3, 4)
    energy = int(np.flatnonzero((grid == [0.0, 0.0, 1.0]).all(axis=1))[0])
    _select(at, "ternary_0", 0, energy, [energy])
    at.run()
    page_ok(at)
    assert [slider.value for slider in at.slider] == [0.0, 0.0, 1.0]
    assert shown_episode(at).preference == [0.0, 0.0, 1.0]


def test_three_objectives_front_in_3d_and_clickable_projection(app_env: Path) -> None:
    at = open_app({"env": HOPPER3, "agent": "hopper3-modt"})
    page_ok(at)
    assert front_chart_figure(at)["data"][0]["type"] == "scatter3d"
    at.radio(key="front_view").set_value("2-D projection (clickable)").run()
    at.selectbox(key="front_axes_1").set_value(2).run()
    page_ok(at)
    assert front_chart_figure(at)["layout"]["yaxis"]["title"]["text"] == (
        "energy return, higher is better"
    )
    points = front_points(at, "MODT (PEDA fixture)")
    row = max(points)  # the sweep's last preference
    _select(at, "front_0", points[row].curve, points[row].index, [0, row])
    at.run()
    page_ok(at)
    np.testing.assert_allclose(shown_episode(at).preference, points[row].preference)


def test_upload_a_peda_checkpoint_and_import_it(app_env: Path) -> None:
    source = PEDA_FIXTURES / "ckpts" / CHEETAH / "dt" / "step=1.ckpt"
    at = open_app()
    at.file_uploader(key="_uploads").upload("mystery.ckpt", source.read_bytes()).run()
    page_ok(at)
    # HalfCheetah and Walker2d have the same dims: the env must be asked for (among the envs
    # its tensors fit); its type is read from the key names, so it is not asked.
    env_box = at.selectbox(key="_import_env_mystery")
    assert set(env_box.options) == {CHEETAH, "MO-Walker2d-v2"}
    env_box.set_value(CHEETAH)
    assert not [box for box in at.selectbox if box.key == "_import_kind_mystery"]
    assert not [box for box in at.checkbox if box.key == "_import_trust_mystery"]
    at.button(key="_import_mystery").click().run()
    page_ok(at)
    # Named by its file and env, and shown at once (the page switched to it).
    assert at.selectbox(key="agent").value == f"mystery-{CHEETAH}"
    assert f"mystery · {CHEETAH}" in at.selectbox(key="agent").options
    page_ok(at)
    assert episode_videos(at), "the imported agent's episode plays"


def test_an_uploaded_morl_baselines_agent_is_imported_for_its_fitting_env_and_shown(
    app_env: Path,
) -> None:
    from paretoscope.agents.importers import import_agent

    at = open_app()  # on HalfCheetah, the assets' env
    at.file_uploader(key="_uploads").upload(ENVELOPE.name, ENVELOPE.read_bytes()).run()
    page_ok(at)
    # The form is on the page, headed by the file's name; the sidebar says where it is.
    assert f"Import {ENVELOPE.name}" in [header.value for header in at.main.subheader]
    assert any("form at the top of the page" in caption.value for caption in at.sidebar.caption)
    # Only the envs its sizes fit (2 observations, 4 actions, 2 objectives), the guess first.
    env_box = at.selectbox(key="_import_env_Envelope")
    assert env_box.options == [DST, "deep-sea-treasure-concave-v0", "deep-sea-treasure-mirrored-v0"]
    assert env_box.value == DST
    at.button(key="_import_Envelope").click().run()
    page_ok(at)
    notes = [note.value for note in at.success]
    assert notes == [f"Imported Envelope · {DST}: it is the agent now shown, on {DST}."], notes
    assert not [header for header in at.main.subheader if "Import" in header.value]
    assert at.selectbox(key="env").value == DST
    assert at.selectbox(key="agent").value == f"Envelope-{DST}"
    assert at.selectbox(key="agent").options == [f"Envelope · {DST}", RANDOM_LABEL]
    assert episode_videos(at)
    episode = shown_episode(at)
    expected = _direct_returns(import_agent(ENVELOPE, DST), episode.preference)
    np.testing.assert_allclose(episode_returns(at), expected, rtol=1e-12)
    at.run()  # the note stays while the imported agent is shown
    assert [note.value for note in at.success] == notes
    at.selectbox(key="agent").set_value("random").run()
    page_ok(at)
    assert not at.success


def _assets_with(root: Path, source: Path) -> Path:
    """An assets folder `root` holding one agent file, `agents/<source's name>`."""
    (root / "agents").mkdir(parents=True)
    shutil.copy(source, root / "agents" / source.name)
    return root


def _import_widgets(at) -> set[str]:  # noqa: ANN001
    widgets = [*at.selectbox, *at.text_input, *at.checkbox, *at.button]
    return {w.key for w in widgets if w.key and w.key.startswith("_import_")}


def _direct_returns(agent, preference, seed: int = 0) -> np.ndarray:  # noqa: ANN001
    """One episode of `agent` on deep-sea-treasure at its own horizon, computed with core."""
    result = rollout_batch(agent, DST, np.asarray([preference], dtype=np.float64), [seed])
    return result.returns[0]


def test_a_morl_baselines_file_without_its_env_asks_only_the_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.agents.importers import import_agent

    assets = _assets_with(tmp_path / "assets", ENVELOPE)  # no env id in its path
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app()
    page_ok(at)
    assert _import_widgets(at) == {"_import_env_Envelope", "_import_Envelope"}
    at.selectbox(key="_import_env_Envelope").set_value(DST)
    at.button(key="_import_Envelope").click().run()
    page_ok(at)
    assert at.selectbox(key="env").value == DST
    assert at.selectbox(key="agent").options == [f"Envelope · {DST}", RANDOM_LABEL]
    assert (assets / "agents" / "Envelope.tar").is_file()  # the server's file is left as it was
    # The imported agent plays, and acts as the file imported directly with core.
    assert episode_videos(at)
    episode = shown_episode(at)
    expected = _direct_returns(import_agent(ENVELOPE, DST), episode.preference)
    np.testing.assert_allclose(episode_returns(at), expected, rtol=1e-12)


def test_a_morl_baselines_agent_whose_path_names_the_env_plays_beside_random(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.agents.importers import import_agent

    assets = _assets_with(tmp_path / DST, ENVELOPE)  # the env is read from the folder's name
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app()
    page_ok(at)
    assert not _import_widgets(at)  # nothing to ask
    assert at.selectbox(key="env").value == DST
    assert at.selectbox(key="agent").options == ["Envelope", RANDOM_LABEL]
    assert episode_videos(at)
    episode = shown_episode(at)
    agent = import_agent(assets / "agents" / "Envelope.tar")
    expected = _direct_returns(agent, episode.preference)
    np.testing.assert_allclose(episode_returns(at), expected, rtol=1e-12)
    at.selectbox(key="agent").set_value("random").run()
    page_ok(at)
    assert episode_videos(at), "random's episode plays"


def test_a_pcn_file_on_the_servers_disk_imports_only_when_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assets = _assets_with(tmp_path / DST, PCN)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app()
    page_ok(at)
    name = "PCN_model"
    assert _import_widgets(at) == {
        f"_import_opt_horizon_{name}",
        f"_import_trust_{name}",
        f"_import_{name}",
    }
    at.text_input(key=f"_import_opt_horizon_{name}").input("20")
    at.button(key=f"_import_{name}").click().run()
    assert not at.exception
    errors = " ".join(error.value for error in at.error)
    assert "refused" in errors and "Nothing from it ran" in errors, errors
    assert f"PCN_model · {DST}" not in at.selectbox(key="agent").options
    stored = "_upload_folder" in at.session_state  # AppTest's session state has no get()
    holder = at.session_state["_upload_folder"] if stored else None  # noqa: SIM401
    assert holder is None or not (holder.path / "agents" / f"PCN_model-{DST}").exists()
    at.checkbox(key=f"_import_trust_{name}").check()
    at.button(key=f"_import_{name}").click().run()
    page_ok(at)
    assert at.selectbox(key="agent").options == [f"PCN_model · {DST}", RANDOM_LABEL]
    assert (assets / "agents" / PCN.name).is_file()


def test_an_uploaded_pcn_file_is_never_trusted(app_env: Path) -> None:
    at = open_app()
    at.file_uploader(key="_uploads").upload(PCN.name, PCN.read_bytes()).run()
    assert not at.exception
    assert not [key for key in _import_widgets(at) if key.endswith("_PCN_model")]
    notes = " ".join(warning.value for warning in at.warning)
    assert "uploads are never trusted" in notes, notes
    assert "paretoscope agent import FILE --trust --out DIR" in notes, notes
    # The refused file's box can be closed: the upload is removed, and the box with it.
    at.button(key="_upload_remove_PCN_model").click().run()
    page_ok(at)
    assert not [header for header in at.main.subheader if "PCN_model" in header.value]


def test_clicking_a_front_point_replays_that_episode(app_env: Path, assets: Path) -> None:
    at = open_app()
    points = front_points(at, "MORvS (untrained)")
    row = max(points, key=lambda row: points[row].returns[0])  # the most of the first objective
    point = points[row]
    _select(at, "front_0", point.curve, point.index, [0, row])
    at.run()
    page_ok(at)
    episode = shown_episode(at)
    np.testing.assert_allclose(episode.preference, point.preference)
    assert episode.seed == 0
    # The same episode: the point's return, and a one-row rollout computed directly.
    np.testing.assert_allclose(episode_returns(at), point.returns, rtol=1e-12)
    np.testing.assert_allclose(
        episode_returns(at),
        _returns(assets, "cheetah-morvs", CHEETAH, point.preference),
        rtol=1e-12,
    )
    assert at.slider[0].value == pytest.approx(point.preference[1])


def test_target_mode_asks_for_a_return(app_env: Path, assets: Path) -> None:
    at = open_app()
    at.toggle(key="target_mode").set_value(True).run()
    page_ok(at)
    at.number_input(key="w_target_0").set_value(300.0)
    at.number_input(key="w_target_1").set_value(150.0).run()
    page_ok(at)
    episode = shown_episode(at)
    assert episode.target == [300.0, 150.0]
    np.testing.assert_allclose(
        episode_returns(at),
        _returns(assets, "cheetah-morvs", CHEETAH, [0.5, 0.5], target=[300.0, 150.0]),
        rtol=1e-9,
    )
    assert at.query_params["tm"] in ("1", ["1"])
    # Clicking anywhere in objective space (a point of the hidden grid) sets the target.
    (grid,) = [t for t in front_chart_figure(at)["data"] if t["name"] == "pick a target"]
    assert front_chart_figure(at)["data"].index(grid) == 0
    _select(at, "front_0", 0, 7, [-1, 7])
    at.run()
    page_ok(at)
    expected = [float(round(plotly_array(grid[axis])[7], 1)) for axis in ("x", "y")]
    assert shown_episode(at).target == pytest.approx(expected)


def test_explore_says_in_words_what_the_axes_and_targets_mean(app_env: Path) -> None:
    at = open_app()
    page_ok(at)
    layout = front_chart_figure(at)["layout"]
    assert layout["xaxis"]["title"]["text"] == "run return (m/s), higher is better"
    assert layout["yaxis"]["title"]["text"] == "energy return, higher is better"
    texts = captions(at)
    assert any("higher means less energy used" in text for text in texts), texts
    assert any(text.startswith("Left to itself at this preference") for text in texts), texts
    assert not any("asks itself" in text for text in texts)
    at.toggle(key="target_mode").set_value(True).run()
    # A target far beyond every swept return: the page says it may be out of reach.
    at.number_input(key="w_target_0").set_value(1e6)
    at.number_input(key="w_target_1").set_value(1e6).run()
    page_ok(at)
    notes = " ".join(warning.value for warning in at.warning)
    assert "reached this target in run, energy" in notes and "out of the agent's reach" in notes
    # One the sweep reached (its lowest returns): no such note.
    swept = front_points(at, "MORvS (untrained)").values()
    lowest = np.min([point.returns for point in swept], axis=0)
    at.number_input(key="w_target_0").set_value(float(lowest[0]))
    at.number_input(key="w_target_1").set_value(float(lowest[1])).run()
    page_ok(at)
    assert not any("out of the agent's reach" in warning.value for warning in at.warning)


def test_policy_set_has_no_target_mode(app_env: Path) -> None:
    at = open_app({"agent": "cheetah-policies"})
    page_ok(at)
    assert not [toggle for toggle in at.toggle if toggle.key == "target_mode"]
    assert episode_videos(at), "its episode plays"


def test_episode_chart_is_a_picture_and_the_interactive_chart_a_toggle_away(app_env: Path) -> None:
    import base64

    at = open_app({"agent": "cheetah-policies"})
    page_ok(at)
    objectives = len(shown_episode(at).returns)
    pictures = [
        url
        for element in at.get("image")
        for url in element.value
        if url.startswith("data:image/svg+xml;base64,")
    ]
    assert len(pictures) == 1  # the reward chart under the video
    svg = base64.b64decode(pictures[0].split(",", 1)[1]).decode()
    assert svg.count("<polyline") == 2 * objectives  # two panels, a line each
    charts = len(at.get("plotly_chart"))
    at.toggle(key="video_interactive").set_value(True).run()
    page_ok(at)
    assert len(at.get("plotly_chart")) == charts + 1
    assert not [
        url for element in at.get("image") for url in element.value if url.startswith("data:")
    ]


# --- the other pages ---------------------------------------------------------------------------


def _video_returns(at) -> pd.DataFrame:  # noqa: ANN001
    """The table under Compare's side-by-side video: each agent's return (a column per agent,
    by its label; a row per objective)."""
    return next(frame.value for frame in at.dataframe if list(frame.value.index) == OBJECTIVES)


def test_compare_page(app_env: Path, assets: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.results_store import ResultsStore

    served = served_files(monkeypatch)
    at = open_app()
    at.switch_page("views/compare.py").run()
    page_ok(at)
    assert at.multiselect(key="compare_agents").value == ["cheetah-morvs", "cheetah-policies"]
    returns = _video_returns(at)
    assert list(returns.columns) == ["MORvS (untrained)", "Linear policy set"]
    (video,) = episode_video_files(at, served)
    frame = video_frames(video)[0]
    assert frame.shape[0] == 240 and frame.shape[1] >= 2 * 240  # both agents side by side
    preference = at.session_state["preference"]
    for name, label in (
        ("cheetah-morvs", "MORvS (untrained)"),
        ("cheetah-policies", "Linear policy set"),
    ):
        # Each agent's own return, as an independent rollout gives it.
        np.testing.assert_allclose(
            returns[label], _returns(assets, name, CHEETAH, preference), rtol=1e-9
        )
    table = compare_metrics_table(at)
    stored = ResultsStore(assets / "results").read(CHEETAH)
    for name, label in (("cheetah-morvs", "MORvS (untrained)"), ("cheetah-policies", None)):
        rows = stored[stored["agent"] == name]
        returns = rows[["return_run", "return_energy"]].to_numpy()
        preferences = rows[["preference_run", "preference_energy"]].to_numpy()
        expected = front_summary(returns, (0.0, 0.0), preferences)
        row = table.loc[label or "Linear policy set"]
        assert row["hypervolume"] == pytest.approx(expected.hypervolume)
        assert row["cardinality"] == expected.cardinality
    assert np.isnan(table.loc["Linear policy set", "RTG weighted error"])
    assert at.get("arrow_data_frame") or at.dataframe


def test_compare_random_beside_a_trained_agent_and_leave_other_envs_out(
    app_env: Path, assets: Path
) -> None:
    from paretoscope.agents.random_agent import RandomAgent
    from paretoscope.results_store import ResultsStore

    at = open_app({"agents": "cheetah-morvs,hopper3-modt,random"})
    at.switch_page("views/compare.py").run()
    page_ok(at)
    assert at.multiselect(key="compare_agents").value == ["cheetah-morvs", "random"]
    notes = " ".join(warning.value for warning in at.warning)
    assert "hopper3-modt (MO-Hopper-v3) left out" in notes, notes
    assert episode_videos(at), "the side-by-side video plays"
    returns = _video_returns(at)
    assert list(returns.columns) == ["MORvS (untrained)", RANDOM_LABEL]
    preference = np.asarray([at.session_state["preference"]])
    chance = rollout_batch(RandomAgent(CHEETAH), CHEETAH, preference, [0], horizon=HORIZON)
    np.testing.assert_allclose(returns[RANDOM_LABEL], chance.returns[0], rtol=1e-9)
    table = compare_metrics_table(at)
    assert list(table.index) == ["MORvS (untrained)", "random (uniform baseline)"]
    # The built-in agent swept like the env's agents (their shared plan: HORIZON steps), into
    # the cache's store.
    stored = ResultsStore(app_env / "results").read(CHEETAH)
    rows = stored[stored["agent"] == "random"]
    assert len(rows) == 21 and (rows["horizon"] == HORIZON).all()
    expected = front_summary(
        rows[["return_run", "return_energy"]].to_numpy(),
        (0.0, 0.0),
        rows[["preference_run", "preference_energy"]].to_numpy(),
    )
    assert table.loc["random (uniform baseline)", "hypervolume"] == pytest.approx(
        expected.hypervolume
    )
    # As shown: the one formatter's text, and "—" (as the caption promises) where random, not
    # return-conditioned, has no RTG error.
    shown, placeholder = compare_metrics_shown(at)
    assert placeholder == "—"
    row = list(table.index).index("random (uniform baseline)")
    column = list(table.columns).index("hypervolume")
    assert shown.iloc[row, column] == number(expected.hypervolume)
    rtg_column = list(table.columns).index("RTG weighted error")
    assert shown.iloc[row, rtg_column] == "—"
    # Another env in the sidebar: the selection keeps only what that env has (random), and
    # says what it left out.
    at.selectbox(key="env").set_value(HOPPER3).run()
    page_ok(at)
    assert at.multiselect(key="compare_agents").value == ["random"]
    notes = " ".join(captions(at))
    assert "cheetah-morvs (MO-HalfCheetah-v2) left out" in notes, notes


def test_rtg_and_metrics_page(app_env: Path, assets: Path) -> None:
    from paretoscope.results_store import ResultsStore

    at = open_app()
    at.switch_page("views/rtg.py").run()
    page_ok(at)
    assert _rtg_episodes(at) == 21
    at.multiselect(key="rtg_scales").set_value([0.5, 1.0]).run()
    page_ok(at)
    assert _rtg_episodes(at) == 42
    at.number_input(key="ref_0").set_value(20.0).run()
    page_ok(at)
    stored = ResultsStore(assets / "results").read(CHEETAH)
    rows = stored[(stored["agent"] == "cheetah-morvs") & ~stored["explicit_target"]]
    expected = hypervolume(rows[["return_run", "return_energy"]].to_numpy(), (20.0, 0.0))
    assert any(text.startswith("Reference point (20.0, 0.0) (edited") for text in captions(at))
    shown, shaded = shown_hypervolume(at)
    assert shown == number(expected) and shaded == pytest.approx(expected)
    assert at.query_params["ref"] in ("20,0", ["20,0"])


def _rtg_episodes(at) -> int:  # noqa: ANN001
    """The episodes the RTG following chart draws (each once per objective's panel)."""
    first = next(t for t in plotly_chart(at, "rtg_target")["data"] if t["name"] == "episodes")
    return len(plotly_array(first["x"]))


def test_rtg_page_explains_agents_without_targets(app_env: Path, assets: Path) -> None:
    from paretoscope.results_store import ResultsStore

    at = open_app({"agent": "cheetah-policies"})
    at.switch_page("views/rtg.py").run()
    page_ok(at)
    assert any("does not read a target" in info.value for info in at.info)
    stored = ResultsStore(assets / "results").read(CHEETAH)
    rows = stored[stored["agent"] == "cheetah-policies"]
    expected = hypervolume(rows[["return_run", "return_energy"]].to_numpy(), (0.0, 0.0))
    shown, shaded = shown_hypervolume(at)
    assert shown == number(expected) and shaded == pytest.approx(expected)


def test_dataset_page_replays_a_stored_trajectory(app_env: Path, assets: Path) -> None:
    from paretoscope.data import open_dataset

    at = open_app()
    at.switch_page("views/dataset.py").run()
    page_ok(at)
    data = open_dataset(assets / "datasets" / "cheetah-amateur")
    stored = trajectory_returns(at)
    np.testing.assert_allclose(stored[0], data.returns[0])
    # Collected by paretoscope: the env seed is known, so the replay is the same episode.
    assert any(text.endswith("(the same as stored)") for text in captions(at))
    _, replayed = episode_chart(at, "replay")
    page_ok(at)
    np.testing.assert_allclose(replayed[-1], stored[0], rtol=1e-9)
    _select(at, "dataset_returns_0", 0, 5, [5])
    at.run()
    page_ok(at)
    assert at.number_input(key="trajectory").value == 5
    assert any("cheetah-amateur-trajectory-5" in video for video in episode_videos(at))
    _, replayed = episode_chart(at, "replay")
    np.testing.assert_allclose(replayed[-1], data.returns[5], rtol=1e-9)


def _count_tours(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The stop count of every tour recorded from now on, in order."""
    from paretoscope.recordings import TourRequest

    made: list[int] = []
    record = TourRequest.record

    def counting(self, agents, on_frame=None, render=True):  # noqa: ANN001, ANN202
        made.append(len(self.stops))
        return record(self, agents, on_frame, render)

    monkeypatch.setattr(TourRequest, "record", counting)
    return made


def test_presentation_page_opens_with_its_tour_and_makes_others(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.render import default_every

    served = served_files(monkeypatch)
    made = _count_tours(monkeypatch)
    at = open_app()
    at.switch_page("views/presentation.py").run()
    page_ok(at)
    # A first visit, no click: the page's own tour is made and plays. 11 stops (0%, 10%, ...,
    # 100% run, all on the sweep's grid of 20), each the whole 30-step episode, every step a
    # frame (HalfCheetah's 0.05-s steps play at 20 frames a second).
    assert default_every(CHEETAH) == 1
    assert made == [11]
    assert "tour_make" not in [button.key for button in at.button]  # nothing to press
    (video,) = episode_video_files(at, served)
    first = video_frames(video)
    assert first.shape == (11 * 30, 240, 480, 3)
    assert first.std() > 0  # a picture, not a blank
    # A later visitor gets the stored tour at once: nothing is recorded again.
    later = open_app()
    later.switch_page("views/presentation.py").run()
    page_ok(later)
    assert made == [11]
    assert episode_video_files(later, served) == [video]
    at.slider(key="tour_stops").set_value(3)
    at.slider(key="tour_steps").set_value(10)
    at.run()
    at.button(key="tour_make").click().run()
    page_ok(at)
    assert made == [11, 3]  # another tour waits for its button
    # Plain words for an audience: the env's one-line story, each objective, the stops.
    assert [header.value for header in at.subheader] == ["HalfCheetah: run fast vs save energy"]
    markdown = " ".join(block.value for block in at.markdown)
    assert "**run** (m/s): forward speed (capped at 4) + 1. Higher is better." in markdown
    assert "asked 3 times to trade run against energy" in markdown
    assert (
        "Stops: stop 1 of 3: all run (100% run, 0% energy); stop 2 of 3: balanced (50% run, "
        "50% energy); stop 3 of 3: all energy (0% run, 100% energy)"
    ) in captions(at)
    (video,) = episode_video_files(at, served)
    frames = video_frames(video)
    # Every stop's ten steps, a frame every `default_every` steps.
    assert len(frames) == 3 * -(-10 // default_every(CHEETAH)) <= 3 * 10
    assert frames.shape[1:] == (240, 480, 3)


# --- errors --------------------------------------------------------------------------------------


def test_errors_are_messages_and_the_page_goes_on(
    app_env: Path, assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(assets, broken)
    weights = broken / "agents" / "cheetah-policies" / "weights.safetensors"
    weights.write_bytes(b"not safetensors")
    config = broken / "agents" / "wrong-dims"
    config.mkdir()
    (config / "config.json").write_text(
        (broken / "agents" / "cheetah-morvs" / "config.json")
        .read_text()
        .replace('"obs_dim": 17', '"obs_dim": 5')
    )
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(broken))
    at = open_app({"agent": "cheetah-policies"})
    assert not at.exception
    assert any("cheetah-policies" in error.value for error in at.error)
    assert any("could not be read" in expander.label for expander in at.expander)
    at.selectbox(key="agent").set_value("cheetah-morvs").run()
    page_ok(at)

    from paretoscope.render import RenderingUnavailable

    def unavailable(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RenderingUnavailable("rendering unavailable: no OpenGL here (test)")

    monkeypatch.setattr("paretoscope.render.frames.stream_frames", unavailable)
    monkeypatch.setattr(
        "paretoscope.recordings.paced.ensure_gl_backend", unavailable
    )  # live episodes
    at.slider[0].set_value(0.3).run()
    assert not at.exception and not at.error
    assert any("no OpenGL here" in warning.value for warning in at.warning)
    assert not episode_videos(at)
    np.testing.assert_allclose(
        episode_returns(at),
        _returns(assets, "cheetah-morvs", CHEETAH, [0.7, 0.3]),
        rtol=1e-9,
    )


def test_add_a_folder_and_upload_files(
    app_env: Path, assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import zipfile

    from paretoscope.dashboard.uploads import store_upload
    from paretoscope.errors import ParetoscopeError

    extra = tmp_path / "extra"
    shutil.copytree(assets / "agents" / "cheetah-policies", extra / "agents" / "mine")
    # A typed folder must lie in the assets folder or a folder the server allows.
    monkeypatch.setenv("PARETOSCOPE_ALLOWED_DIRS", str(extra))
    at = open_app()
    at.text_input(key="_folder_input").input(str(extra))
    at.button(key="_add_folder").click().run()
    page_ok(at)
    assert "mine" in at.selectbox(key="agent").options

    uploads = tmp_path / "uploads"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in (assets / "agents" / "cheetah-morvs").iterdir():
            archive.write(file, f"zipped-agent/{file.name}")
    target = store_upload(uploads, "agent.zip", buffer.getvalue())
    assert (target / "config.json").is_file() and target.parent.name == "agents"
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../outside/config.json", "{}")
    with pytest.raises(ParetoscopeError, match="leaves the folder"):
        store_upload(uploads, "evil.zip", evil.getvalue())
    with pytest.raises(ParetoscopeError, match="expected"):
        store_upload(uploads, "notes.txt", b"hello")
    with pytest.raises(ParetoscopeError, match="empty"):
        store_upload(uploads, "x.pkl", b"")
    assert os.path.isfile(store_upload(uploads, "MO-Hopper-v3_10_expert_wide.pkl", b"\x80\x04data"))


@pytest.mark.parametrize(
    "page",
    [
        "views/explore.py",
        "views/compare.py",
        "views/choose.py",
        "views/rtg.py",
        "views/training.py",
        "views/dataset.py",
        "views/presentation.py",
    ],
)
def test_every_page_explains_an_empty_assets_folder(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tmp_path / "empty"))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "empty").mkdir()
    at = open_app()
    at.switch_page(page).run()
    page_ok(at)
    assert any("No agents or datasets were found" in info.value for info in at.info)


def test_explore_opens_at_the_manifests_preference_unless_the_link_names_one(
    assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    copy = tmp_path / "assets"
    shutil.copytree(assets, copy)
    manifest_path = copy / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(copy))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))

    def opened_at(defaults: dict, query: dict[str, str] | None = None) -> list[float]:  # type: ignore[type-arg]
        manifest["defaults"] = defaults
        manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
        at = open_app(query)
        page_ok(at)
        return shown_episode(at).preference

    defaults = {"env": CHEETAH, "agent": "cheetah-morvs", "preference": [0.3, 0.7]}
    assert opened_at(defaults) == pytest.approx([0.3, 0.7])
    assert opened_at(defaults, {"pref": "0.8,0.2"}) == pytest.approx([0.8, 0.2])
    # Off the grid: the nearest grid point; malformed: the middle, as without a default.
    assert opened_at({**defaults, "preference": [0.33, 0.67]}) == pytest.approx([0.35, 0.65])
    assert opened_at({**defaults, "preference": ["a", None]}) == [0.5, 0.5]
    assert opened_at({**defaults, "preference": [-1, 2]}) == [0.5, 0.5]


def test_compare_report_is_made_on_request(app_env: Path, assets: Path) -> None:
    at = open_app()
    at.switch_page("views/compare.py").run()
    page_ok(at)

    def report_buttons() -> list:
        return [
            button
            for button in at.get("download_button")
            if button.key.endswith("_report_download")
        ]

    assert not report_buttons()  # nothing made before it is asked for
    at.button(key="compare_report_prepare").click().run()
    page_ok(at)
    (button,) = report_buttons()
    assert button.label == "Download report"
