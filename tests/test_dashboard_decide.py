"""The Many objectives page (dashboard/views/decide.py) driven with AppTest on fruit-tree-v0 (six
objectives) with a plug-in that walks to the best fruit for its preference: the policies the
views show, the aspiration control's pick against a brute-force achievement scalarizing
function over the page's own sweep, a selection made elsewhere replayed, the normalisation and
the metric conventions in the sidebar."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from math import comb
from pathlib import Path

import numpy as np
import pytest

from paretoscope.cli import dashboard as dashboard_cli
from tests.apptests import (
    APP,
    TIMEOUT,
    captions,
    component_arguments,
    episode_videos,
    page_ok,
    plotly_array,
)
from tests.registry_support import private_registries

PLUGIN = "py:tests.plugin_examples:fruit_picker"
FRUIT = "fruit-tree-v0"

pytestmark = pytest.mark.slow


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The app on an empty assets folder with the fruit-picking plug-in, opened on Decide."""
    from streamlit.testing.v1 import AppTest

    from paretoscope.agents.builtin import NAMED_AGENTS
    from paretoscope.dashboard import plugins

    private_registries(monkeypatch, NAMED_AGENTS)
    monkeypatch.setattr(plugins, "_failed", {})
    (tmp_path / "assets").mkdir()
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tmp_path / "assets"))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(dashboard_cli.PLUGINS_ENV_VAR, PLUGIN)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"size": "240", "env": FRUIT, "agent": PLUGIN})
    at.run()
    at.switch_page("views/decide.py").run()
    yield at


def _sweep_means(granularity: int) -> tuple[np.ndarray, np.ndarray]:
    """The plug-in's mean returns per preference, by core's own sweep (a different path)."""
    from paretoscope.agents.builtin import load_agent
    from paretoscope.evaluate import sweep
    from paretoscope.settings import SweepSettings
    from paretoscope.sweeps import mean_per_preference

    agent = load_agent(PLUGIN, FRUIT)
    settings = SweepSettings(granularity=granularity, seeds=[0], workers=1)
    table = sweep(agent, FRUIT, settings, progress=False)
    points = mean_per_preference(table, FRUIT)
    return points["preferences"], points["returns"]


def _views(at) -> tuple[dict, dict, dict]:  # noqa: ANN001
    """The linked views the page handed the browser: (matrix, parallel) figures and the rest."""
    (views,) = component_arguments(at, "matrix")
    return json.loads(views["matrix"]), json.loads(views["parallel"]), views


def _policies(at):  # noqa: ANN001, ANN202 - a DataFrame
    """The table of the policies listed (a row per policy, by its id)."""
    return next(frame.value for frame in at.dataframe if "pseudo-weights" in frame.value)


def _aspiration_table(at):  # noqa: ANN001, ANN202 - a DataFrame
    """The table beside the aspiration: the aspiration, the picked policy's returns and their
    difference, a row per objective."""
    return next(frame.value for frame in at.dataframe if "difference" in frame.value)


def _focus(at) -> int:  # noqa: ANN001
    """The policy the replay plays (its selectbox)."""
    (box,) = [box for box in at.selectbox if box.key.startswith("decide_focus_")]
    return int(box.value)


def _replayed_preference(at) -> list[float]:  # noqa: ANN001
    """The preference of the episode the replay's player shows (its label ends with it)."""
    (video,) = episode_videos(at)
    label = re.search(r'aria-label="Episode [^"]*-([0-9.,e-]+)"', video)
    assert label is not None, video
    return [float(value) for value in label.group(1).split(",")]


def _brute_force_pick(returns: np.ndarray, aspiration: np.ndarray) -> int:
    """Wierzbicki's augmented ASF over the non-dominated rows, written out plainly."""
    rows = []
    for i, p in enumerate(returns):
        dominated = any((q >= p).all() and (q > p).any() for j, q in enumerate(returns) if j != i)
        if not dominated:
            rows.append(i)
    front = returns[rows]
    span = front.max(axis=0) - front.min(axis=0)
    weights = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 1.0)
    best, best_score = None, np.inf
    for i in rows:
        shortfall = weights * (aspiration - returns[i])
        score = shortfall.max() + 1e-6 * shortfall.sum()
        if score < best_score - 1e-12:
            best, best_score = i, score
    assert best is not None
    return best


def _picked(at) -> int:  # noqa: ANN001
    """The policy the aspiration picks, as the table of policies marks it."""
    table = _policies(at)
    (pick,) = table.index[table["aspiration pick"]]
    return int(pick)


def test_the_page_shows_every_policy_of_the_grid_linked(app) -> None:  # noqa: ANN001
    at = app
    page_ok(at)
    # Six objectives: the default grid is 1/4, C(4 + 5, 5) = 126 preferences.
    assert len(_policies(at)) == comb(4 + 5, 5) == 126
    assert any(text.startswith("No policy selected yet (of 126).") for text in captions(at))
    matrix, parallel, views = _views(at)
    # One scatter matrix of the six objectives: non-dominated and dominated policies, each
    # policy once, carrying its id.
    policies = [t for t in matrix["data"] if t["name"] in ("non-dominated", "dominated")]
    assert all(t["type"] == "splom" and len(t["dimensions"]) == 6 for t in policies)
    assert sorted(row[0] for t in policies for row in t["customdata"]) == list(range(126))
    # Parallel coordinates: every policy on every axis, its height as the browser draws it.
    values = next(t for t in parallel["data"] if t["name"] == "values")
    assert sorted(row[0] for row in values["customdata"]) == sorted(list(range(126)) * 6)
    assert np.asarray(views["heights"]).shape == (126, 6)
    # The knee, the compromise, the pick and the aspiration are drawn in both views.
    names = {t["name"] for t in matrix["data"]} & {t["name"] for t in parallel["data"]}
    assert {"knee", "compromise", "aspiration pick", "aspiration"} <= names

    # A selection made in a view (as a callback would) is highlighted and replayed.
    at.session_state["decide_selected"] = (7, 40)
    at.run()
    page_ok(at)
    assert any(text.startswith("2 of 126 policies selected") for text in captions(at))
    assert _focus(at) == 7
    preferences, _ = _sweep_means(4)
    assert _views(at)[2]["selected"] == [7, 40]  # what the browser draws
    table = _policies(at)
    assert list(table.index[table["selected"]]) == [7, 40]
    at.toggle(key="decide_only_selected").set_value(True).run()
    page_ok(at)
    assert list(_policies(at).index) == [7, 40]
    # The replay plays the first selected policy's episode.
    assert _replayed_preference(at) == pytest.approx(preferences[7])


def test_the_aspiration_control_picks_the_brute_force_asf_point(app) -> None:  # noqa: ANN001
    at = app
    preferences, returns = _sweep_means(4)
    aspiration = np.array([3.0, 3.0, 3.0, 3.0, 3.0, 3.0])
    for index, value in enumerate(aspiration):
        at.number_input(key=f"decide_aspiration_{index}").set_value(float(value))
    at.run()
    page_ok(at)
    pick = _picked(at)
    expected = _brute_force_pick(returns, aspiration)
    assert np.allclose(returns[pick], returns[expected])
    assert list(_aspiration_table(at)["difference"]) == pytest.approx(
        returns[expected] - aspiration
    )
    # Nothing is selected, so the pick is the policy that rolls out.
    assert _focus(at) == pick
    assert _replayed_preference(at) == pytest.approx(preferences[pick])

    # Another aspiration, reachable only with a lot of objective 0: the pick follows it.
    at.number_input(key="decide_aspiration_0").set_value(9.0)
    at.run()
    page_ok(at)
    assert np.allclose(
        returns[_picked(at)],
        returns[_brute_force_pick(returns, np.array([9.0, 3.0, 3.0, 3.0, 3.0, 3.0]))],
    )


def test_normalisation_and_reference_point_are_the_sidebars(app) -> None:  # noqa: ANN001
    at = app
    _, returns = _sweep_means(4)
    at.radio(key="normalisation").set_value("min-max").run()
    page_ok(at)
    assert at.query_params["norm"] in ("min-max", ["min-max"])
    shown = np.asarray(_views(at)[2]["values"])
    assert shown.min(axis=0) == pytest.approx(np.zeros(6))
    assert shown.max(axis=0) == pytest.approx(np.ones(6))
    # The reference normalisation uses the sidebar's reference point: 0 there.
    at.number_input(key="ref_0").set_value(-1.0)
    at.radio(key="normalisation").set_value("reference").run()
    page_ok(at)
    matrix, _, views = _views(at)
    aspiration = next(t for t in matrix["data"] if t["name"] == "aspiration")
    drawn = plotly_array(aspiration["dimensions"][0]["values"])[0]
    asked = _aspiration_table(at)["aspiration"].iloc[0]
    assert drawn == pytest.approx((asked + 1.0) / (returns[:, 0].max() + 1.0))
    assert np.asarray(views["values"])[:, 0] == pytest.approx(
        (returns[:, 0] + 1.0) / (returns[:, 0].max() + 1.0)
    )
    ref = at.query_params["ref"]
    assert (ref[0] if isinstance(ref, list) else ref).startswith("-1,")


def test_a_grid_too_fine_is_refused_with_a_message(app) -> None:  # noqa: ANN001
    at = app
    at.number_input(key=f"decide_granularity_{FRUIT}").set_value(40).run()
    assert not at.exception
    assert any("at most 5000 policies" in warning.value for warning in at.warning)


def test_a_preference_blind_agent_is_named_and_its_levels_met_within_rounding(app) -> None:  # noqa: ANN001
    """random on fruit-tree: every preference gives the same returns (as core's sweep shows),
    the page says the agent ignores the preference, and the default aspiration (the front's
    midpoint typed to 4 digits) is met in all six objectives, every bar at 0."""
    at = app
    at.selectbox(key="agent").set_value("random").run()
    page_ok(at)
    notes = " ".join(info.value for info in at.info)
    assert "ignores the preference" in notes, notes
    assert any("It meets 6 of 6 levels" in text for text in captions(at)), captions(at)
    (bars,) = [
        trace
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
        if trace.get("type") == "bar"
    ]
    assert bars["text"] == ["0"] * 6
