"""Load and faults: the bounded rollout pool (queue, cancellation), the byte-bounded video
cache, corrupted caches, a results folder that cannot be written, non-finite actions, and
rendering that is unavailable. (A sweep killed midway that resumes with only what is missing:
tests/test_evaluate.py::test_killed_sweep_resumes_with_only_what_is_missing.)"""

from __future__ import annotations

import errno
import hashlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.dashboard import pool as pool_module
from paretoscope.dashboard.pool import RolloutPool
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings import EpisodeRequest, Recording, read_recording
from paretoscope.text import number
from tests.agents_for_tests import LinearAgent
from tests.apptests import (
    compare_metrics_table,
    count_episode_recordings,
    episode_chart,
    episode_video_files,
    episode_videos,
    front_chart_figure,
    front_points,
    page_ok,
    served_files,
    shown_episode,
    shown_hypervolume,
    trajectory_returns,
    video_frames,
)
from tests.conftest import REPO_DIR
from tests.waiting import wait_until

APP = str(REPO_DIR / "dashboard" / "app.py")
CHEETAH = "MO-HalfCheetah-v2"
HORIZON = 20


# --- the pool ------------------------------------------------------------------------------------


def test_pool_bounds_concurrency_and_serves_in_order() -> None:
    # Three workers: tasks hold at most two at once, one stays free for live frames.
    pool = RolloutPool(3, poll_seconds=0.01)
    lock = threading.Lock()
    inside = [0]
    most = [0]
    order: list[int] = []
    first_ahead: dict[int, int] = {}
    # Each task is released on its own, one at a time: one worker frees, and the next task in
    # line must be the one that gets it (a single release let two granted threads append their
    # indices in whichever order they woke).
    releases = [threading.Event() for _ in range(6)]

    def work(index: int) -> None:
        def on_wait(ahead: int) -> None:
            first_ahead.setdefault(index, ahead)

        with pool.slot(on_wait):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                order.append(index)
            releases[index].wait(10)
            with lock:
                inside[0] -= 1

    threads = []
    for index in range(6):
        thread = threading.Thread(target=work, args=(index,))
        thread.start()
        threads.append(thread)
        # Arrival order is the index: wait until this one is running or in line.
        wait_until(lambda n=index: pool.running + pool.waiting == n + 1)
    assert pool.running == 2 and pool.waiting == 4
    for index in range(6):
        releases[index].set()
        # The freed worker goes to the next task in line, which starts before the next release.
        wait_until(lambda n=index: len(order) == min(n + 3, 6))
    for thread in threads:
        thread.join(10)
    assert most[0] == 2
    assert order[:2] == [0, 1] and order[2:] == [2, 3, 4, 5]
    # The k-th request beyond the two slots first saw k requests ahead of it.
    assert {index: first_ahead[index] for index in range(2, 6)} == {2: 0, 3: 1, 4: 2, 5: 3}
    assert pool.running == 0 and pool.waiting == 0


def test_a_cancelled_waiting_request_gives_its_place_up() -> None:
    pool = RolloutPool(1, poll_seconds=0.01)
    served: list[str] = []

    class Gone(Exception):
        pass

    def leaves(ahead: int) -> None:
        raise Gone  # the viewer moved on while waiting

    def patient() -> None:
        with pool.slot(lambda ahead: None):
            served.append("patient")

    with pool.slot():
        with pytest.raises(Gone), pool.slot(leaves):
            served.append("never")
        assert pool.waiting == 0
        waiting = threading.Thread(target=patient)
        waiting.start()
        wait_until(lambda: pool.waiting == 1)
    waiting.join(5)
    assert served == ["patient"] and pool.running == 0 and pool.waiting == 0
    with pytest.raises(ValueError):
        RolloutPool(0)


def test_stop_requested_sees_streamlit_rerun_and_stop_requests() -> None:
    from types import SimpleNamespace

    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests
    from streamlit.runtime.scriptrunner_utils.script_run_context import (
        SCRIPT_RUN_CONTEXT_ATTR_NAME,
    )

    from paretoscope.dashboard.live import stop_requested

    assert not stop_requested()  # no script run: nothing to stop
    requests = ScriptRequests()
    seen: list[bool] = []

    def script_thread() -> None:
        seen.append(stop_requested())
        requests.request_rerun(RerunData())
        seen.append(stop_requested())

    thread = threading.Thread(target=script_thread)
    setattr(thread, SCRIPT_RUN_CONTEXT_ATTR_NAME, SimpleNamespace(script_requests=requests))
    thread.start()
    thread.join(5)
    assert seen == [False, True]


@pytest.mark.parametrize(
    ("rerun", "waits"),
    [
        ({"fragment_id": "explore"}, True),  # a move on Explore's fragment
        ({"fragment_id": "training", "is_auto_rerun": True}, False),  # a timed rerun
        ({}, False),  # a full rerun stops the run itself (`stop_requested`)
    ],
)
def test_a_stream_leaves_its_run_for_a_waiting_move_only(rerun: dict, waits: bool) -> None:
    from types import SimpleNamespace

    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests
    from streamlit.runtime.scriptrunner_utils.script_run_context import (
        SCRIPT_RUN_CONTEXT_ATTR_NAME,
    )

    from paretoscope.dashboard.live import move_waits

    assert not move_waits()  # no script run: nothing waits
    requests = ScriptRequests()
    seen: list[bool] = []

    def script_thread() -> None:
        seen.append(move_waits())
        requests.request_rerun(RerunData(**rerun))
        seen.append(move_waits())
        # What Streamlit itself does at its next yield point: a move in a fragment waits.
        seen.append(requests.on_scriptrunner_yield() is None)

    thread = threading.Thread(target=script_thread)
    setattr(thread, SCRIPT_RUN_CONTEXT_ATTR_NAME, SimpleNamespace(script_requests=requests))
    thread.start()
    thread.join(5)
    assert seen[:2] == [False, waits]
    if waits:
        assert seen[2], "Streamlit would have stopped the run itself"


def _loaded(agent: object | None = None) -> LoadedAgent:
    agent = agent or LinearAgent(CHEETAH, seed=3)
    return LoadedAgent(agent, fingerprint=getattr(agent, "fingerprint", "other"), name="linear")


def _request(**changes: object) -> EpisodeRequest:
    values = {
        "fingerprint": "linear",
        "env_id": CHEETAH,
        "preference": (0.5, 0.5),
        "target": None,
        "seed": 0,
        "size": 32,
        "horizon": HORIZON,
        "every": 1,
    }
    values.update(changes)
    return EpisodeRequest(**values)  # type: ignore[arg-type]


def _record(loaded: LoadedAgent, request: EpisodeRequest, on_frame=None, render=True):  # noqa: ANN001, ANN202
    """What a page's job does: the request recorded in a slot of the server's pool."""
    from paretoscope.dashboard.live import recording_producer

    producer = recording_producer(request, [loaded])
    return producer(on_frame or (lambda frame: None), lambda ahead: None)


@pytest.fixture
def small_pool() -> Iterator[RolloutPool]:
    pool = RolloutPool(1, poll_seconds=0.02)
    pool_module.set_shared_pool(pool)
    yield pool
    pool_module.set_shared_pool(None)


def test_a_running_rollout_stops_at_the_next_frame(small_pool: RolloutPool) -> None:
    loaded = _loaded()
    seen: list[int] = []

    class Stopped(Exception):
        pass

    def on_frame(frame: object) -> None:
        seen.append(frame.record.step)  # type: ignore[attr-defined]
        if len(seen) == 3:
            raise Stopped  # what Streamlit raises when the viewer moves on

    with pytest.raises(Stopped):
        _record(loaded, _request(), on_frame)
    assert seen == [1, 2, 3]
    # Its worker slot and its agent are free again.
    assert small_pool.running == 0 and not loaded.lock.locked()
    assert _record(loaded, _request()).length == HORIZON


def test_viewers_of_one_agent_get_identical_copies() -> None:
    loaded = _loaded()
    observation = np.random.default_rng(0).normal(size=(1, 17))
    preference = np.array([[0.3, 0.7]])
    with loaded.borrow() as first, loaded.borrow() as second:
        assert first is loaded.agent and second is not first
        first.reset(1)
        second.reset(1)
        target = first.initial_target(preference)
        np.testing.assert_array_equal(
            first.act(observation, preference, target), second.act(observation, preference, target)
        )
    with loaded.borrow() as again:
        assert again is loaded.agent  # the agent itself when it is free


# --- the video cache -----------------------------------------------------------------------------


def test_video_cache_size_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.dashboard.limits import video_cache_bytes

    monkeypatch.setenv("PARETOSCOPE_VIDEO_CACHE_MB", "3")
    assert video_cache_bytes() == 3 * 2**20
    monkeypatch.setenv("PARETOSCOPE_WORKERS", "3")
    pool_module.set_shared_pool(None)
    try:
        assert pool_module.shared_pool().workers == 3
    finally:
        pool_module.set_shared_pool(None)


# --- faults in the app ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.demo_fixture import build_tiny_assets

    return build_tiny_assets(tmp_path_factory.mktemp("assets"), horizon=HORIZON, with_hopper=False)


@pytest.fixture
def cache(assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import streamlit as st

    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    st.cache_resource.clear()
    st.cache_data.clear()
    return tmp_path / "cache"


def _app(query: dict[str, str] | None = None):  # noqa: ANN202 - an AppTest
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"size": "240", **(query or {})})
    return at.run()


def _shows_hypervolume(at, expected: float) -> None:  # noqa: ANN001
    """The metrics page shows `expected` as its hypervolume (its metric, its shaded area)."""
    shown, shaded = shown_hypervolume(at)
    assert shown == number(expected) and shaded == pytest.approx(expected)


def _stored_hypervolume(assets: Path, agent: str) -> float:
    """The hypervolume (reference at the origin) of `agent`'s precomputed sweep, read directly
    from the assets' store: what the metrics panels must show."""
    from paretoscope.metrics import hypervolume
    from paretoscope.results_store import ResultsStore

    stored = ResultsStore(assets / "results").read(CHEETAH)
    rows = stored[(stored["agent"] == agent) & ~stored["explicit_target"]]
    assert len(rows), f"no stored sweep of {agent}"
    return float(hypervolume(rows[["return_run", "return_energy"]].to_numpy(), (0.0, 0.0)))


def test_a_queued_request_says_so_then_plays(
    cache: Path, small_pool: RolloutPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paretoscope.dashboard.live as live

    notices: list[int] = []
    original = live.queued_notice

    def recording_notice(slot):  # noqa: ANN001, ANN202
        shown = original(slot)

        def on_wait(ahead: int | None) -> None:
            notices.append(ahead)
            shown(ahead)

        return on_wait

    monkeypatch.setattr(live, "queued_notice", recording_notice)
    busy = threading.Event()
    done = threading.Event()

    def another_viewer() -> None:
        # A sweep holds the only worker until the page has said it waits (a fixed hold raced the
        # page's own start on a loaded machine), at most 60 s.
        try:
            with small_pool.slot():
                busy.set()
                wait_until(lambda: notices, 60, "the page to say that it waits")
        finally:
            done.set()

    threading.Thread(target=another_viewer).start()
    busy.wait(5)
    at = _app()
    page_ok(at)
    # The live episode has no place in the sweeps' line: it says it waits for a worker.
    assert done.is_set() and notices and set(notices) == {None}
    assert episode_videos(at), "then it plays"


def test_a_corrupted_cached_video_is_rendered_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    served = served_files(monkeypatch)
    at = _app()
    page_ok(at)
    (good,) = episode_video_files(at, served)
    # The cached file of the video the page played.
    (video,) = [path for path in (cache / "rollouts").glob("*.mp4") if path.read_bytes() == good]
    key = video.stem
    broken = bytearray(good)
    broken[len(broken) // 2] ^= 0xFF
    video.write_bytes(bytes(broken))
    assert read_recording([cache / "rollouts"], key) is None  # detected by its checksum
    st.cache_resource.clear()  # a fresh server process: nothing in memory
    renders = count_episode_recordings(monkeypatch)
    again = _app()
    page_ok(again)
    assert renders == [(0.5, 0.5)]  # rendered again, not shown
    (played,) = episode_video_files(again, served)
    repaired = read_recording([cache / "rollouts"], key)  # stored again under the same key
    assert repaired is not None and repaired.video == played != bytes(broken)


def _front_returns(at) -> np.ndarray:  # noqa: ANN001
    """The returns of the default agent's sweep as Explore's front draws them, in row order."""
    return np.stack([point.returns for point in front_points(at, "MORvS (untrained)").values()])


def test_a_corrupted_results_shard_is_set_aside_and_recomputed(
    assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    import streamlit as st

    copy = tmp_path / "assets"
    shutil.copytree(assets, copy)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(copy))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    st.cache_resource.clear()
    st.cache_data.clear()
    expected = _front_returns(_app())
    shards = sorted((copy / "results" / CHEETAH).glob("*.parquet"))
    for shard in shards:
        data = bytearray(shard.read_bytes())
        data[len(data) // 2] ^= 0xFF
        shard.write_bytes(bytes(data))
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _app()
    page_ok(at)
    np.testing.assert_allclose(
        np.sort(_front_returns(at), axis=0), np.sort(expected, axis=0), rtol=1e-9
    )
    assert all(shard.with_suffix(".corrupt").is_file() for shard in shards)
    assert list((tmp_path / "cache" / "results" / CHEETAH).glob("*.parquet"))  # recomputed


@pytest.mark.parametrize("failure", ["full", "read-only"])
def test_an_unwritable_results_folder_is_a_clear_error(
    failure: str, assets: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os as real_os
    import tempfile

    import paretoscope.atomic
    import paretoscope.results_store as results_store

    at = _app()
    page_ok(at)
    at.switch_page("views/rtg.py").run()
    page_ok(at)

    def listing() -> dict[str, str]:
        return {
            str(path.relative_to(cache)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in cache.rglob("*")
            if path.is_file()
        }

    before = listing()
    if failure == "full":

        def no_space(descriptor: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(results_store.os, "fsync", no_space)
        monkeypatch.setattr(paretoscope.atomic.os, "fsync", no_space)
        expected = "No space left on device"
    else:

        def refused(*args: object, **kwargs: object) -> tuple[int, str]:
            raise PermissionError(errno.EACCES, "Permission denied")

        monkeypatch.setattr(results_store.tempfile, "mkstemp", refused)
        expected = "Permission denied"
    at.multiselect(key="rtg_scales").set_value([0.5, 1.0]).run()
    assert not at.exception
    messages = " ".join(error.value for error in at.error)
    assert "cannot write results to" in messages and expected in messages
    assert "earlier results are unchanged" in messages
    monkeypatch.setattr(results_store.os, "fsync", real_os.fsync)
    monkeypatch.setattr(paretoscope.atomic.os, "fsync", real_os.fsync)
    monkeypatch.setattr(results_store.tempfile, "mkstemp", tempfile.mkstemp)
    # No partial file, and what was there is intact.
    after = listing()
    assert after == before
    assert not [path for path in cache.rglob("*") if path.name.startswith(".")]
    # The page goes on, with the metrics of the stored sweep.
    _shows_hypervolume(at, _stored_hypervolume(assets, "cheetah-morvs"))


class _NanAfter:
    """An agent that acts like `inner` for `steps` steps, then emits NaN actions."""

    def __init__(self, inner: object, steps: int) -> None:
        self.inner = inner
        self.steps = steps
        self.spec = inner.spec  # type: ignore[attr-defined]
        self.count = 0

    def reset(self, batch_size: int) -> None:
        self.count = 0
        self.inner.reset(batch_size)  # type: ignore[attr-defined]

    def act(self, observations, preferences, targets):  # noqa: ANN001, ANN201
        self.count += 1
        actions = np.asarray(self.inner.act(observations, preferences, targets), dtype=float)  # type: ignore[attr-defined]
        return actions * np.nan if self.count > self.steps else actions

    def initial_target(self, preferences):  # noqa: ANN001, ANN201
        return self.inner.initial_target(preferences)  # type: ignore[attr-defined]


def test_nan_actions_stop_the_rollout_with_a_message(small_pool: RolloutPool) -> None:
    from paretoscope.recordings import divergence_message

    recording = _record(_loaded(_NanAfter(LinearAgent(CHEETAH, seed=1), 7)), _request())
    assert recording.length == 8  # seven steps, then the last frame held at the eighth
    assert "stopped at step 8" in recording.meta["stopped"]
    assert "action was not a finite number" in recording.meta["stopped"]
    assert np.isfinite(recording.returns).all()
    returns_only = _request().record([_NanAfter(LinearAgent(CHEETAH, seed=1), 7)], render=False)
    assert returns_only.meta["stopped"] == recording.meta["stopped"]
    np.testing.assert_allclose(returns_only.returns, recording.returns)
    with pytest.raises(ParetoscopeError, match="stopped at step 1"):
        _record(_loaded(_NanAfter(LinearAgent(CHEETAH, seed=1), 0)), _request())
    assert small_pool.running == 0

    class Record:
        step = 12
        action = np.zeros(6)

    assert "the simulation diverged" in divergence_message(Record())  # type: ignore[arg-type]


def test_nan_actions_in_the_page_are_a_message_and_the_page_goes_on(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib

    from paretoscope.agents.loaded import LoadedAgent as Loaded

    original = Loaded.borrow

    @contextlib.contextmanager
    def nan_borrow(self):  # noqa: ANN001, ANN202
        with original(self) as agent:
            yield _NanAfter(agent, 5)

    monkeypatch.setattr(Loaded, "borrow", nan_borrow)
    served = served_files(monkeypatch)
    at = _app()
    page_ok(at)
    assert any("stopped at step 6" in warning.value for warning in at.warning)
    (video,) = episode_video_files(at, served)
    assert len(video_frames(video)) == 6
    at.slider[0].set_value(0.8).run()
    page_ok(at)
    assert shown_episode(at).preference == pytest.approx([0.2, 0.8])


def test_without_rendering_every_page_still_works(
    assets: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.render import RenderingUnavailable

    def unavailable(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RenderingUnavailable("rendering unavailable: no OpenGL here (test)")

    monkeypatch.setattr("paretoscope.render.frames.stream_frames", unavailable)
    monkeypatch.setattr("paretoscope.render.stream_frames", unavailable)
    monkeypatch.setattr(
        "paretoscope.recordings.paced.ensure_gl_backend", unavailable
    )  # live episodes
    at = _app()
    page_ok(at)
    assert any("no OpenGL here" in warning.value for warning in at.warning)
    assert not episode_videos(at) and shown_episode(at).seed == 0  # its returns, no video
    assert front_chart_figure(at)["data"], "the front is drawn"

    at.switch_page("views/rtg.py").run()
    page_ok(at)
    _shows_hypervolume(at, _stored_hypervolume(assets, "cheetah-morvs"))

    at.switch_page("views/dataset.py").run()
    page_ok(at)
    assert any("no OpenGL here" in warning.value for warning in at.warning)
    stored = trajectory_returns(at)[0]
    _, replayed = episode_chart(at, "replay")
    page_ok(at)
    np.testing.assert_allclose(replayed[-1], stored, rtol=1e-9)

    at.switch_page("views/compare.py").run()
    assert not at.exception
    assert any("no OpenGL here" in warning.value for warning in at.warning)
    table = compare_metrics_table(at)
    assert table.loc["MORvS (untrained)", "hypervolume"] == pytest.approx(
        _stored_hypervolume(assets, "cheetah-morvs")
    )


def _stand_in(frames: int) -> Recording:
    return Recording(b"v", 10.0, ("agent",), np.ones((1, frames, 2)), np.ones((1, frames)))


def _slow_producer(pool: RolloutPool, calls: list[int], frames: int = 200):  # noqa: ANN202
    def produce(on_frame, on_wait):  # noqa: ANN001, ANN202
        calls.append(1)
        with pool.slot(on_wait):
            for index in range(frames):
                time.sleep(0.005)  # a deliberately slow producer: it runs while the test acts
                on_frame(index)
        return _stand_in(frames)

    return produce


def test_viewers_of_one_episode_follow_one_job() -> None:
    from paretoscope.dashboard.jobs import JobBoard

    pool = RolloutPool(1, poll_seconds=0.01)
    board = JobBoard()
    calls: list[int] = []
    stored: list[Recording] = []
    first = board.follow("episode", _slow_producer(pool, calls), stored.append)
    second = board.follow("episode", _slow_producer(pool, calls), stored.append)
    assert second is first
    first.unsubscribe()  # the first viewer moves on: the second still follows
    state = second.wait(0, None, timeout=10)
    while not state.done:
        state = second.wait(state.frames, state.ahead, timeout=10)
    assert state.error is None and state.frames == 200 and state.result is not None
    assert calls == [1] and len(stored) == 1  # recorded once, stored once
    second.unsubscribe()
    wait_until(lambda: board.running() == [])


def test_a_job_nobody_follows_is_cancelled_queued_or_running() -> None:
    from paretoscope.dashboard.jobs import JobBoard

    pool = RolloutPool(1, poll_seconds=0.01)
    board = JobBoard()
    calls: list[int] = []
    stored: list[Recording] = []
    running = board.follow("a", _slow_producer(pool, calls, frames=10_000), stored.append)
    wait_until(lambda: running.wait(0, None, 0.01).frames > 0)
    queued = board.follow("b", _slow_producer(pool, calls), stored.append)
    state = queued.wait(0, None, timeout=5)
    assert state.ahead == 0 and state.frames == 0  # waiting for the one worker
    queued.unsubscribe()
    wait_until(lambda: pool.waiting == 0)  # it left the line
    running.unsubscribe()
    wait_until(lambda: pool.running == 0)  # it stopped at its next frame
    frames = running.wait(0, None, 0.01).frames
    assert frames < 10_000 and stored == []
    wait_until(lambda: board.running() == [])
    # Asking again starts a fresh job.
    again = board.follow("b", _slow_producer(pool, calls, frames=3), stored.append)
    wait_until(lambda: again.wait(0, None, 0.01).done)
    assert len(stored) == 1
    again.unsubscribe()


def test_the_limits_are_command_line_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    from paretoscope.cli import dashboard as dashboard_cli

    parser = argparse.ArgumentParser()
    dashboard_cli.register(parser.add_subparsers(dest="command"))

    def parse(*argv: str) -> argparse.Namespace:
        return parser.parse_args(["dashboard", "--assets", str(tmp_path), *argv])

    args = parse(
        "--workers", "3", "--video-cache-mb", "64", "--max-upload-mb", "50",
        "--allow-dir", str(tmp_path), "--dry-run",
    )  # fmt: skip
    assert dashboard_cli.limits_environment(args) == {
        "PARETOSCOPE_WORKERS": "3",
        "PARETOSCOPE_VIDEO_CACHE_MB": "64",
        "PARETOSCOPE_MAX_UPLOAD_MB": "50",
        "PARETOSCOPE_ALLOWED_DIRS": str(tmp_path.resolve()),
    }
    assert args.func(args) == 0
    printed = capsys.readouterr().out.split()
    assert printed[printed.index("--server.maxUploadSize") + 1] == "50"
    assert dashboard_cli.limits_environment(parse()) == {}
    assert dashboard_cli.limits_environment(parse("--no-prerender")) == {
        "PARETOSCOPE_PRERENDER": "0"
    }
    with pytest.raises(ParetoscopeError, match="--workers: expected at least 1"):
        dashboard_cli.limits_environment(parse("--workers", "0"))
    with pytest.raises(ParetoscopeError, match="--allow-dir"):
        dashboard_cli.limits_environment(parse("--allow-dir", str(tmp_path / "missing")))


def test_a_job_keeps_step_records_not_frame_images() -> None:
    # Followers draw charts from the history; holding every image would cost ~150 MB an episode.
    from paretoscope.dashboard.jobs import JobBoard
    from paretoscope.recordings import LiveFrame

    pool = RolloutPool(1, poll_seconds=0.01)

    def produce(on_frame, on_wait):  # noqa: ANN001, ANN202
        with pool.slot(on_wait):
            for step in range(1, 4):
                on_frame(LiveFrame(np.zeros((64, 64, 3), np.uint8), (step,), step - 1))  # type: ignore[arg-type]
        return _stand_in(3)

    job = JobBoard().follow("episode", produce, lambda _: None)
    wait_until(lambda: job.wait(0, None, 0.01).done)
    assert job.history == [(1,), (2,), (3,)]
    job.unsubscribe()


def test_throttle_limits_the_rate() -> None:
    from paretoscope.pacing.display import Throttle

    throttle = Throttle(rate=5.0)
    assert throttle.ready() and not throttle.ready()
    time.sleep(0.21)  # real time: the default clock's pacing is what is tested
    assert throttle.ready()


def test_throttle_says_when_its_next_frame_may_go() -> None:
    """A token bucket at 4 a second: the first frame at once, then a token every 0.25 s; asking
    takes no token."""
    from paretoscope.pacing.display import Throttle

    now = [10.0]
    throttle = Throttle(4.0, clock=lambda: now[0])
    assert throttle.delay() == 0.0 and throttle.ready()
    assert throttle.delay() == pytest.approx(0.25)
    now[0] += 0.1
    assert throttle.delay() == pytest.approx(0.15) and not throttle.ready()
    now[0] += 0.15
    assert throttle.delay() == 0.0 and throttle.delay() == 0.0 and throttle.ready()


@pytest.mark.parametrize(
    ("arrivals", "rate", "shown"),
    [
        (5.0, 4.5, 45),  # a thinned stream's frames, a little faster than the page shows
        (20.0, 12.0, 120),  # a lone HalfCheetah stream, every frame drawn
        (4.0, 4.5, 40),  # slower than the rate: every frame
    ],
)
def test_throttle_shows_its_rate_of_steady_frames(arrivals: float, rate: float, shown: int) -> None:
    """Frames coming every 1/`arrivals` s for 10 s: `rate` a second are shown (a shortest
    interval of 1/rate would show 25 of 5 a second for 4.5, and 100 of 20 for 12)."""
    from paretoscope.pacing.display import Throttle

    now = [0.0]
    throttle = Throttle(rate, clock=lambda: now[0])
    count = 0
    for index in range(int(10 * arrivals)):
        now[0] = index / arrivals
        count += throttle.ready()
    assert abs(count - shown) <= 1


def test_a_sweep_on_a_cache_miss_waits_for_a_worker_and_is_shared(small_pool: RolloutPool) -> None:
    from paretoscope.dashboard.jobs import shared_board
    from paretoscope.dashboard.live import compute_in_pool

    calls: list[int] = []
    release = threading.Event()
    results: list[int] = []

    def sweep() -> int:
        assert small_pool.running == 1  # it holds a worker slot like a rollout
        calls.append(1)
        release.wait(5)
        return 42

    with small_pool.slot():  # a rollout holds the only worker
        viewers = [
            threading.Thread(target=lambda: results.append(compute_in_pool("sweep-x", sweep)))
            for _ in range(2)
        ]
        for viewer in viewers:
            viewer.start()
        wait_until(lambda: small_pool.waiting == 1)  # one job waits in line for both viewers
        wait_until(lambda: shared_board()._jobs["sweep-x"]._subscribers == 2)
        assert calls == []
    wait_until(lambda: calls == [1])
    release.set()
    for viewer in viewers:
        viewer.join(5)
    assert results == [42, 42] and calls == [1]


# --- memory given back when idle -----------------------------------------------------------------


def test_the_board_says_when_its_last_job_ends() -> None:
    from paretoscope.dashboard.jobs import JobBoard

    idle: list[int] = []
    board = JobBoard(on_idle=lambda: idle.append(len(board.running())))
    gates = {key: threading.Event() for key in ("a", "b")}

    def producer(key: str):  # noqa: ANN202
        def produce(on_frame, on_wait):  # noqa: ANN001, ANN202
            gates[key].wait(10)
            return key

        return produce

    first = board.follow("a", producer("a"), lambda _: None)
    second = board.follow("b", producer("b"), lambda _: None)
    gates["a"].set()
    wait_until(lambda: first.wait(0, None, 0.01).done)
    wait_until(lambda: board.running() == ["b"])
    assert idle == []  # "b" still runs
    gates["b"].set()
    wait_until(lambda: idle == [0])  # called once, with the board empty
    first.unsubscribe()
    second.unsubscribe()


def test_idle_trim_releases_once_after_the_last_of_many_requests() -> None:
    from paretoscope.dashboard.heap import IdleTrim

    released: list[int] = []
    trimmer = IdleTrim(delay=0.2, release=lambda: released.append(1))
    for _ in range(5):  # jobs ending one after another
        trimmer.request()
    assert trimmer.pending() and released == []
    wait_until(lambda: not trimmer.pending())
    assert released == [1]
    trimmer.request()
    wait_until(lambda: not trimmer.pending())
    assert released == [1, 1]


TRIM_SCRIPT = """
import threading
from paretoscope.dashboard import heap

def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096

kept = []
def churn():
    # 80 MB in 4 kB blocks from a thread's own arena, one block in 16 kept: fragmented heap.
    blocks = [bytearray(4000) for _ in range(20_000)]
    kept.extend(blocks[::16])
thread = threading.Thread(target=churn)
thread.start()
thread.join()
before = rss()
assert heap.trim()
print(before - rss())
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs glibc and /proc (Linux)")
def test_trim_gives_freed_heap_pages_back_to_the_system() -> None:
    import subprocess
    import sys

    from paretoscope.dashboard.heap import _libc

    if _libc() is None:
        pytest.skip("not glibc")
    completed = subprocess.run(
        [sys.executable, "-c", TRIM_SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_DIR,
        timeout=60,
    )
    released = int(completed.stdout.split()[-1])
    assert released > 40 * 2**20, completed.stdout  # most of the ~75 MB freed
