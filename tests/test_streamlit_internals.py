"""`paretoscope.dashboard.streamlit_internals`, the dashboard's one seam with Streamlit's internals:
with the installed Streamlit every hook works and the fast paths are taken; with each one made
missing, its check says so, its fallback is taken, and the server log says so once. The page
test shows Explore working with every hook a page run uses missing."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from paretoscope.dashboard import frame_feed, live, page_preload, request_heads
from paretoscope.dashboard import streamlit_internals as internals

WARNINGS_LOGGER = internals.__name__


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[Records]:
    """Every hook unprobed (as in a new process), the feed's route not yet added, and what the
    seam logs."""
    monkeypatch.setattr(internals, "_problems", {})
    monkeypatch.setattr(frame_feed, "_taken", False)
    monkeypatch.setattr(frame_feed, "_served", False)
    monkeypatch.setattr(request_heads, "_taken", False)
    records = Records()
    logger = logging.getLogger(WARNINGS_LOGGER)
    logger.addHandler(records)
    yield records
    logger.removeHandler(records)


# --- the installed Streamlit ------------------------------------------------------------------


def test_every_hook_works_with_the_installed_streamlit(
    fresh: Records, capsys: pytest.CaptureFixture
) -> None:
    assert [check.problem for check in internals.check_all()] == [None] * len(internals.HOOKS)
    assert fresh.messages == []
    assert internals.main() == 0
    printed = capsys.readouterr().out
    assert printed.count("works ") == len(internals.HOOKS) and "BROKEN" not in printed
    assert f"Streamlit {internals.streamlit_version()}" in printed


def test_the_tested_range_is_the_package_s_streamlit_requirement() -> None:
    """What the warnings name is pyproject.toml's bound (an upper one: the releases tested)."""
    import re

    from tests.conftest import REPO_DIR

    pyproject = (REPO_DIR / "pyproject.toml").read_text()
    (required,) = re.findall(r'"streamlit([<>=!~,.\d ]*)"', pyproject)
    assert required.startswith(">=1.52,<")
    assert internals.tested_streamlit() == required, "reinstall the package: its metadata is old"


def test_the_start_step_runs_after_streamlit_s_own_even_a_failing_one(
    fresh: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.web import bootstrap

    steps: list[str] = []

    def streamlit_step(server: object) -> None:
        steps.append(f"streamlit {server}")
        if server == "broken":
            raise RuntimeError("no port")

    monkeypatch.setattr(bootstrap, "_on_server_start", streamlit_step)
    assert internals.on_server_start(lambda: steps.append("listening"))
    bootstrap._on_server_start("server")
    with pytest.raises(RuntimeError):
        bootstrap._on_server_start("broken")
    assert steps == ["streamlit server", "listening", "streamlit broken", "listening"]


def test_the_server_s_routes_get_the_feed_and_the_preloading_pages(
    fresh: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both edits chained onto the routes Streamlit builds (its own frontend files' route
    here), taking effect when the server builds them."""
    from streamlit.web.server.starlette import starlette_app
    from streamlit.web.server.starlette.starlette_static_routes import (
        create_streamlit_static_assets_routes,
    )

    monkeypatch.setattr(
        starlette_app,
        "create_streamlit_routes",
        lambda runtime: create_streamlit_static_assets_routes(base_url=None),
    )
    assert frame_feed.install() and page_preload.install()
    assert not frame_feed.installed()  # not until the server has built its routes
    feed, static = starlette_app.create_streamlit_routes(object())
    assert frame_feed.installed()
    assert feed.path == frame_feed.FEED_PATH + "{token}"
    assert static.name == "static-assets" and isinstance(static.app, page_preload.PreloadingPages)
    assert fresh.messages == []


def test_the_direct_run_check_is_skipped(monkeypatch: pytest.MonkeyPatch, fresh: Records) -> None:
    from streamlit import delta_generator

    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    assert internals.skip_direct_run_check()
    assert delta_generator._use_warning_has_been_displayed is True


def test_what_a_run_was_asked_is_read_only_in_a_page_run(fresh: Records) -> None:
    assert internals.pending_request() == internals.NOTHING_PENDING  # no page run here
    assert internals.run_session_id() is None and not internals.fragment_run()


def test_the_cache_notes_are_quieted_in_the_block_only(fresh: Records) -> None:
    from streamlit.runtime.caching import cache_data_api

    level = cache_data_api._LOGGER.level
    with internals.cache_notes_quieted():
        assert cache_data_api._LOGGER.level == logging.ERROR
    assert cache_data_api._LOGGER.level == level


# --- each hook made missing -------------------------------------------------------------------


class _RequestsReadOtherwise:
    """Streamlit's requests to a script run, as a later Streamlit might keep them."""

    def __init__(self) -> None:
        self.queue: list[object] = []

    def request_rerun(self, data: object) -> bool:
        self.queue.append(data)
        return True

    def request_stop(self) -> None:
        self.queue.append("stop")


@dataclass(frozen=True)
class Missing:
    hook: internals.Hook
    remove: Callable[[pytest.MonkeyPatch, Path], None]  # makes the hook missing or changed
    fallback: Callable[[], None]  # asserts the dashboard takes its slower path


def _remove_server_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.web import bootstrap

    monkeypatch.delattr(bootstrap, "_on_server_start")


def _without_server_start() -> None:
    from streamlit.web import bootstrap

    assert internals.on_server_start(lambda: None) is False  # warm imports begin at once
    assert not hasattr(bootstrap, "_on_server_start")


def _remove_server_routes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.web.server.starlette import starlette_app

    monkeypatch.delattr(starlette_app, "create_streamlit_routes")


def _without_server_routes() -> None:
    assert internals.edit_server_routes(lambda routes: routes) is False
    # Frames as Streamlit image messages; widget code loaded on demand.
    assert frame_feed.install() is False and not frame_feed.installed()
    assert page_preload.install() is False


def _remove_server_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.web.server.starlette import starlette_server

    monkeypatch.delattr(starlette_server, "_get_uvicorn_config_kwargs")


def _without_server_config() -> None:
    assert internals.edit_server_config(lambda settings: settings) is False
    assert request_heads.install() is False  # request heads are not timed


def _remove_frontend_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit import file_util

    monkeypatch.setattr(file_util, "get_static_dir", lambda: str(tmp_path))  # no index.html


def _without_frontend_files() -> None:
    assert internals.frontend_dir() is None
    assert page_preload.install() is False  # widget code loaded on demand


def _remove_direct_run_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit import delta_generator

    monkeypatch.delattr(delta_generator, "_use_warning_has_been_displayed")


def _without_direct_run_check() -> None:
    from streamlit import delta_generator

    assert internals.skip_direct_run_check() is False  # Streamlit makes its check
    assert not hasattr(delta_generator, "_use_warning_has_been_displayed")


def _remove_run_context(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime.scriptrunner_utils import script_run_context

    monkeypatch.delattr(script_run_context, "get_script_run_ctx")


def _without_run_context() -> None:
    assert internals.run_session_id() is None and not internals.fragment_run()
    assert internals.pending_request() is None  # Streamlit acts at the run's next message
    assert internals.session_is_active("a session long gone")  # the ids are the dashboard's


def _remove_pending_rerun(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime.scriptrunner_utils import script_requests

    monkeypatch.setattr(script_requests, "ScriptRequests", _RequestsReadOtherwise)


def _without_pending_rerun() -> None:
    assert internals.pending_request() is None
    assert not live.stop_requested() and not live.move_waits()


def _remove_session_liveness(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime import Runtime

    monkeypatch.delattr(Runtime, "is_active_session")


def _without_session_liveness() -> None:
    assert internals.session_is_active("a session long gone")


def _remove_media_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime.media_file_manager import MediaFileManager

    monkeypatch.delattr(MediaFileManager, "add")


def _without_media_files() -> None:
    assert internals.media_url(b"mp4", "video/mp4", "paretoscope:video") is None  # st.video


def _remove_cache_logger(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit.runtime.caching import cache_data_api

    monkeypatch.setattr(cache_data_api, "_LOGGER", "not a logger")


def _without_cache_logger() -> None:
    logger = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = logger.level
    with internals.cache_notes_quieted():  # the notes are logged
        assert logger.level == level


def _remove_server_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamlit import logger

    monkeypatch.delattr(logger, "get_logger")


def _without_server_log() -> None:
    name = "paretoscope.tests.plain"
    assert internals.server_logger(name) is logging.getLogger(name)
    assert logging.getLogger(name).handlers == []  # Python's own logging, no handler of Streamlit's


MISSING = [
    Missing(internals.SERVER_START, _remove_server_start, _without_server_start),
    Missing(internals.SERVER_ROUTES, _remove_server_routes, _without_server_routes),
    Missing(internals.SERVER_CONFIG, _remove_server_config, _without_server_config),
    Missing(internals.FRONTEND_FILES, _remove_frontend_files, _without_frontend_files),
    Missing(internals.DIRECT_RUN_CHECK, _remove_direct_run_check, _without_direct_run_check),
    Missing(internals.RUN_CONTEXT, _remove_run_context, _without_run_context),
    Missing(internals.PENDING_RERUN, _remove_pending_rerun, _without_pending_rerun),
    Missing(internals.SESSION_LIVENESS, _remove_session_liveness, _without_session_liveness),
    Missing(internals.MEDIA_FILES, _remove_media_files, _without_media_files),
    Missing(internals.CACHE_LOGGER, _remove_cache_logger, _without_cache_logger),
    Missing(internals.SERVER_LOG, _remove_server_log, _without_server_log),
]


def test_every_hook_has_a_missing_case_and_a_line_in_the_docs() -> None:
    from tests.conftest import REPO_DIR

    assert [missing.hook for missing in MISSING] == list(internals.HOOKS)
    docs = (REPO_DIR / "docs" / "dashboard.md").read_text()
    assert [hook.name for hook in internals.HOOKS if f"| `{hook.name}` |" not in docs] == []


@pytest.mark.parametrize("missing", MISSING, ids=lambda missing: missing.hook.name)
def test_a_missing_hook_is_reported_once_and_its_fallback_taken(
    missing: Missing,
    fresh: Records,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
) -> None:
    missing.remove(monkeypatch, tmp_path)
    checks = internals.check_all()  # the server's start
    broken = [check for check in checks if not check.works]
    assert [check.hook for check in broken] == [missing.hook], [c.problem for c in broken]
    missing.fallback()
    missing.fallback()
    internals.check_all()
    assert not internals.works(missing.hook)

    (warning,) = fresh.messages  # once, however often the hook is asked for
    assert f"Streamlit {internals.streamlit_version()}: " in warning
    assert f"hook {missing.hook.name} " in warning and broken[0].problem in warning
    assert missing.hook.without in warning

    assert internals.main() == 1  # the check on its own says which, and what happens without it
    printed = capsys.readouterr().out
    assert f"BROKEN  {missing.hook.name}" in printed and printed.count("BROKEN") == 1


def test_a_server_without_the_frontend_s_route_serves_plain_pages(fresh: Records) -> None:
    """The files are there but no route serves them as expected: reported once when the
    routes are built, then the slower path."""
    routes = ["a route of Streamlit's"]
    assert internals.wrap_static_files(routes, lambda app: "wrapped") == routes
    assert internals.wrap_static_files(routes, lambda app: "wrapped") == routes
    (warning,) = fresh.messages
    assert "hook frontend_files" in warning and '"static-assets"' in warning
    assert internals.frontend_dir() is None


# --- pages with the hooks of a page run missing -------------------------------------------------


def _session_page() -> None:  # AppTest runs the body alone: everything it needs is inside
    import streamlit as st

    from paretoscope.dashboard.session import session_id

    st.session_state.setdefault("seen", []).append(session_id())


def test_without_the_run_context_a_session_keeps_an_id_of_the_dashboard_s_own(
    fresh: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_session_page).run()
    streamlit_s = at.session_state["seen"][0]
    assert streamlit_s != "anonymous"
    monkeypatch.setitem(internals._problems, internals.RUN_CONTEXT.name, "made missing")
    at = AppTest.from_function(_session_page).run()
    at.run()
    first, again = at.session_state["seen"]
    assert first == again and first != streamlit_s and len(first) == 32
    other = AppTest.from_function(_session_page).run()
    assert other.session_state["seen"][0] != first  # each session its own


@pytest.mark.slow
def test_explore_plays_an_episode_with_every_hook_of_a_page_run_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: Records
) -> None:
    """No run context, no look at what a run was asked, no session liveness, no media files:
    the page still streams the episode (as image messages) and plays it (in `st.video`)."""
    from tests.apptests import episode_videos, open_app, page_ok, shown_episode
    from tests.demo_fixture import build_tiny_assets

    assets = build_tiny_assets(tmp_path / "assets", horizon=30)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    page_run_hooks = (
        internals.RUN_CONTEXT,
        internals.PENDING_RERUN,
        internals.SESSION_LIVENESS,
        internals.MEDIA_FILES,
    )
    for hook in page_run_hooks:
        monkeypatch.setitem(internals._problems, hook.name, "made missing by the test")

    at = open_app()
    page_ok(at)
    assert shown_episode(at).preference == [0.5, 0.5]
    assert len(list((tmp_path / "cache" / "rollouts").glob("*.mp4"))) == 1  # its recording
    assert not episode_videos(at) and at.get("video"), "Streamlit's own player plays it"
    at.slider[0].set_value(0.8).run()  # a move: the next episode
    page_ok(at)
    assert shown_episode(at).preference == pytest.approx([0.2, 0.8])
    assert len(list((tmp_path / "cache" / "rollouts").glob("*.mp4"))) == 2
