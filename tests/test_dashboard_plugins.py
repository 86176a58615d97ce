"""Plug-in agents in the dashboard: `paretoscope dashboard --agent py:module:callable` carried to
the app, registered once per process, listed for every env, loaded and cached per (name, env),
and a plug-in that cannot be imported shown as an error while the page goes on.

The plug-in is `tests/plugin_examples.py`; registrations are undone after each test (the
registry is process-wide: other tests must not see these agents)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from paretoscope.cli import dashboard as dashboard_cli
from paretoscope.errors import ParetoscopeError
from tests.apptests import episode_returns, episode_videos, shown_episode
from tests.conftest import REPO_DIR
from tests.registry_support import private_registries

APP = str(REPO_DIR / "dashboard" / "app.py")
PLUGIN = "py:tests.plugin_examples:surface_then_dive"
MISSING = "py:tests.no_such_plugin_module:make"
DST = "deep-sea-treasure-v0"


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A private copy of the named-agent registry and of the dashboard's failure memo."""
    from paretoscope.agents.builtin import NAMED_AGENTS
    from paretoscope.dashboard import plugins

    private_registries(monkeypatch, NAMED_AGENTS)
    monkeypatch.setattr(plugins, "_failed", {})
    yield


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    dashboard_cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["dashboard", *argv])


def test_the_agent_flag_reaches_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.dashboard.limits import plugin_sources

    args = _parse("--assets", str(tmp_path), "--agent", PLUGIN, "--agent", "py:pkg.mod:A.make")
    values = dashboard_cli.limits_environment(args)
    assert values[dashboard_cli.PLUGINS_ENV_VAR] == f"{PLUGIN}\npy:pkg.mod:A.make"
    monkeypatch.setenv(dashboard_cli.PLUGINS_ENV_VAR, values[dashboard_cli.PLUGINS_ENV_VAR])
    assert plugin_sources() == [PLUGIN, "py:pkg.mod:A.make"]
    # Without the flag nothing is set; a name that is no plug-in is refused before the server
    # starts (nothing is imported by the command line: the app says what fails to import).
    assert dashboard_cli.PLUGINS_ENV_VAR not in dashboard_cli.limits_environment(_parse())
    for bad in (
        "tests.plugin_examples:surface_then_dive",
        "py:os",
        "py:os:system; rm",
        "py:../x:make",
    ):
        with pytest.raises(ParetoscopeError, match="py:module.path:callable"):
            dashboard_cli.limits_environment(_parse("--agent", bad))


@pytest.mark.slow
def test_plug_ins_play_and_a_broken_one_is_an_error_in_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: None
) -> None:
    from streamlit.testing.v1 import AppTest

    from paretoscope.agents.plugin import load_plugin
    from paretoscope.rollout import rollout_batch

    (tmp_path / "assets" / "agents").mkdir(parents=True)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tmp_path / "assets"))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(dashboard_cli.PLUGINS_ENV_VAR, f"{PLUGIN}\n{MISSING}")
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"size": "240", "env": DST, "agent": PLUGIN})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [error.value for error in at.error]
    assert len(errors) == 1 and "tests.no_such_plugin_module" in errors[0], errors
    assert "cannot import" in errors[0], errors
    agent_box = at.selectbox(key="agent")
    assert agent_box.value == PLUGIN
    # The list's entry is short; what it leaves out is the caption under it.
    assert PLUGIN in agent_box.options
    assert "plug-in" in [caption.value for caption in at.sidebar.caption]
    assert episode_videos(at), "the plug-in's episode plays"
    episode = shown_episode(at)
    direct = rollout_batch(
        load_plugin(PLUGIN, DST), DST, np.asarray([episode.preference]), [episode.seed]
    )
    np.testing.assert_allclose(episode_returns(at), direct.returns[0])
    np.testing.assert_allclose(episode_returns(at), [23.7, -19.0], rtol=1e-6)  # the deepest one
    # Every env lists it; the broken one is tried once per process, and still reported.
    at.selectbox(key="env").set_value("minecart-v0").run()
    assert not at.exception
    assert PLUGIN in at.selectbox(key="agent").options
    assert len(at.error) == 1


def test_a_plug_in_is_loaded_once_per_env_and_no_file_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: None
) -> None:
    from paretoscope.agents.builtin import register_plugin
    from paretoscope.catalog import AssetCatalog
    from paretoscope.dashboard import loaders

    register_plugin(PLUGIN)
    asset = AssetCatalog().agent_choice(DST, PLUGIN)
    assert asset.format == "plugin" and asset.builtin
    # A file named like the plug-in in the working directory is not the agent's file.
    monkeypatch.chdir(tmp_path)
    (tmp_path / PLUGIN).write_text("not an agent")
    assert loaders._stamp(asset) == 0.0
    first = loaders.loaded_agent(asset)
    assert loaders.loaded_agent(asset) is first
    assert first.fingerprint.startswith("plugin:") and first.spec.env_id == DST
    other = loaders.loaded_agent(AssetCatalog().agent_choice("minecart-v0", PLUGIN))
    assert other is not first and other.spec.env_id == "minecart-v0"
