"""Where paretoscope keeps what it computed: sweeps (``results/``) and recordings
(``rollouts/``) under `$PARETOSCOPE_CACHE`, else ``$XDG_CACHE_HOME/paretoscope`` (by default
``~/.cache/paretoscope``)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VAR = "PARETOSCOPE_CACHE"
RESULTS_SUBDIR = "results"
RECORDINGS_SUBDIR = "rollouts"


def cache_dir() -> Path:
    """The cache folder (it need not exist yet)."""
    override = os.environ.get(CACHE_ENV_VAR)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paretoscope"
