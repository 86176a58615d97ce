"""Offscreen rendering: frames, the frame stream, threads, backend choice and its failures."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import imageio_ffmpeg
import numpy as np
import pytest

from paretoscope.agents.random_agent import RandomAgent
from paretoscope.envs import get_spec, list_specs
from paretoscope.envs.spec import CameraSpec
from paretoscope.errors import ParetoscopeError
from paretoscope.render import backend
from paretoscope.render.backend import RenderingUnavailable, ensure_gl_backend
from paretoscope.render.frames import (
    FrameRecord,
    caption_lines,
    side_by_side,
    stream_frames,
)
from paretoscope.render.playback import default_every, playback_fps
from paretoscope.render.renderer import FrameRenderer
from paretoscope.rollout import stream_rollout
from paretoscope.steppers import make_batch_stepper
from paretoscope.video import encode_mp4
from tests.agents_for_tests import LinearAgent
from tests.conftest import REPO_DIR

ENV = "MO-HalfCheetah-v2"
SIZE = (96, 64)  # (width, height): not square, so a swapped axis shows


def frames_of(preference: list[float], horizon: int = 12, **options: object) -> list[FrameRecord]:
    """The frames of one LinearAgent episode (SIZE unless `size` is given)."""
    options.setdefault("size", SIZE)
    stream = stream_frames(LinearAgent(ENV), ENV, preference, 0, horizon=horizon, **options)
    with contextlib.closing(stream):
        return list(stream)


def simulation_states(count: int) -> tuple[object, list[object]]:
    """A model and `count` copies of its data along a short random-action trajectory."""
    import mujoco

    stepper = make_batch_stepper(get_spec(ENV), 1)
    stepper.reset(np.array([0]))
    rng = np.random.default_rng(0)
    states = []
    for _ in range(count):
        stepper.step(rng.uniform(-1, 1, (1, 6)), np.array([0]))
        model, data = stepper.simulation(0)
        copy = mujoco.MjData(model)
        copy.qpos[:], copy.qvel[:] = data.qpos, data.qvel
        mujoco.mj_forward(model, copy)
        states.append(copy)
    return model, states


def assert_not_blank(frame: np.ndarray) -> None:
    assert frame.dtype == np.uint8
    assert frame.std() > 10, "a blank (single-colour) frame"
    assert frame.max() > 60, "a black frame"


def test_frames_are_not_blank_change_over_time_and_stand_upright() -> None:
    frames = frames_of([0.3, 0.7])
    assert len(frames) == 12
    for frame in frames:
        assert frame.frame.shape == (64, 96, 3)
        assert_not_blank(frame.frame)
    first, last = frames[0].frame.astype(int), frames[-1].frame.astype(int)
    assert np.abs(last - first).mean() > 1.0
    # The camera looks down at a checkered floor under a smooth sky: the busy half is below.
    image = frames[0].frame.astype(float).mean(axis=2)
    assert image[40:].std() > image[:16].std()


def test_frame_records_are_the_rollout_records() -> None:
    frames = frames_of([0.6, 0.4], horizon=15, every=4, target=[50.0, 60.0])
    plain = list(stream_rollout(LinearAgent(ENV), ENV, np.array([0.6, 0.4]), 0, [50.0, 60.0], 15))
    # Every 4th step, and the last one.
    assert [frame.step for frame in frames] == [4, 8, 12, 15]
    for frame in frames:
        record = plain[frame.step - 1]
        assert np.array_equal(frame.record.cumulative_return, record.cumulative_return)
        assert frame.record.model is None and frame.record.data is None
        assert np.allclose(frame.target, [50.0, 60.0])
        assert np.array_equal(frame.preference, [0.6, 0.4])
    assert frames[-1].done


def test_captions_and_shadows_change_the_picture() -> None:
    plain = frames_of([0.5, 0.5], horizon=3)
    captioned = frames_of([0.5, 0.5], horizon=3, caption=True)
    shadowed = frames_of([0.5, 0.5], horizon=3, shadows=True)
    top_left = (slice(0, 16), slice(0, 40))
    assert not np.array_equal(plain[-1].frame[top_left], captioned[-1].frame[top_left])
    assert np.array_equal(plain[-1].frame[50:], captioned[-1].frame[50:])
    assert np.abs(plain[-1].frame.astype(int) - shadowed[-1].frame).mean() > 0.5


def test_the_same_state_renders_the_same_frame() -> None:
    model, states = simulation_states(3)
    camera = get_spec(ENV).camera
    with FrameRenderer(model, camera, SIZE) as first, FrameRenderer(model, camera, SIZE) as second:
        for data in states:
            assert np.array_equal(first.render(data), second.render(data))


def _tracking_camera(model: Any, data: Any, camera: CameraSpec) -> Any:
    """MuJoCo's free camera placed where `FrameRenderer` places it for `camera`."""
    import mujoco

    view = mujoco.MjvCamera()
    view.type = mujoco.mjtCamera.mjCAMERA_FREE
    view.distance, view.elevation, view.azimuth = camera.distance, camera.elevation, camera.azimuth
    body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, camera.body)
    view.lookat[:] = data.xpos[body] + np.array([0.0, 0.0, camera.lookat_height])
    return view


def test_a_renderer_without_shadows_skips_the_shadow_map_and_draws_the_same_frames() -> None:
    import mujoco

    model, states = simulation_states(2)
    camera = get_spec(ENV).camera
    assert model.vis.quality.shadowsize == 4096  # the model's own: 64 MB of shadow map
    with FrameRenderer(model, camera, SIZE) as renderer:
        frames = [renderer.render(data) for data in states]
    assert model.vis.quality.shadowsize == 4096  # the model is left as it was
    # The same scenes drawn by MuJoCo's own renderer, with the full-size shadow map allocated.
    with mujoco.Renderer(model, height=SIZE[1], width=SIZE[0]) as reference:
        scene_option = mujoco.MjvOption()
        for data, frame in zip(states, frames, strict=True):
            reference.update_scene(data, _tracking_camera(model, data, camera), scene_option)
            reference.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
            reference.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
            assert np.array_equal(reference.render(), frame)


def test_a_rough_renderer_draws_mujocos_frames_without_multisampling() -> None:
    """`smooth=False` draws what MuJoCo's own renderer draws with no offscreen samples: the same
    scene, differing from the anti-aliased frame only along its edges; the model keeps its
    own setting."""
    import mujoco

    model, states = simulation_states(2)
    camera = get_spec(ENV).camera
    assert model.vis.quality.offsamples == 4  # MuJoCo's default
    with (
        FrameRenderer(model, camera, SIZE, smooth=False) as rough,
        FrameRenderer(model, camera, SIZE) as smooth,
    ):
        rough_frames = [rough.render(data) for data in states]
        smooth_frames = [smooth.render(data) for data in states]
    assert model.vis.quality.offsamples == 4
    model.vis.quality.offsamples = 0
    try:
        with mujoco.Renderer(model, height=SIZE[1], width=SIZE[0]) as reference:
            for data, frame in zip(states, rough_frames, strict=True):
                reference.update_scene(data, _tracking_camera(model, data, camera))
                reference.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = False
                reference.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = False
                assert np.array_equal(reference.render(), frame)
    finally:
        model.vis.quality.offsamples = 4
    for rough_frame, smooth_frame in zip(rough_frames, smooth_frames, strict=True):
        assert_not_blank(rough_frame)
        difference = np.abs(rough_frame.astype(int) - smooth_frame).max(axis=2)
        assert difference.any(), "multisampling changed nothing"
        assert (difference > 8).mean() < 0.1, "more than the edges differ"


def test_stream_frames_draws_rough_frames_when_asked() -> None:
    """`stream_frames(smooth=False)` (the report's videos) draws each step as a rough
    `FrameRenderer` draws that step's state, not as the anti-aliased default does."""
    rough = {frame.record.step: frame.frame for frame in frames_of([0.5, 0.5], 5, smooth=False)}
    smooth = {frame.record.step: frame.frame for frame in frames_of([0.5, 0.5], 5)}
    renderer = None
    try:
        rollout = stream_rollout(
            LinearAgent(ENV), ENV, np.array([0.5, 0.5]), 0, None, 5, render=True
        )
        for record in rollout:
            if renderer is None:
                renderer = FrameRenderer(record.model, get_spec(ENV).camera, SIZE, smooth=False)
            assert np.array_equal(renderer.render(record.data), rough[record.step])
            assert not np.array_equal(smooth[record.step], rough[record.step])
    finally:
        if renderer is not None:
            renderer.close()
    assert sorted(rough) == [1, 2, 3, 4, 5]


def render_in_thread(model: object, states: list[object], results: dict, key: str) -> None:
    """Create, use and close a renderer in a new thread; store its frames under `key`."""

    def work() -> None:
        try:
            with FrameRenderer(model, get_spec(ENV).camera, SIZE) as renderer:
                results[key] = [renderer.render(data) for data in states]
        except BaseException as error:  # reported by the test thread
            results[key] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=60)


def test_a_second_thread_renders_after_the_first_released() -> None:
    model, states = simulation_states(4)
    results: dict = {}
    render_in_thread(model, states, results, "first")
    render_in_thread(model, states, results, "second")
    for key in ("first", "second"):
        assert not isinstance(results[key], BaseException), results[key]
    for frame, again in zip(results["first"], results["second"], strict=True):
        assert_not_blank(again)
        assert np.array_equal(frame, again)


def test_a_video_made_in_a_second_thread_after_the_first_is_not_black(tmp_path: Path) -> None:
    results: dict = {}

    def make_video(key: str) -> None:
        try:
            frames = frames_of([0.4, 0.6], horizon=6)
            path = tmp_path / f"{key}.mp4"
            encode_mp4((frame.frame for frame in frames), playback_fps(ENV), path=path)
            results[key] = path
        except BaseException as error:  # reported by the test thread
            results[key] = error

    for key in ("first", "second"):
        thread = threading.Thread(target=make_video, args=(key,))
        thread.start()
        thread.join(timeout=60)
        assert isinstance(results[key], Path), results[key]
    reader = imageio_ffmpeg.read_frames(str(results["second"]))
    width, height = next(reader)["size"]
    decoded = [np.frombuffer(raw, np.uint8).reshape(height, width, 3) for raw in reader]
    assert len(decoded) == 6
    for frame in decoded:
        assert_not_blank(frame)


def test_two_sessions_rendering_at_once_do_not_disturb_each_other() -> None:
    preferences = ([0.2, 0.8], [0.9, 0.1])
    alone = {index: [f.frame for f in frames_of(list(p))] for index, p in enumerate(preferences)}
    together: dict = {}
    barrier = threading.Barrier(2)

    def session(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            together[index] = [f.frame for f in frames_of(list(preferences[index]))]
        except BaseException as error:
            together[index] = error

    threads = [threading.Thread(target=session, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for index in (0, 1):
        assert not isinstance(together[index], BaseException), together[index]
        assert len(together[index]) == len(alone[index])
        for frame, reference in zip(together[index], alone[index], strict=True):
            assert np.array_equal(frame, reference)
    assert not np.array_equal(alone[0][-1], alone[1][-1])


def test_releasing_an_old_renderer_does_not_blank_a_newer_one() -> None:
    model, states = simulation_states(2)
    camera = get_spec(ENV).camera
    old = FrameRenderer(model, camera, SIZE)
    reference = old.render(states[0])
    newer = FrameRenderer(model, camera, SIZE)
    old.close()
    assert np.array_equal(newer.render(states[0]), reference)
    # An old renderer left open in another thread, then released from here: still no harm.
    holder: dict = {}

    def leave_open() -> None:
        holder["renderer"] = FrameRenderer(model, camera, SIZE)
        holder["frame"] = holder["renderer"].render(states[1])

    thread = threading.Thread(target=leave_open)
    thread.start()
    thread.join(timeout=60)
    assert np.array_equal(newer.render(states[1]), holder["frame"])
    holder["renderer"].close()
    assert np.array_equal(newer.render(states[1]), holder["frame"])
    newer.close()
    with pytest.raises(RuntimeError, match="after close"):
        newer.render(states[0])


def test_side_by_side_video_has_the_expected_size(tmp_path: Path) -> None:
    streams = [
        stream_frames(LinearAgent(ENV), ENV, preference, 0, size=SIZE, horizon=horizon)
        for preference, horizon in (([0.2, 0.8], 6), ([0.8, 0.2], 9))
    ]
    tiled = side_by_side(streams, ["linear A", "linear B"], ENV, columns=2)
    path = tmp_path / "side.mp4"
    encode_mp4(tiled, fps=playback_fps(ENV), path=path)
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    assert meta["size"] == (2 * 96 + 4, 64)
    assert meta["codec"].startswith("h264")
    assert sum(1 for _ in reader) == 9  # the longer episode; the shorter one holds


def test_frame_rates_follow_the_env_time_step() -> None:
    assert playback_fps(ENV) == pytest.approx(1 / 0.05)
    assert playback_fps(ENV, every=2, speed=3.0) == pytest.approx(3 / (0.05 * 2))
    for spec in list_specs():
        every = default_every(spec.id, max_fps=30)
        smallest = next(k for k in range(1, 100) if 1 / (spec.dt * k) <= 30 + 1e-9)
        # Discrete actions: every step is shown (paretoscope.render.playback).
        assert every == (1 if spec.n_actions is not None else smallest), spec.id
    with pytest.raises(ParetoscopeError, match="every"):
        playback_fps(ENV, every=0)


@pytest.mark.parametrize("size", [(0, 10), (10, -1), (5000, 10), ("a", 3)])
def test_bad_sizes_are_refused(size: tuple[int, int]) -> None:
    with pytest.raises(ParetoscopeError, match="size"):
        frames_of([0.5, 0.5], horizon=2, size=size)


def test_an_unknown_camera_body_is_refused() -> None:
    from paretoscope.envs import CameraSpec

    model, _ = simulation_states(1)
    with pytest.raises(ParetoscopeError, match="nose"):
        FrameRenderer(model, CameraSpec(body="nose", distance=3.0), SIZE)


# --- the GL backend ------------------------------------------------------------------------


@pytest.fixture
def fresh_backend_choice(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Forget this process's backend choice for one test (restored afterwards)."""
    monkeypatch.setattr(backend, "_chosen_backend", None)
    monkeypatch.setattr(backend, "_failure", None)
    return monkeypatch


def test_no_working_backend_gives_the_projects_message(
    fresh_backend_choice: pytest.MonkeyPatch,
) -> None:
    calls = []

    def broken(name: str) -> str:
        calls.append(name)
        return f"no {name} here"

    fresh_backend_choice.delenv("MUJOCO_GL", raising=False)
    fresh_backend_choice.setattr(backend, "probe_backend", broken)
    with pytest.raises(RenderingUnavailable) as caught:
        ensure_gl_backend()
    message = str(caught.value)
    assert calls == ["egl", "osmesa"]
    assert "no egl here" in message and "no osmesa here" in message
    assert "libosmesa6" in message and "libegl" in message
    assert isinstance(caught.value, ParetoscopeError)
    # The failure is remembered: no second probe, the same message.
    with pytest.raises(RenderingUnavailable, match="no egl here"):
        stream_frames(LinearAgent(ENV), ENV, [0.5, 0.5], 0, size=SIZE, horizon=2).__next__()
    assert calls == ["egl", "osmesa"]
    assert "MUJOCO_GL" not in os.environ


def test_osmesa_is_tried_when_egl_fails(fresh_backend_choice: pytest.MonkeyPatch) -> None:
    fresh_backend_choice.delenv("MUJOCO_GL", raising=False)
    fresh_backend_choice.setattr(
        backend, "probe_backend", lambda name: None if name == "osmesa" else "broken"
    )
    assert ensure_gl_backend() == "osmesa"
    assert os.environ["MUJOCO_GL"] == "osmesa"


@pytest.mark.parametrize(
    "value, expected",
    [("disable", "turns rendering off"), ("vulkan", "not a backend"), ("EGL", None)],
)
def test_mujoco_gl_values(
    fresh_backend_choice: pytest.MonkeyPatch, value: str, expected: str | None
) -> None:
    fresh_backend_choice.setenv("MUJOCO_GL", value)
    if expected is None:
        assert ensure_gl_backend() == "egl"
    else:
        with pytest.raises(RenderingUnavailable, match=expected):
            ensure_gl_backend()


def run_python(code: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


_RENDER_ONE_ROLLOUT = """
import os, sys
from paretoscope.errors import ParetoscopeError
from paretoscope.render import ensure_gl_backend
try:
    print("backend", ensure_gl_backend(), os.environ.get("MUJOCO_GL"), "mujoco" in sys.modules)
    from paretoscope.render import stream_frames
    from tests.agents_for_tests import LinearAgent
    frames = list(stream_frames(LinearAgent("MO-Swimmer-v2"), "MO-Swimmer-v2", [0.5, 0.5], 0,
                                size=(32, 32), horizon=2))
    print("frames", len(frames), frames[-1].frame.std() > 5)
except ParetoscopeError as error:
    print("error:", error)
    sys.exit(2)
"""


def test_backend_is_chosen_in_a_fresh_process_before_mujoco_is_imported() -> None:
    environment = {key: value for key, value in os.environ.items() if key != "MUJOCO_GL"}
    completed = run_python(_RENDER_ONE_ROLLOUT, environment)
    assert completed.returncode == 0, completed.stderr
    assert "backend egl egl False" in completed.stdout
    assert "frames 2 True" in completed.stdout


def test_a_machine_without_gl_gets_the_projects_message_not_a_traceback() -> None:
    # No EGL driver (glvnd finds no vendor library) and, here, no OSMesa either.
    environment = {key: value for key, value in os.environ.items() if key != "MUJOCO_GL"}
    environment["__EGL_VENDOR_LIBRARY_FILENAMES"] = "/nonexistent/vendor.json"
    completed = run_python(_RENDER_ONE_ROLLOUT, environment)
    if "backend osmesa" in completed.stdout:
        pytest.skip("OSMesa works on this machine, so rendering is available")
    assert completed.returncode == 2, completed.stderr
    assert "error: rendering unavailable" in completed.stdout
    assert "libosmesa6" in completed.stdout
    assert "Traceback" not in completed.stderr


def test_a_chosen_backend_that_fails_gets_the_projects_message() -> None:
    environment = dict(os.environ, MUJOCO_GL="egl")
    environment["__EGL_VENDOR_LIBRARY_FILENAMES"] = "/nonexistent/vendor.json"
    completed = run_python(_RENDER_ONE_ROLLOUT, environment)
    assert completed.returncode == 2, completed.stderr
    assert "error: rendering unavailable: the egl OpenGL backend failed" in completed.stdout
    assert "Traceback" not in completed.stderr


def test_caption_lines_name_each_objective() -> None:
    from paretoscope.rollout import StepRecord

    record = StepRecord(
        step=3,
        observation=np.zeros(17),
        action=np.zeros(6),
        reward=np.zeros(2),
        cumulative_return=np.array([1.26, 250.0]),
        remaining_target=np.array([98.74, -50.0]),
        done=True,
        terminated=True,
        diverged=False,
    )
    image = np.zeros((8, 8, 3), np.uint8)
    frame = FrameRecord(record, image, np.array([0.3, 0.7]), np.array([100.0, 200.0]))
    spec = get_spec(ENV)
    assert caption_lines(spec, frame, title="agent A") == (
        "agent A",
        "preference\trun 0.30\tenergy 0.70",
        "target\trun 100\tenergy 200",
        "return\trun 1.3\tenergy 250.0",
        "step 3/500 (fell)",
    )
    without_target = FrameRecord(record, frame.frame, frame.preference, frame.target, False)
    assert not any(line.startswith("target") for line in caption_lines(spec, without_target))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [spec.id for spec in list_specs() if spec.camera is not None])
def test_every_mujoco_env_renders_from_its_camera(env_id: str) -> None:
    # The envs that draw themselves: tests/test_envs_registry.py, with the random agent.
    spec = get_spec(env_id)
    preference = np.full(spec.n_obj, 1 / spec.n_obj)
    agent = RandomAgent(env_id) if spec.discrete else LinearAgent(env_id, scale=0.05)
    stream = stream_frames(agent, env_id, preference, 0, size=(48, 40))
    with contextlib.closing(stream):
        frame = next(stream)
    assert frame.step == 1
    assert frame.frame.shape == (40, 48, 3)
    assert_not_blank(frame.frame)


def render_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("paretoscope-render")]


def test_a_render_thread_draws_what_the_renderer_draws_and_ends_on_close() -> None:
    from paretoscope.render.renderer import RenderThread

    model, states = simulation_states(3)
    camera = get_spec(ENV).camera
    with FrameRenderer(model, camera, SIZE) as renderer:
        expected = [renderer.render(data) for data in states]
    with RenderThread(model, camera, SIZE, depth=2) as worker:
        futures = [worker.submit(data) for data in states]  # more than `depth` in flight
        assert len(render_threads()) == 1
        for future, frame in zip(futures, expected, strict=True):
            assert np.array_equal(future.result(), frame)
    assert render_threads() == []


def test_a_stream_closed_early_releases_its_render_thread() -> None:
    stream = stream_frames(LinearAgent(ENV), ENV, [0.5, 0.5], 0, size=SIZE, horizon=20)
    first = next(stream)
    assert first.step == 1
    assert len(render_threads()) == 1
    stream.close()
    assert render_threads() == []


def test_streams_borrow_a_warm_renderer_per_frame_and_draw_their_own_states(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two streams' frames drawn in turn (each stream with its own model, as two episodes have)
    are the very pictures a renderer of each one's own draws, and take one warm renderer
    between them, not one each."""
    from dataclasses import dataclass

    from paretoscope.render import warm
    from paretoscope.render.deferred import StateFrames

    pool = warm.WarmRenderers()
    monkeypatch.setattr(warm, "_shared", pool)  # none idle yet: each one needed is made

    @dataclass
    class Kept:
        data: object

    first_model, first_states = simulation_states(3)
    second_model, second_states = simulation_states(6)
    second_states = second_states[3:]  # later states: other pictures
    streams = [
        (StateFrames(first_model, get_spec(ENV), SIZE), first_model, first_states),
        (StateFrames(second_model, get_spec(ENV), SIZE), second_model, second_states),
    ]
    drawn: list[list[np.ndarray]] = [[], []]
    for index in range(3):
        for lane, (frames, _, states) in enumerate(streams):
            drawn[lane].append(frames.draw(frames.keep(Kept(states[index]))))  # type: ignore[arg-type]
    assert pool.made == 1
    for lane, (frames, model, states) in enumerate(streams):
        frames.close()
        with FrameRenderer(model, get_spec(ENV).camera, SIZE) as own:  # type: ignore[arg-type]
            for picture, state in zip(drawn[lane], states, strict=True):
                assert_not_blank(picture)
                assert np.array_equal(picture, own.render(state))
    assert not np.array_equal(drawn[0][0], drawn[1][0])
    # A stream of rough frames borrows a renderer of its own kind, and draws its own pictures.
    rough = StateFrames(first_model, get_spec(ENV), SIZE, smooth=False)
    picture = rough.draw(rough.keep(Kept(first_states[0])))  # type: ignore[arg-type]
    again = rough.draw(rough.keep(Kept(first_states[0])))  # type: ignore[arg-type]
    assert pool.made == 2
    assert np.array_equal(picture, again) and not np.array_equal(picture, drawn[0][0])
    rough.close()
    pool.close()


def _robot_pixels(frame: np.ndarray) -> np.ndarray:
    """Where HalfCheetah's body is drawn: its tan and pink limbs are the only warm colours (the
    floor is a grey checkerboard, the sky grey)."""
    red, green, blue = (frame[..., channel].astype(int) for channel in range(3))
    return (red - blue > 50) & (red > 120)


@pytest.mark.parametrize("distance", [0.0, 35.0, 60.0, 120.0])
def test_the_camera_keeps_a_far_running_robot_in_frame_on_the_floor(distance: float) -> None:
    # A fast cheetah covers ~100 m in an episode; HalfCheetah's floor is drawn 40 m each way.
    import mujoco

    model, (data,) = simulation_states(1)
    data.qpos[0] = distance  # the root's x: the robot moved `distance` metres forward
    mujoco.mj_forward(model, data)
    width, height = 320, 240  # big enough to tell the floor's squares apart
    with FrameRenderer(model, get_spec(ENV).camera, (width, height)) as renderer:
        frame = renderer.render(data)
    rows, columns = np.nonzero(_robot_pixels(frame))
    assert len(rows) > 100, "the robot is not in the picture"
    assert columns.min() > 0 and columns.max() < width - 1, "the robot touches the side"
    assert rows.min() > 0 and rows.max() < height - 1, "the robot touches the top or bottom"
    # Under the robot lies the checkered floor (dark and light squares), not the empty grey
    # beyond a floor's edge.
    below = frame[rows.max() + 1 :].mean(axis=2)
    assert (below < 60).mean() > 0.1 and (below > 150).mean() > 0.1
    # The floor drawn moves, the env's own floor (its physics) stays as it was.
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    assert model.geom_size[floor, 0] > 0


def test_the_robot_stays_in_frame_over_a_fast_episode() -> None:
    # The bundled demo's fastest cheetah, a whole episode: it runs well past the 40 m its floor
    # is declared over, and every frame shows it away from the picture's edges, on the floor.
    from paretoscope.agents.builtin import load_agent

    agent = load_agent(REPO_DIR / "assets" / "agents" / "halfcheetah-behaviour", ENV)
    stream = stream_frames(agent, ENV, [0.85, 0.15], 0, every=50, size=(320, 240))
    with contextlib.closing(stream):
        frames = list(stream)
    assert frames[-1].step == 500
    # D4MORL's run reward is (speed + 1) a step: the distance run is (return - steps) * dt.
    distance = (frames[-1].record.cumulative_return[0] - 500) * get_spec(ENV).dt
    assert distance > 60
    for record in frames:
        rows, columns = np.nonzero(_robot_pixels(record.frame))
        assert len(rows) > 100, f"step {record.step}: the robot is not in the picture"
        assert columns.min() > 0 and columns.max() < 319, f"step {record.step}"
        below = record.frame[rows.max() + 1 :].mean(axis=2)
        assert (below < 60).mean() > 0.1 and (below > 150).mean() > 0.1, f"step {record.step}"
