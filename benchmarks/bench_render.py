"""Rendering speed: a MO-HalfCheetah-v2 rollout of a default-size MORvS (random weights) as video.

Prints, measured in the same run (the issue's targets in brackets):
  pipeline / render alone   rollout + rendering + H.264 encoding of a 500-step episode at
                            480x480 vs rendering the same 500 states alone (renderer creation
                            included in both; the faster of a plain loop and the render
                            thread)                                               [<= 1.25]
  recording / render alone  the same episode recorded as the dashboard records it
                            (`paretoscope.recordings.EpisodeRequest.record`: the pipeline plus the
                            per-frame reward bookkeeping)                         [<= 1.25]
  first frame               seconds from `stream_frames(...)` to the first frame in a warm
                            process (median and worst of several requests)          [<= 0.5 s]
  frames per second         rendering alone at 256x256 and 480x480, shadows off and on
and, for context, the physics + policy alone and the encoding alone of the same episode.
Frames are dropped once used in both timed runs (500 frames at 480x480 are 345 MB).
Medians of --repeats alternating runs; the load average is printed because the machine may
be shared.

    python benchmarks/bench_render.py [--steps 500] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

from paretoscope.render import ensure_gl_backend

# The backend is chosen before anything imports mujoco, as the CLI and the dashboard do.
BACKEND = ensure_gl_backend()

import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from paretoscope.agents.conditioned import create_agent  # noqa: E402
from paretoscope.agents.target_model import published_target_model  # noqa: E402
from paretoscope.envs import get_spec  # noqa: E402
from paretoscope.render import FrameRenderer, playback_fps, stream_frames  # noqa: E402
from paretoscope.render.renderer import RenderThread  # noqa: E402
from paretoscope.rollout import stream_rollout  # noqa: E402
from paretoscope.video import encode_mp4  # noqa: E402

ENV_ID = "MO-HalfCheetah-v2"
PREFERENCE = np.array([0.6, 0.4])


def recorded_states(agent, steps: int) -> tuple[mujoco.MjModel, list[mujoco.MjData]]:
    """The episode's simulation states (copies)."""
    states = []
    for record in stream_rollout(agent, ENV_ID, PREFERENCE, 0, horizon=steps):
        assert record.model is not None and record.data is not None
        states.append(_copy(record.model, record.data))
        model = record.model
    return model, states


def physics_and_policy(agent, steps: int) -> float:
    """Seconds for the episode's rollout alone (no rendering)."""
    started = time.perf_counter()
    for _ in stream_rollout(agent, ENV_ID, PREFERENCE, 0, horizon=steps):
        pass
    return time.perf_counter() - started


def _copy(model: mujoco.MjModel, data: mujoco.MjData) -> mujoco.MjData:
    copy = mujoco.MjData(model)
    copy.qpos[:], copy.qvel[:] = data.qpos, data.qvel
    mujoco.mj_forward(model, copy)
    return copy


def render_alone(
    model: mujoco.MjModel, states: list[mujoco.MjData], size: tuple[int, int], shadows: bool
) -> float:
    """Seconds to create a renderer and render `states` (each frame dropped, as the pipeline's).

    The faster of a plain loop in this thread and the render thread `stream_frames` uses, so
    the baseline is the best this renderer does.
    """
    camera = get_spec(ENV_ID).camera
    started = time.perf_counter()
    with FrameRenderer(model, camera, size, shadows) as renderer:
        for data in states:
            renderer.render(data)
    in_this_thread = time.perf_counter() - started
    started = time.perf_counter()
    with RenderThread(model, camera, size, shadows) as worker:
        previous = None
        for data in states:
            future = worker.submit(data)
            if previous is not None:
                previous.result()
            previous = future
        if previous is not None:
            previous.result()
    return min(in_this_thread, time.perf_counter() - started)


def encode_alone(
    model: mujoco.MjModel, states: list[mujoco.MjData], size: tuple[int, int]
) -> float:
    """Seconds to encode the episode's frames (rendered beforehand, untimed)."""
    with FrameRenderer(model, get_spec(ENV_ID).camera, size) as renderer:
        frames = [renderer.render(data) for data in states]
    started = time.perf_counter()
    encode_mp4(frames, playback_fps(ENV_ID))
    return time.perf_counter() - started


def pipeline(agent, steps: int, size: tuple[int, int]) -> tuple[float, int]:
    """Seconds for rollout + rendering + MP4 encoding, end to end, and the video's size."""
    started = time.perf_counter()
    stream = stream_frames(agent, ENV_ID, PREFERENCE, 0, size=size, horizon=steps)
    with contextlib.closing(stream):
        video = encode_mp4((frame.frame for frame in stream), playback_fps(ENV_ID))
    return time.perf_counter() - started, len(video)


def recording(agent, steps: int, size: tuple[int, int]) -> float:
    """Seconds for the dashboard's recording of the same episode (`EpisodeRequest.record`)."""
    from paretoscope.recordings import EpisodeRequest

    request = EpisodeRequest("bench", ENV_ID, tuple(PREFERENCE), None, 0, size[0], steps, every=1)
    started = time.perf_counter()
    request.record([agent])
    return time.perf_counter() - started


def first_frame_latency(agent, size: tuple[int, int]) -> float:
    """Seconds from the request to the first frame."""
    started = time.perf_counter()
    stream = stream_frames(agent, ENV_ID, PREFERENCE, 0, size=size)
    with contextlib.closing(stream):
        next(stream)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fps-frames", type=int, default=150, help="frames per fps figure")
    args = parser.parse_args()

    # As `paretoscope render` and the dashboard's server run the policy: on one torch thread.
    from paretoscope.render.backend import one_policy_thread

    one_policy_thread()
    print(
        f"GL backend {BACKEND}; torch threads {torch.get_num_threads()}; "
        f"load average at start {os.getloadavg()[0]:.2f}"
    )
    agent = create_agent("morvs", ENV_ID, target_model=published_target_model(ENV_ID), seed=0)
    size = (480, 480)
    model, states = recorded_states(agent, args.steps)
    assert len(states) == args.steps, f"the episode ended after {len(states)} steps"
    pipeline(agent, 20, size)  # warm up: imports, torch, ffmpeg on disk cache

    alone_times, pipeline_times, physics_times, recording_times = [], [], [], []
    for _ in range(args.repeats):
        alone_times.append(render_alone(model, states, size, shadows=False))
        seconds, video_bytes = pipeline(agent, args.steps, size)
        pipeline_times.append(seconds)
        recording_times.append(recording(agent, args.steps, size))
        physics_times.append(physics_and_policy(agent, args.steps))
    encoding = encode_alone(model, states, size)
    alone, full = statistics.median(alone_times), statistics.median(pipeline_times)
    print(f"\n{args.steps} steps at 480x480, shadows off (medians of {args.repeats}):")
    print(f"  rendering alone             {alone:6.2f} s  ({args.steps / alone:5.1f} fps)")
    print(f"  rollout + render + encode   {full:6.2f} s  (MP4 {video_bytes / 1e6:.2f} MB)")
    print(f"  context: physics + policy   {statistics.median(physics_times):6.2f} s")
    print(f"  context: encoding alone     {encoding:6.2f} s")
    print(f"  pipeline / render alone     {full / alone:6.3f}   [<= 1.25]")
    pairs = ", ".join(f"{p / a:.2f}" for p, a in zip(pipeline_times, alone_times, strict=True))
    print(f"  (each run's ratio: {pairs})")
    recorded = statistics.median(recording_times)
    print(f"  recording / render alone    {recorded / alone:6.3f}   [<= 1.25] ({recorded:.2f} s)")

    latencies = [first_frame_latency(agent, size) for _ in range(7)]
    print(
        f"\nfirst frame at 480x480, warm process: median {statistics.median(latencies):.3f} s, "
        f"worst {max(latencies):.3f} s   [<= 0.5 s]"
    )

    print(f"\nrendering alone, {args.fps_frames} frames (renderer creation excluded):")
    subset = states[: args.fps_frames]
    for side in (256, 480):
        for shadows in (False, True):
            with FrameRenderer(model, get_spec(ENV_ID).camera, (side, side), shadows) as renderer:
                renderer.render(subset[0])
                started = time.perf_counter()
                for data in subset:
                    renderer.render(data)
                rate = len(subset) / (time.perf_counter() - started)
            label = "on " if shadows else "off"
            print(f"  {side}x{side} shadows {label}  {rate:6.1f} fps")
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
