"""Any registered env in the dashboard, with the built-in random agent and no assets at all:
the env list, a live rollout of a discrete env, its known front (exact or approximate) with
the indicators against it, and the discount γ from the sidebar and the link.

Outputs are checked against core run directly (rollouts, sweeps, known fronts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.random_agent import RandomAgent
from paretoscope.envs import get_spec, list_ids
from paretoscope.rollout import rollout_batch
from paretoscope.text import number
from tests.apptests import (
    captions,
    episode_returns,
    episode_video_files,
    episode_videos,
    front_chart_figure,
    front_points,
    metric_values,
    page_ok,
    plotly_array,
    served_files,
    shown_episode,
    shown_hypervolume,
    video_frames,
)
from tests.conftest import REPO_DIR

APP = str(REPO_DIR / "dashboard" / "app.py")
TIMEOUT = 120
DST = "deep-sea-treasure-v0"
MINECART = "minecart-v0"


@pytest.fixture
def no_assets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty assets folder and a fresh cache: only the registry and the built-in agents."""
    (tmp_path / "assets").mkdir()
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tmp_path / "assets"))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _app(query: dict[str, str]):  # noqa: ANN202 - an AppTest
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"size": "240", **query})
    return at.run()


RANDOM_LABEL = "random (uniform baseline)"  # the built-in agent's series on the front


def _trace_names(at) -> list[str]:  # noqa: ANN001
    return [trace["name"] for trace in front_chart_figure(at)["data"]]


def _known_front_points(at) -> np.ndarray:  # noqa: ANN001
    """The known front's points as the front chart draws them."""
    (trace,) = [t for t in front_chart_figure(at)["data"] if t["name"].startswith("known front")]
    return np.column_stack([plotly_array(trace["x"]), plotly_array(trace["y"])])


def _front_gamma(at) -> str:  # noqa: ANN001
    """What the caption under Explore's front says of its returns' discount."""
    (caption,) = [text for text in captions(at) if text.startswith("The sweep's ")]
    return caption


def _random_returns(env_id: str, preference: list[float], seed: int = 0) -> np.ndarray:
    """One episode of the random agent, run directly with core (independent of the app)."""
    result = rollout_batch(
        RandomAgent(env_id),
        env_id,
        np.asarray([preference], dtype=np.float64),
        [seed],
        horizon=get_spec(env_id).horizon,
    )
    return result.returns[0]


def test_any_env_opens_with_the_random_agent_and_its_exact_front(
    no_assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.envs.known_fronts import known_front
    from paretoscope.evaluate import sweep
    from paretoscope.metrics import compare_with_front
    from paretoscope.settings import SweepSettings
    from paretoscope.sweeps import mean_per_preference
    from tests.apptests import episode_chart

    served = served_files(monkeypatch)
    at = _app({"env": DST, "agent": "random"})
    page_ok(at)
    assert at.selectbox(key="env").options == list_ids()  # no catalog env: the registry's order
    assert at.selectbox(key="agent").options == [RANDOM_LABEL]
    episode = shown_episode(at)
    assert episode.preference == [0.5, 0.5]
    np.testing.assert_allclose(episode_returns(at), _random_returns(DST, [0.5, 0.5]), rtol=1e-9)
    (video,) = episode_video_files(at, served)

    assert "known front (exact)" in _trace_names(at)
    front = known_front(DST, 1.0)
    np.testing.assert_array_equal(_known_front_points(at), front.points)
    settings = SweepSettings(granularity=20, seeds=[0], workers=1)
    table = sweep(RandomAgent(DST), DST, settings, progress=False)
    points = mean_per_preference(table, DST)
    expected = compare_with_front(points["returns"], points["preferences"], front.points)
    (indicators,) = [text for text in captions(at) if text.startswith("Known front (exact")]
    for label, value in (
        ("IGD", expected.igd),
        ("IGD+", expected.igd_plus),
        ("max utility loss", expected.maximum_utility_loss),
        ("mean regret", expected.mean_regret),
    ):
        assert f"{label} {number(value)}" in indicators, indicators
    # A frame for each step its reward chart shows.
    frames = video_frames(video)
    steps, _ = episode_chart(at)
    assert len(frames) == len(steps) and frames.shape[1:] == (240, 240, 3)


def test_minecart_streams_frames_and_draws_its_approximate_front(
    no_assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.apptests import episode_chart

    served = served_files(monkeypatch)
    at = _app({"env": MINECART, "agent": "random"})
    page_ok(at)
    (video,) = episode_video_files(at, served)
    assert len(video_frames(video)) > 0
    episode = shown_episode(at)
    np.testing.assert_allclose(
        episode_returns(at), _random_returns(MINECART, episode.preference), rtol=1e-9
    )
    names = _trace_names(at)
    assert "known front (approximate)" in names and "known front (exact)" not in names
    assert any("approximate" in text for text in captions(at))
    # Another preference: a new episode is recorded (frames and video, no exception). The
    # random agent ignores the preference, so its video may be the same bytes: what shows it
    # is that episode's own is a frame for each step its reward chart shows.
    at.slider(key="w_pref3_0").set_value(0.6).run()
    page_ok(at)
    assert shown_episode(at).preference != episode.preference
    (moved,) = episode_video_files(at, served)
    steps, _ = episode_chart(at)
    assert len(video_frames(moved)) == len(steps) > 0


def test_gamma_from_the_link_discounts_the_sweep_and_the_known_front(no_assets: Path) -> None:
    from paretoscope.envs.known_fronts import known_front
    from paretoscope.results_store import ResultsStore

    at = _app({"env": DST, "agent": "random", "gamma": "0.9"})
    page_ok(at)
    assert not at.warning
    assert at.number_input(key="gamma").value == pytest.approx(0.9)
    assert at.query_params["gamma"] in ("0.9", ["0.9"])
    stored = ResultsStore(no_assets / "results").read(DST)
    assert len(stored) == 21 and set(stored["gamma"]) == {0.9}
    assert "returns discounted by γ = 0.9 " in _front_gamma(at)
    np.testing.assert_array_equal(_known_front_points(at), known_front(DST, 0.9).points)
    lengths = stored["length"].to_numpy()
    raw = rollout_batch(RandomAgent(DST), DST, np.array([[0.5, 0.5]]), [0], horizon=100)
    discounted = rollout_batch(
        RandomAgent(DST), DST, np.array([[0.5, 0.5]]), [0], horizon=100, gamma=0.9
    )
    assert lengths[0] == raw.lengths[0]
    middle = front_points(at, RANDOM_LABEL)[10]  # the preference (0.5, 0.5)
    np.testing.assert_allclose(middle.preference, [0.5, 0.5])
    np.testing.assert_allclose(middle.returns, discounted.returns[0], rtol=1e-9)
    assert not np.allclose(middle.returns, raw.returns[0])  # the time penalty shrank
    # Back to 1: undiscounted, and the link loses its gamma.
    at.number_input(key="gamma").set_value(1.0).run()
    page_ok(at)
    assert "gamma" not in at.query_params
    assert "undiscounted returns" in _front_gamma(at)


@pytest.mark.parametrize("value", ["0", "1.5", "nan", "-0.5", "abc"])
def test_a_bad_gamma_in_the_link_is_noted_and_ignored(no_assets: Path, value: str) -> None:
    at = _app({"env": DST, "agent": "random", "gamma": value})
    page_ok(at)
    notes = " ".join(warning.value for warning in at.warning)
    assert f"gamma='{value}'" in notes and "expected a number from 0.0001 to 1" in notes
    assert at.number_input(key="gamma").value == 1.0
    assert "undiscounted returns" in _front_gamma(at)


def test_the_metrics_page_shows_the_indicators_at_the_sidebar_gamma(no_assets: Path) -> None:
    from paretoscope.envs.known_fronts import known_front
    from paretoscope.evaluate import summarize, sweep
    from paretoscope.settings import SweepSettings

    at = _app({"env": DST, "agent": "random", "gamma": "0.95"})
    at.switch_page("views/rtg.py").run()
    page_ok(at)
    settings = SweepSettings(granularity=20, seeds=[0], workers=1, gamma=0.95)
    table = sweep(RandomAgent(DST), DST, settings, progress=False)
    summary = summarize(table, DST)
    assert summary.known_front is not None and summary.against_known is not None
    assert any("Returns are discounted by γ = 0.95." in text for text in captions(at))
    shown, shaded = shown_hypervolume(at)
    expected = summary.front.hypervolume
    assert shown == number(expected) and shaded == pytest.approx(expected)
    metrics = metric_values(at)
    assert metrics["IGD (lower is better)"] == number(summary.against_known.igd)
    assert metrics["mean regret (lower is better)"] == number(summary.against_known.mean_regret)
    assert known_front(DST, 0.95).gamma == 0.95


def test_an_env_without_a_known_front_shows_none(no_assets: Path) -> None:
    at = _app({"env": "mo-mountaincar-timemove-v0", "agent": "random"})
    page_ok(at)
    names = _trace_names(at)
    assert not any(name.startswith("known front") for name in names)
    assert not any(text.startswith("Known front") for text in captions(at))
    assert episode_videos(at), "its episode plays"
