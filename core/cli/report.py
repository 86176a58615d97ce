"""`paretoscope report`: a results folder's agents on one env as one self-contained HTML file
(`paretoscope.report`), with a progress bar while the episodes' videos are recorded."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from paretoscope.cli import options
from paretoscope.cli.options import add_quiet_option
from paretoscope.errors import ParetoscopeError
from paretoscope.settings.limits import REPORT_VIDEOS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report of evaluated agents",
        description="Write one HTML file that opens offline in any browser: the env in words, "
        "the agents' fronts (interactive), the metrics with seed-bootstrap intervals, the "
        "known front where the env has one, RTG panels, each agent's extreme and knee "
        "episodes as videos, and how to reproduce it all.",
    )
    parser.add_argument(
        "results_dir",
        type=options.path_text,
        help="results folder written by `paretoscope evaluate --out`, or an assets folder "
        "(results/ beside agents/: the checkpoints there give the videos)",
    )
    options.add_stored_choice_options(parser)
    parser.add_argument(
        "--agents",
        default=None,
        metavar="A,B,...",
        help="the agents to report, in this order (default: every agent stored for the env)",
    )
    parser.add_argument(
        "--videos",
        type=options.whole_number(REPORT_VIDEOS),
        default=None,
        metavar="N",
        help="videos per agent (default: its extremes and knee; 0: none)",
    )
    parser.add_argument(
        "--out", type=options.path_text, required=True, help="the report's file (.html)"
    )
    parser.add_argument(
        "--assets-dir",
        type=options.path_text,
        default=None,
        help="write the videos into this folder beside the report instead of inside it",
    )
    add_quiet_option(parser, "progress bar")
    parser.set_defaults(func=run)


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ParetoscopeError(f"--agents: expected agent names such as a,b, got {text!r}")
    return names


def _command(args: argparse.Namespace, env_id: str) -> str:
    """The command that makes this report again (the env and agents it settled on named)."""
    words = ["paretoscope", "report", args.results_dir, "--env", env_id]
    for option, value in (
        ("--agents", args.agents),
        ("--gamma", args.gamma),
        ("--videos", args.videos),
        ("--assets-dir", args.assets_dir),
    ):
        if value is not None:
            words += [option, str(value)]
    return shlex.join([*words, "--out", args.out])


def run(args: argparse.Namespace) -> int:
    # Choose the GL backend before anything imports mujoco (see paretoscope.render.backend).
    from paretoscope.render import ensure_gl_backend
    from paretoscope.render.backend import one_policy_thread

    ensure_gl_backend()
    one_policy_thread()  # the renderer needs the cores
    from tqdm import tqdm

    from paretoscope.report import write_report
    from paretoscope.report.store import agents_from_results

    stored = agents_from_results(
        args.results_dir,
        args.env,
        _names(args.agents),
        args.gamma,
        load=args.videos != 0,
    )
    bar = tqdm(desc="report videos", unit="video", disable=args.quiet, file=sys.stderr)

    def on_video(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    with bar:
        written = write_report(
            args.out,
            stored.env_id,
            stored.agents,
            videos=args.videos,
            assets_dir=args.assets_dir,
            results_dir=args.results_dir,
            command=_command(args, stored.env_id),
            on_video=on_video,
        )
    print(
        f"{written.path}: {written.size / 1e6:.1f} MB, {len(stored.agents)} agents on "
        f"{stored.env_id}, {written.videos} videos"
    )
    return 0
