"""`paretoscope demo`: build the bundled demo (or a quick one) and show how far a build got.

- ``demo build [--out DIR] [--quick] [--steps KIND ...]``: behaviour sets, datasets, offline
  agents, sweeps and the manifest, each step skipped when already done (`paretoscope.demo`).
- ``demo status [--out DIR] [--quick]``: which steps are done, changed or missing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paretoscope.cli import options
from paretoscope.cli.options import add_quiet_option, add_settings_options, settings_from_args
from paretoscope.settings import DemoBuildSettings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="build the bundled demo assets (agents, datasets, sweeps, manifest)",
        description="Build the bundled demo with paretoscope's own trainers, collectors and "
        "sweeps. Seeded and resumable: rerun the same command to continue; finished steps "
        "are skipped.",
    )
    parser.set_defaults(func=lambda args: _help(parser))
    commands = parser.add_subparsers(dest="demo_command", metavar="SUBCOMMAND")

    build = commands.add_parser(
        "build",
        help="build (or finish) the demo",
        description="Steps, in order: behaviour (ARS policy sets), datasets (expert and "
        "amateur collections), agents (offline MORvS, BC, MODT), sweeps (every agent over the "
        "preference grid), manifest (manifest.json and README.md with figures and the quality "
        "targets). A ledger (demo-ledger.json) records finished steps and their settings.",
    )
    _common(build)
    add_settings_options(build, DemoBuildSettings)
    add_quiet_option(build)
    build.set_defaults(func=run_build)

    status = commands.add_parser(
        "status",
        help="show which demo steps are done, changed or missing",
        description="Reads the ledger and the artefacts; builds nothing.",
    )
    _common(status)
    status.set_defaults(func=run_status)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=options.path,
        default=None,
        metavar="DIR",
        help="assets folder to build into (default: the bundled assets folder)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the tiny recipe (a minute or two; for tests) instead of the full demo",
    )


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def _recipe(args: argparse.Namespace) -> Any:
    from paretoscope.demo import FULL, QUICK

    return QUICK if args.quick else FULL


def run_build(args: argparse.Namespace) -> int:
    from paretoscope.demo import build_demo

    def log(line: str) -> None:
        print(line, flush=True)

    try:
        report = build_demo(
            args.out,
            _recipe(args),
            settings_from_args(DemoBuildSettings, args),
            progress=not args.quiet,
            log=log,
        )
    except KeyboardInterrupt:
        print(
            "paretoscope: finished steps are kept; rerun the same command to continue",
            file=sys.stderr,
        )
        raise
    print(
        f"done: {report.count('built')} built, {report.count('continued')} continued, "
        f"{report.count('adopted')} adopted, {report.count('skipped')} already done "
        f"({report.out})"
    )
    return 0


def run_status(args: argparse.Namespace) -> int:
    from paretoscope.demo import demo_status

    for line in demo_status(args.out, _recipe(args)):
        print(line)
    return 0
