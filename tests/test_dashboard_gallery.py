"""The Gallery page in Streamlit's AppTest on small assets (30-step HalfCheetah episodes): its
tiles, the behaviour embedding, and "why do these two differ" checked against the two tiles'
episodes run again by core (their cumulative rewards) and their videos' own frames.

The tiles' playing in lockstep and the hover links are in tests/e2e/test_gallery_browser.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pytest

from tests.apptests import component_arguments, open_app, page_ok, plotly_array, plotly_chart
from tests.demo_fixture import CHEETAH, build_tiny_assets

pytestmark = pytest.mark.slow

HORIZON = 30
AGENT = "cheetah-morvs"


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("assets"), horizon=HORIZON, with_hopper=False)


@pytest.fixture
def app_env(assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    yield assets


def _tile_preferences(at) -> list[np.ndarray]:  # noqa: ANN001 - an AppTest
    """Each tile's preference, from its Explore link (six decimals: the sweep grid's values)."""
    (arguments,) = component_arguments(at, "tiles")
    return [
        np.array([float(value) for value in parse_qs(tile["query"][1:])["pref"][0].split(",")])
        for tile in arguments["tiles"]
    ]


def _cumulative_rewards(assets: Path, preference: np.ndarray) -> np.ndarray:
    """The episode at `preference` (seed 0, 30 steps) rolled out again by core: its
    cumulative reward after each step."""
    from paretoscope.agents import load
    from paretoscope.behaviour import episode_states

    agent = load(next((assets / "agents").glob(f"{AGENT}*")))
    states = episode_states(agent, CHEETAH, preference, 0, horizon=HORIZON)
    return np.cumsum(states.rewards, axis=0)


def _detailed_gallery():  # noqa: ANN202 - an AppTest
    """The Gallery page with its "behaviour in detail" shown (off at first: nothing below the
    tiles loads while they start)."""
    at = open_app({"env": CHEETAH, "agent": AGENT})
    at.switch_page("views/gallery.py").run()
    page_ok(at)
    assert not at.toggle(key="gallery_detail").value
    assert not [chart for chart in at.get("plotly_chart")]
    at.toggle(key="gallery_detail").set_value(True).run()
    page_ok(at)
    return at


def test_why_two_tiles_differ(app_env: Path) -> None:
    at = _detailed_gallery()
    preferences = _tile_preferences(at)
    count = len(preferences)
    assert count > 2
    assert any(header.value == "Why do these two differ?" for header in at.subheader)
    assert (at.selectbox(key="gallery_a").value, at.selectbox(key="gallery_b").value) == (
        0,
        count - 1,
    )

    # The curve: tile A's cumulative return minus tile B's at each frame's step.
    first = _cumulative_rewards(app_env, preferences[0])
    last = _cumulative_rewards(app_env, preferences[-1])
    figure = plotly_chart(at, "gallery_difference")
    curves = [trace for trace in figure["data"] if trace.get("mode") == "lines"]
    assert len(curves) == 2  # one per objective
    for objective, curve in enumerate(curves):
        steps = plotly_array(curve["x"]).astype(int)
        assert steps[-1] == HORIZON
        expected = first[np.minimum(steps, len(first)) - 1, objective]
        expected = expected - last[np.minimum(steps, len(last)) - 1, objective]
        np.testing.assert_allclose(plotly_array(curve["y"]), expected, rtol=1e-6, atol=1e-9)

    # The moments: one dotted line per step, each with both tiles' frames under the chart.
    moments = [
        int(shape["x0"])
        for shape in figure["layout"]["shapes"]
        if shape["type"] == "line"
        and shape.get("x0") == shape.get("x1")
        and shape["line"].get("dash") == "dot"
    ]
    assert 1 <= len(moments) <= 3 and all(1 <= step <= HORIZON for step in moments)
    captions = [image.proto.imgs[0].caption for image in at.get("image")]
    assert captions == [
        text for step in moments for text in (f"#1 at step {step}", f"#{count} at step {step}")
    ]

    # Another pair; the same tile twice asks for two.
    at.selectbox(key="gallery_a").set_value(1).run()
    page_ok(at)
    second = _cumulative_rewards(app_env, preferences[1])
    curve = plotly_chart(at, "gallery_difference")["data"][0]
    steps = plotly_array(curve["x"]).astype(int)
    np.testing.assert_allclose(
        plotly_array(curve["y"]),
        second[np.minimum(steps, len(second)) - 1, 0] - last[np.minimum(steps, len(last)) - 1, 0],
        rtol=1e-6,
        atol=1e-9,
    )
    at.selectbox(key="gallery_b").set_value(1).run()
    assert any("Choose two different tiles" in info.value for info in at.info)


def test_the_embedding_marks_every_tile_in_its_cluster(app_env: Path) -> None:
    at = open_app({"env": CHEETAH, "agent": AGENT})
    at.switch_page("views/gallery.py").run()
    (arguments,) = component_arguments(at, "tiles")
    assert arguments["embedding"] is None  # not drawn until asked for
    at.toggle(key="gallery_detail").set_value(True).run()
    page_ok(at)
    (arguments,) = component_arguments(at, "tiles")
    figure = json.loads(arguments["embedding"])
    # One point per tile, in the tiles' order (the browser links them by index), numbered and
    # in its cluster's colour; and an empty ring for the hovered tile.
    (points,) = [trace for trace in figure["data"] if trace.get("uid") == "tiles"]
    count = len(arguments["tiles"])
    assert points["text"] == [str(index + 1) for index in range(count)]
    assert len(plotly_array(points["x"])) == len(plotly_array(points["y"])) == count
    assert points["marker"]["color"] == [tile["colour"] for tile in arguments["tiles"]]
    assert all(tile["colour"] for tile in arguments["tiles"])
    (ring,) = [trace for trace in figure["data"] if trace.get("uid") == "lit"]
    assert list(ring["x"]) == []


def _agent_and_sweep_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the loaders of agents and sweeps the pages call from now on, in order."""
    from paretoscope.dashboard import loaders

    calls: list[str] = []
    for name in ("fitting_agent", "loaded_agent", "sweep_points", "sweep_table"):
        original = getattr(loaders, name)

        def spy(*args: object, _name: str = name, _original=original, **kwargs: object):  # noqa: ANN001, ANN202
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(loaders, name, spy)
    return calls


def _without_urls(arguments: dict) -> dict:
    """The component's arguments but the videos' URLs (and the key of the drawing, made of
    them): what a gallery drawn from the same layout must repeat."""
    tiles = [{**tile, "url": None} for tile in arguments["tiles"]]
    return {**arguments, "tiles": tiles, "drawn": None}


def _fresh_server() -> None:
    """Forget what this process's pages cached, as a server started afresh."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


def _gallery(monkeypatch: pytest.MonkeyPatch) -> tuple[dict, list[str]]:
    """The Gallery page opened (after Explore) on a fresh server: its component's arguments,
    and the agent and sweep loaders it called."""
    _fresh_server()
    at = open_app({"env": CHEETAH, "agent": AGENT})
    loads = _agent_and_sweep_loads(monkeypatch)
    at.switch_page("views/gallery.py").run()
    page_ok(at)
    (arguments,) = component_arguments(at, "tiles")
    assert all(tile["url"] and tile["colour"] for tile in arguments["tiles"])
    monkeypatch.undo()  # the spies, and the environment: set again below
    return arguments, loads


def test_a_saved_layout_draws_the_gallery_without_the_agent(
    assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first gallery computes its layout (the sweep's front, the tiles and their clusters)
    and saves it beside its recordings; a fresh server draws the same gallery from it, loading
    neither the agent nor its sweep. A missing tile loads the agent to record it; a layout
    that names another fingerprint than the agent's is computed again."""
    from paretoscope.behaviour.saved_layout import GALLERIES_SUBDIR
    from paretoscope.cache import RECORDINGS_SUBDIR

    def environment() -> None:
        monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
        monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))

    environment()
    computed, loads = _gallery(monkeypatch)
    assert "fitting_agent" in loads and "sweep_points" in loads
    recorded = tmp_path / "cache" / RECORDINGS_SUBDIR
    (saved,) = (recorded / GALLERIES_SUBDIR).glob("*.json")

    environment()
    drawn, loads = _gallery(monkeypatch)
    assert _without_urls(drawn) == _without_urls(computed)
    assert loads == []

    # A tile's recording lost: the agent loads to record it, the layout is still drawn from.
    first = [float(v) for v in parse_qs(computed["tiles"][0]["query"][1:])["pref"][0].split(",")]
    (lost,) = [
        video
        for video in recorded.glob("*.mp4")
        if np.allclose(
            json.loads(video.with_suffix(".json").read_text())["meta"]["preference"], first
        )
    ]
    lost.unlink()
    environment()
    drawn, loads = _gallery(monkeypatch)
    assert _without_urls(drawn) == _without_urls(computed)
    assert "fitting_agent" in loads and "sweep_points" not in loads
    assert lost.exists()  # recorded again, under the same key

    # A layout naming another fingerprint: its tiles' recordings are not found, the agent
    # loads and does not match, and the layout is computed again (and saved right).
    layout = json.loads(saved.read_text())
    saved.write_text(json.dumps({**layout, "fingerprint": "0" * 32}))
    environment()
    drawn, loads = _gallery(monkeypatch)
    assert _without_urls(drawn) == _without_urls(computed)
    assert "sweep_points" in loads
    assert json.loads(saved.read_text()) == layout

    # Another tile count is another layout: computed from the agent's sweep.
    environment()
    _fresh_server()
    at = open_app({"env": CHEETAH, "agent": AGENT})
    loads = _agent_and_sweep_loads(monkeypatch)
    at.switch_page("views/gallery.py").run()
    at.slider(key="gallery_tiles").set_value(4).run()
    page_ok(at)
    assert "fitting_agent" in loads and "sweep_points" in loads
    assert len(component_arguments(at, "tiles")[0]["tiles"]) == 4
    assert len(list((recorded / GALLERIES_SUBDIR).glob("*.json"))) == 2


def test_an_agent_that_is_no_checkpoint_saves_no_layout(app_env: Path, tmp_path: Path) -> None:
    """A built-in agent has no files whose content names it: its gallery is computed each
    time, and no layout is saved."""
    from paretoscope.behaviour.saved_layout import GALLERIES_SUBDIR
    from paretoscope.cache import RECORDINGS_SUBDIR

    _fresh_server()
    at = open_app({"env": "deep-sea-treasure-v0", "agent": "random"})
    at.switch_page("views/gallery.py").run()
    page_ok(at)
    (arguments,) = component_arguments(at, "tiles")
    assert arguments["tiles"] and all(tile["url"] for tile in arguments["tiles"])
    assert not list((tmp_path / "cache" / RECORDINGS_SUBDIR / GALLERIES_SUBDIR).glob("*"))


def test_the_bundled_gallery_plays_the_shipped_recordings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's default gallery is recorded in assets/rollouts/ with its layout
    (scripts/prerender_gallery.py): on a fresh cache every tile has its video, nothing is
    recorded and neither the agent nor its sweep is loaded. When this fails, the default agent,
    its sweep, the recording keys or the layout changed: run the script again."""
    from paretoscope.agents import load
    from paretoscope.behaviour import cluster, describe, embed, episode_states, pick_tiles
    from paretoscope.behaviour.saved_layout import GALLERIES_SUBDIR, GalleryLayout
    from paretoscope.cache import RECORDINGS_SUBDIR
    from paretoscope.catalog import ROLLOUTS_DIR, bundled_assets_dir, discover_assets
    from paretoscope.results_store import layered_store
    from paretoscope.sweeps import SweepRequest, mean_per_preference, sweep_horizon

    monkeypatch.delenv("PARETOSCOPE_ASSETS", raising=False)
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")  # only the pages record here
    recorded = tmp_path / "cache" / RECORDINGS_SUBDIR
    at = open_app({"size": "480"})  # Explore first (it records its episode)
    before = set(recorded.glob("*.mp4"))
    loads = _agent_and_sweep_loads(monkeypatch)
    at.switch_page("views/gallery.py").run()
    page_ok(at)
    (arguments,) = component_arguments(at, "tiles")
    assert len(arguments["tiles"]) == 9 and all(tile["url"] for tile in arguments["tiles"])
    assert set(recorded.glob("*.mp4")) == before  # the gallery recorded nothing
    assert loads == []  # ... and drew its shipped layout
    shipped = bundled_assets_dir() / ROLLOUTS_DIR
    assert len(list(shipped.glob("*.mp4"))) == 9

    # The shipped layout is what this code computes for the default agent: its fingerprint,
    # the front of its stored sweep and the tiles picked on it.
    (layout_file,) = (shipped / GALLERIES_SUBDIR).glob("*.json")
    catalog = discover_assets(bundled_assets_dir())
    (asset,) = [asset for asset in catalog.agents if asset.name == catalog.defaults["agent"]]
    assert asset.env_id is not None and asset.n_obj is not None
    layout = GalleryLayout.from_dict(json.loads(layout_file.read_text()), asset.n_obj, 9)
    agent = load(asset.path)
    assert layout.fingerprint == agent.fingerprint()
    request = SweepRequest(
        fingerprint=layout.fingerprint,
        name=asset.name,
        env_id=asset.env_id,
        plan=asset.sweep_plan(),
        preferences=None,
        targets=None,
        gamma=1.0,
    )
    store = layered_store(catalog.results_dirs, tmp_path / "results")
    assert request.missing(agent, store) == 0
    front = mean_per_preference(request.run(agent, store), asset.env_id)
    np.testing.assert_array_equal(front["returns"], layout.front)
    chosen = pick_tiles(front["preferences"], front["returns"], 9)
    np.testing.assert_array_equal(chosen.rows, layout.rows)
    np.testing.assert_array_equal(chosen.preferences, layout.preferences)
    np.testing.assert_array_equal(chosen.returns, layout.returns)
    # ... and the behaviour clusters of the tiles' episodes, run again.
    states = [
        episode_states(
            agent,
            asset.env_id,
            preference,
            0,
            horizon=sweep_horizon(asset.sweep_plan(), asset.env_id),
        )
        for preference in layout.preferences
    ]
    described = describe(states)
    found = cluster(described, seed=0)
    assert tuple(found.labels.tolist()) == layout.labels and tuple(found.names) == layout.names
    np.testing.assert_allclose(embed(described.values), layout.embedding, rtol=1e-9, atol=1e-9)
