"""`paretoscope dashboard`: start the Streamlit app on an assets folder (the bundled demo by
default), bound to 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from core.assets import ASSETS_ENV_VAR, default_assets_dir
from core.errors import ParetoscopeError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
CACHE_ENV_VAR = "PARETOSCOPE_CACHE"


def app_path() -> Path:
    """The Streamlit entry script, ``dashboard/app.py`` beside the `core` package."""
    return Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help="open the interactive dashboard in a browser",
        description="Start the Streamlit dashboard: explore Pareto fronts, drag a preference and "
        "watch the agent, compare agents, browse datasets. Agents and datasets come from the "
        "assets folder (the bundled demo unless --assets names another).",
    )
    parser.add_argument(
        "--assets",
        type=Path,
        default=None,
        help=f"assets folder (agents/, datasets/, results/; default: ${ASSETS_ENV_VAR} or the "
        "bundled demo)",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 8501)")
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help=f"where computed sweeps and videos are kept (default: ${CACHE_ENV_VAR} or "
        "~/.cache/paretoscope)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the command that would run, and exit"
    )
    parser.set_defaults(func=run)


def streamlit_command(assets: Path, host: str, port: int) -> list[str]:
    """The command line that serves the app (headless: it prints the URL, opens no browser).

    `dashboard.serve` is ``python -m streamlit`` plus imports warmed while the server starts.
    """
    return [
        sys.executable,
        "-m",
        "dashboard.serve",
        "run",
        str(app_path()),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--",
        "--assets",
        str(assets),
    ]


def resolve_assets(assets: Path | None) -> Path:
    """The assets folder to serve; a missing one is an error that says what to do."""
    folder = (assets if assets is not None else default_assets_dir()).expanduser().resolve()
    if not folder.is_dir():
        hint = (
            "build the demo with `paretoscope demo build`, or name a folder with --assets"
            if assets is None
            else "name an existing folder"
        )
        raise ParetoscopeError(f"assets folder {folder}: no such directory; {hint}")
    return folder


def run(args: argparse.Namespace) -> int:
    if not 0 < int(args.port) < 65536:
        raise ParetoscopeError(f"--port: expected 1 to 65535, got {args.port}")
    assets = resolve_assets(args.assets)
    command = streamlit_command(assets, args.host, int(args.port))
    if args.dry_run:
        print(" ".join(command))
        return 0
    environment = dict(os.environ)
    if args.cache is not None:
        environment[CACHE_ENV_VAR] = str(args.cache.expanduser())
    print(f"paretoscope dashboard on http://{args.host}:{args.port} (assets: {assets})", flush=True)
    # Become the server rather than wait for a child: a signal to this process (Ctrl-C, a
    # supervisor's SIGTERM) then reaches the server itself and nothing is left running.
    os.execve(command[0], command, environment)
    return 0  # pragma: no cover - execve does not return
