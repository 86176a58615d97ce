"""`paretoscope dashboard`: start the Streamlit app on an assets folder (the bundled demo by
default), bound to 127.0.0.1 unless told otherwise.

The server's limits (rollout workers, memory for videos, upload size, folders a user may name)
and the plug-in agents it offers (``--agent py:module:callable``) reach the app through
environment variables, read by `paretoscope.dashboard.limits`. Only this command line names
plug-ins:
nothing a viewer sends (a link, a typed path, an upload) can make the server import a module."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from paretoscope.catalog import ASSETS_ENV_VAR, default_assets_dir
from paretoscope.dashboard.limits import (
    ALLOWED_DIRS_ENV_VAR,
    DEFAULT_MAX_UPLOAD_MB,
    DEFAULT_VIDEO_CACHE_MB,
    MAX_UPLOAD_ENV_VAR,
    PLUGINS_ENV_VAR,
    PRERENDER_ENV_VAR,
    RAY_ADDRESS_ENV_VAR,
    VIDEO_CACHE_ENV_VAR,
    WORKERS_ENV_VAR,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
CACHE_ENV_VAR = "PARETOSCOPE_CACHE"


def app_path() -> Path:
    """The Streamlit entry script, ``app.py`` of the `paretoscope.dashboard` package (found
    without importing it: the command line stays below the app it starts)."""
    spec = importlib.util.find_spec("paretoscope.dashboard")
    if spec is None or spec.origin is None:
        raise ParetoscopeError("the paretoscope.dashboard package is not installed")
    return Path(spec.origin).resolve().parent / "app.py"


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
        "--workers",
        type=int,
        default=None,
        help=f"frames drawn at once, shared fairly by the viewers' live episodes; sweeps and "
        f"other recordings hold one each and wait in line (default: ${WORKERS_ENV_VAR} or the "
        "number of cores)",
    )
    parser.add_argument(
        "--no-prerender",
        dest="prerender",
        action="store_false",
        help="do not pre-render the default view's episodes while the server is idle "
        f"(${PRERENDER_ENV_VAR}=0)",
    )
    parser.add_argument(
        "--video-cache-mb",
        type=int,
        default=None,
        help=f"memory for finished videos, least recently used dropped first (default: "
        f"${VIDEO_CACHE_ENV_VAR} or {DEFAULT_VIDEO_CACHE_MB})",
    )
    parser.add_argument(
        "--max-upload-mb",
        type=int,
        default=None,
        help=f"largest upload accepted (default: ${MAX_UPLOAD_ENV_VAR} or {DEFAULT_MAX_UPLOAD_MB})",
    )
    parser.add_argument(
        "--allow-dir",
        type=Path,
        action="append",
        default=[],
        help="a folder users may add by typing its path (repeatable; by default only the assets "
        "folder can be read)",
    )
    parser.add_argument(
        "--agent",
        dest="agents",
        metavar="py:module:callable",
        action="append",
        default=[],
        help="a plug-in policy to offer beside the assets' agents, for every env it serves: "
        "the server imports the module and calls callable(env_id) (repeatable; agents of "
        "installed packages' paretoscope.agents entry points are offered too)",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="HOST:PORT|auto",
        help="record live rollouts on this Ray cluster's nodes, the server relaying their "
        "frames (needs the ray extra, and paretoscope and the agents' code on every node); "
        "rolled out here when it cannot be reached",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the command that would run, and exit"
    )
    parser.set_defaults(func=run)


def streamlit_command(
    assets: Path, host: str, port: int, max_upload_mb: int = DEFAULT_MAX_UPLOAD_MB
) -> list[str]:
    """The command line that serves the app (headless: it prints the URL, opens no browser).

    `paretoscope.dashboard.serve` is ``python -m streamlit`` plus imports warmed while the server
    starts.
    Streamlit's own upload limit is set to `max_upload_mb` (the app checks it again).
    """
    return [
        sys.executable,
        "-m",
        "paretoscope.dashboard.serve",
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
        # No page writes bare expressions: compiling each page without magic's rewrite saves
        # about 0.1 s of the first run.
        "--runner.magicEnabled",
        "false",
        # Streamlit collects garbage (all generations) after every run by default, holding the
        # interpreter lock: 0.16 s on an idle machine with torch, MuJoCo and plotly imported, and
        # 30% of the lock's time with 8 viewers. Python's own collections are enough.
        "--runner.postScriptGC",
        "false",
        # Anything that escapes the pages' guards: a generic message in the browser, the
        # exception and traceback in the server's log only.
        "--client.showErrorDetails",
        "none",
        "--server.maxUploadSize",
        str(int(max_upload_mb)),
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


def limits_environment(args: argparse.Namespace) -> dict[str, str]:
    """The environment variables that carry the server's limits to the app."""
    values: dict[str, str] = {}
    for flag, name in (
        ("workers", WORKERS_ENV_VAR),
        ("video_cache_mb", VIDEO_CACHE_ENV_VAR),
        ("max_upload_mb", MAX_UPLOAD_ENV_VAR),
    ):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if int(value) < 1:
            raise ParetoscopeError(f"--{flag.replace('_', '-')}: expected at least 1, got {value}")
        values[name] = str(int(value))
    folders = []
    for folder in getattr(args, "allow_dir", None) or []:
        resolved = Path(folder).expanduser().resolve()
        if not resolved.is_dir():
            raise ParetoscopeError(f"--allow-dir {folder}: no such directory")
        folders.append(str(resolved))
    if folders:
        values[ALLOWED_DIRS_ENV_VAR] = os.pathsep.join(folders)
    if getattr(args, "prerender", True) is False:
        values[PRERENDER_ENV_VAR] = "0"
    address = (getattr(args, "ray_address", None) or "").strip()
    if address:
        values[RAY_ADDRESS_ENV_VAR] = address
    values.update(plugins_environment(getattr(args, "agents", None) or []))
    return values


def plugins_environment(sources: list[str]) -> dict[str, str]:
    """The variable that names the --agent plug-ins to the app (checked here for their form;
    the app imports them, and says in the page when one cannot be)."""
    from paretoscope.agents.plugin import is_plugin, parse_plugin

    checked: list[str] = []
    for source in sources:
        text = str(source).strip()
        if not is_plugin(text):
            raise ParetoscopeError(
                f"--agent {briefly(source)}: expected a plug-in, py:module.path:callable "
                "(agent files go in the assets folder)"
            )
        parse_plugin(text)
        if text not in checked:
            checked.append(text)
    return {PLUGINS_ENV_VAR: "\n".join(checked)} if checked else {}


def run(args: argparse.Namespace) -> int:
    if not 0 < int(args.port) < 65536:
        raise ParetoscopeError(f"--port: expected 1 to 65535, got {args.port}")
    assets = resolve_assets(args.assets)
    limits = limits_environment(args)
    upload_mb = int(limits.get(MAX_UPLOAD_ENV_VAR) or os.environ.get(MAX_UPLOAD_ENV_VAR) or 0)
    command = streamlit_command(
        assets, args.host, int(args.port), upload_mb if upload_mb > 0 else DEFAULT_MAX_UPLOAD_MB
    )
    if args.dry_run:
        print(" ".join(command))
        return 0
    environment = dict(os.environ)
    environment.update(limits)
    if args.cache is not None:
        environment[CACHE_ENV_VAR] = str(args.cache.expanduser())
    print(f"paretoscope dashboard on http://{args.host}:{args.port} (assets: {assets})", flush=True)
    # Become the server rather than wait for a child: a signal to this process (Ctrl-C, a
    # supervisor's SIGTERM) then reaches the server itself and nothing is left running.
    os.execve(command[0], command, environment)
    return 0  # pragma: no cover - execve does not return
