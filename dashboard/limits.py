"""The server's limits, read from the environment (`paretoscope dashboard` flags set them).

One place for every knob that keeps a shared server healthy: how many rollouts render at once,
how many bytes of finished videos stay in memory, how big an upload may be, which folders
beyond the assets folder a user may name, and which plug-in agents the server offers.
"""

from __future__ import annotations

import os
from pathlib import Path

from paretoscope.errors import ParetoscopeError

# The variables `paretoscope dashboard` sets from its flags (`paretoscope.cli.dashboard`).
WORKERS_ENV_VAR = "PARETOSCOPE_WORKERS"
VIDEO_CACHE_ENV_VAR = "PARETOSCOPE_VIDEO_CACHE_MB"
PRERENDER_ENV_VAR = "PARETOSCOPE_PRERENDER"
MAX_UPLOAD_ENV_VAR = "PARETOSCOPE_MAX_UPLOAD_MB"
ALLOWED_DIRS_ENV_VAR = "PARETOSCOPE_ALLOWED_DIRS"
# The plug-ins of --agent, one per line (a plug-in's name holds colons, the path separator).
PLUGINS_ENV_VAR = "PARETOSCOPE_PLUGINS"
# --ray-address: the Ray cluster whose actors record the live rollouts.
RAY_ADDRESS_ENV_VAR = "PARETOSCOPE_RAY_ADDRESS"
DEFAULT_MAX_UPLOAD_MB = 200
DEFAULT_VIDEO_CACHE_MB = 256

MEGABYTE = 1024 * 1024


def _positive_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ParetoscopeError(f"${name}: expected a positive integer, got {raw!r}") from None
    if value < 1:
        raise ParetoscopeError(f"${name}: expected a positive integer, got {value}")
    return value


def rollout_workers() -> int:
    """Rollouts rendered at once by one server: ``$PARETOSCOPE_WORKERS``, else the core count."""
    return _positive_int(WORKERS_ENV_VAR, os.cpu_count() or 1)


def prerender_enabled() -> bool:
    """Whether idle workers pre-render the default view (``$PARETOSCOPE_PRERENDER``, on unless
    it is 0, false, no or off)."""
    raw = os.environ.get(PRERENDER_ENV_VAR, "").strip().lower()
    return raw not in ("0", "false", "no", "off")


def video_cache_bytes() -> int:
    """Bytes of finished recordings kept in memory (``$PARETOSCOPE_VIDEO_CACHE_MB``, 256 MB)."""
    return _positive_int(VIDEO_CACHE_ENV_VAR, DEFAULT_VIDEO_CACHE_MB) * MEGABYTE


def max_upload_bytes() -> int:
    """The largest upload accepted (``$PARETOSCOPE_MAX_UPLOAD_MB``, 200 MB)."""
    return _positive_int(MAX_UPLOAD_ENV_VAR, DEFAULT_MAX_UPLOAD_MB) * MEGABYTE


def allowed_dirs() -> list[Path]:
    """Folders besides the assets folder that a user may add by typing a path
    (``$PARETOSCOPE_ALLOWED_DIRS``, separated by the OS path separator; none by default)."""
    raw = os.environ.get(ALLOWED_DIRS_ENV_VAR, "")
    return [Path(part).expanduser() for part in raw.split(os.pathsep) if part.strip()]


def plugin_sources() -> list[str]:
    """The plug-in agents the server was started with (``--agent py:module:callable``, carried
    in ``$PARETOSCOPE_PLUGINS``, one per line), in order and without repeats."""
    raw = os.environ.get(PLUGINS_ENV_VAR, "")
    sources: list[str] = []
    for line in raw.splitlines():
        source = line.strip()
        if source and source not in sources:
            sources.append(source)
    return sources
