"""`paretoscope render`: one rollout of an agent at a preference, as an MP4 (or GIF) video."""

from __future__ import annotations

import argparse
import contextlib
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paretoscope.errors import ParetoscopeError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render one rollout of an agent as a video",
        description="Roll AGENT out once at preference P (and target T, if given) and write "
        "the episode as the env is seen (a MuJoCo task's tracking camera, or the env's own "
        "drawing) as an H.264 MP4 (or a GIF when FILE "
        "ends in .gif), playing in real time unless --speed says otherwise.",
    )
    parser.add_argument(
        "agent",
        help="agent checkpoint (directory or .safetensors file), or a built-in agent: random",
    )
    parser.add_argument("--env", required=True, help="environment id (see `paretoscope envs`)")
    parser.add_argument(
        "--preference", required=True, help="weights per objective summing to 1, e.g. 0.3,0.7"
    )
    parser.add_argument(
        "--target", default=None, help="initial target per objective (default: the agent's)"
    )
    parser.add_argument("--seed", type=int, default=0, help="episode seed (default 0)")
    parser.add_argument("--size", default="480x480", help="frame size WxH (default 480x480)")
    parser.add_argument(
        "--out", default=None, help="video file, .mp4 or .gif (default: named after the run)"
    )
    parser.add_argument(
        "--every",
        type=int,
        default=None,
        help="render every K-th step (default: the fewest frames for smooth real time)",
    )
    parser.add_argument(
        "--speed", type=float, default=1.0, help="playback speed vs real time (default 1)"
    )
    parser.add_argument("--horizon", type=int, default=None, help="steps (default: env's)")
    parser.add_argument(
        "--shadows", action="store_true", help="shadows and reflections (3-5x slower on CPU)"
    )
    parser.add_argument(
        "--caption", action="store_true", help="write preference, target and return on frames"
    )
    parser.add_argument("--device", default="cpu", help="torch device for the agent (cpu, cuda)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def parse_vector(text: str, option: str, length: int) -> list[float]:
    """`text` like "0.3,0.7" as `length` finite floats, or a ParetoscopeError naming `option`."""
    parts = [part.strip() for part in text.split(",")]
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise ParetoscopeError(
            f"{option}: expected {length} comma-separated numbers, got {text!r}"
        ) from None
    if len(values) != length or not all(math.isfinite(value) for value in values):
        raise ParetoscopeError(f"{option}: expected {length} finite numbers, got {text!r}")
    return values


def parse_preference(text: str, n_obj: int) -> list[float]:
    """A preference like "0.3,0.7": `n_obj` non-negative weights summing to 1."""
    values = parse_vector(text, "--preference", n_obj)
    if any(value < 0 for value in values) or not math.isclose(sum(values), 1.0, abs_tol=1e-6):
        raise ParetoscopeError(
            f"--preference: expected {n_obj} non-negative weights summing to 1, got {text!r}"
        )
    return values


def parse_size(text: str) -> tuple[int, int]:
    """A frame size like "480x480" as (width, height)."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if match is None:
        raise ParetoscopeError(f"--size: expected WxH such as 480x480, got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise ParetoscopeError(f"--size: expected sides from 16 to 4096 pixels, got {text!r}")
    return width, height


def default_output(agent_path: str, env_id: str, preference: list[float], seed: int) -> Path:
    """A file name that says what was rendered, e.g. morvs-MO-HalfCheetah-v2-p0.3_0.7-s0.mp4."""
    weights = "_".join(f"{value:g}" for value in preference)
    return Path(f"{Path(agent_path).name}-{env_id}-p{weights}-s{seed}.mp4")


def run(args: argparse.Namespace) -> int:
    # Choose the GL backend before anything imports mujoco (see paretoscope.render.backend).
    from paretoscope.render import ensure_gl_backend
    from paretoscope.render.backend import one_policy_thread

    ensure_gl_backend()
    one_policy_thread()  # the renderer needs the cores
    from tqdm import tqdm

    from paretoscope.agents.builtin import load_agent
    from paretoscope.envs import get_spec
    from paretoscope.render import default_every, playback_fps, stream_frames
    from paretoscope.video import encode_gif, encode_mp4

    spec = get_spec(args.env)
    preference = parse_preference(args.preference, spec.n_obj)
    target = None if args.target is None else parse_vector(args.target, "--target", spec.n_obj)
    size = parse_size(args.size)
    every = default_every(args.env) if args.every is None else args.every
    fps = playback_fps(args.env, every, args.speed)
    horizon = spec.horizon if args.horizon is None else args.horizon
    out = (
        Path(args.out) if args.out else default_output(args.agent, args.env, preference, args.seed)
    )
    suffix = out.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise ParetoscopeError(f"--out: expected a .mp4 or .gif file name, got {out}")
    agent = load_agent(args.agent, args.env, device=args.device)

    frames = stream_frames(
        agent,
        args.env,
        preference,
        args.seed,
        target=target,
        every=every,
        size=size,
        shadows=args.shadows,
        caption=args.caption,
        horizon=args.horizon,
    )
    progress = tqdm(total=horizon, unit="step", desc="render", disable=args.quiet)
    last: list[Any] = []

    def frames_with_progress() -> Iterator[Any]:
        for frame in frames:
            progress.update(frame.step - (last[0].step if last else 0))
            last[:] = [frame]
            yield frame.frame

    with contextlib.closing(frames), progress:
        encode = encode_mp4 if suffix == ".mp4" else encode_gif
        encode(frames_with_progress(), fps, out)
        progress.total = last[0].step  # an episode that ended early is complete all the same
        progress.refresh()
    steps, returns = last[0].step, last[0].record.cumulative_return
    names = ", ".join(
        f"{name} {value:.1f}" for name, value in zip(spec.objective_names, returns, strict=True)
    )
    print(f"{out}: {steps} steps at {fps:g} fps; return {names}")
    return 0
