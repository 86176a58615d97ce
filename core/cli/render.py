"""`paretoscope render`: one rollout of an agent at a preference, as an MP4 (or GIF) video; or,
with --gallery N, N policies spread along its front as one labelled MP4 grid."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from paretoscope.cli.options import (
    add_device_option,
    add_quiet_option,
    add_settings_options,
    path_text,
    settings_from_args,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import RecordingSettings
from paretoscope.text import briefly


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render one rollout of an agent as a video",
        description="Roll AGENT out once at preference P (and target T, if given) and write "
        "the episode as the env is seen (a MuJoCo task's tracking camera, or the env's own "
        "drawing) as an H.264 MP4 (or a GIF when FILE "
        "ends in .gif), playing in real time unless --speed says otherwise. With --gallery N: "
        "N policies spread along the agent's front (one episode per preference of a grid, "
        "then farthest-point sampling from the knee and the extremes), each a labelled tile "
        "of --size, in one MP4 grid.",
    )
    parser.add_argument(
        "agent",
        type=path_text,
        help="agent checkpoint (directory or .safetensors file), or a built-in agent: random",
    )
    parser.add_argument("--env", required=True, help="environment id (see `paretoscope envs`)")
    parser.add_argument(
        "--preference",
        default=None,
        help="weights per objective summing to 1, e.g. 0.3,0.7 (required without --gallery)",
    )
    parser.add_argument(
        "--gallery",
        type=int,
        default=None,
        metavar="N",
        help="render N policies spread along the front (1 to 16) as one MP4 grid",
    )
    parser.add_argument(
        "--target", default=None, help="initial target per objective (default: the agent's)"
    )
    parser.add_argument(
        "--out",
        type=path_text,
        default=None,
        help="video file, .mp4 or .gif (default: named after the run)",
    )
    add_settings_options(parser, RecordingSettings)
    add_device_option(parser)
    add_quiet_option(parser, "progress bar")
    parser.set_defaults(func=run)


def parse_vector(text: str, option: str, length: int) -> list[float]:
    """`text` like "0.3,0.7" as `length` finite floats, or a ParetoscopeError naming `option`."""
    from paretoscope.metrics.preferences import check_vector

    parts = [part.strip() for part in text.split(",")]
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise ParetoscopeError(
            f"{option}: expected {length} comma-separated numbers, got {briefly(text)}"
        ) from None
    return check_vector(values, length, option, repr(text))


def parse_preference(text: str, n_obj: int) -> list[float]:
    """A preference like "0.3,0.7": `n_obj` non-negative weights summing to 1."""
    from paretoscope.metrics.preferences import check_preference

    return check_preference(
        parse_vector(text, "--preference", n_obj), n_obj, "--preference", repr(text)
    )


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
    from paretoscope.agents.builtin import load_agent
    from paretoscope.envs import get_spec
    from paretoscope.recordings.video_file import check_video_path, render_video_file

    spec = get_spec(args.env)
    if args.gallery is not None:
        return run_gallery(args)
    if args.preference is None:
        raise ParetoscopeError("--preference: required (or --gallery N for a grid of policies)")
    preference = parse_preference(args.preference, spec.n_obj)
    target = None if args.target is None else parse_vector(args.target, "--target", spec.n_obj)
    settings = settings_from_args(RecordingSettings, args)
    out = check_video_path(
        args.out or default_output(args.agent, args.env, preference, settings.seed), "--out"
    )
    agent = load_agent(args.agent, args.env, device=args.device)
    video = render_video_file(
        agent, args.env, preference, target, settings, out, progress=not args.quiet
    )
    names = ", ".join(
        f"{name} {value:.1f}"
        for name, value in zip(spec.objective_names, video.returns, strict=True)
    )
    print(
        f"{video.path}: {video.steps} steps, {video.frames} frames at {video.fps:.3g} fps "
        f"({video.speed_text}); return {names}"
    )
    return 0


def run_gallery(args: argparse.Namespace) -> int:
    """`render --gallery N`: the gallery as one labelled MP4 grid."""
    from paretoscope.agents.builtin import load_agent
    from paretoscope.behaviour.gallery import check_tile_count, render_gallery_file
    from paretoscope.envs import get_spec

    count = check_tile_count(args.gallery, "--gallery")
    if args.preference is not None or args.target is not None:
        raise ParetoscopeError("--gallery: picks its own preferences; leave out --preference")
    settings = settings_from_args(RecordingSettings, args)
    out = Path(args.out or f"{Path(args.agent).name}-{args.env}-gallery{count}.mp4")
    if out.suffix.lower() != ".mp4":
        raise ParetoscopeError(f"--out: a gallery is written as an .mp4 file, got {out}")
    agent = load_agent(args.agent, args.env, device=args.device)
    video = render_gallery_file(agent, args.env, count, settings, out, progress=not args.quiet)
    rows, columns = video.grid
    names = get_spec(args.env).objective_names
    print(f"{video.path}: {len(video.tiles.rows)} policies on a {rows}x{columns} grid")
    for preference, returns in zip(video.tiles.preferences, video.tiles.returns, strict=True):
        weights = ",".join(f"{value:g}" for value in preference)
        values = ", ".join(
            f"{name} {value:.1f}" for name, value in zip(names, returns, strict=True)
        )
        print(f"  preference {weights}: return {values}")
    return 0
