"""The server's folders: the assets folder it was started on, the folders a user may read from,
and the folders cut from paths in messages (a viewer sees `agents/x`, not where the server keeps
it). Read from the command line and the environment only, so every module may ask.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paretoscope.cache import cache_dir
from paretoscope.catalog import default_assets_dir
from paretoscope.dashboard.limits import allowed_dirs


def assets_root() -> Path:
    """``--assets DIR`` after ``--`` on the streamlit command line, else the default folder."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--assets", type=Path, default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known.assets.expanduser() if known.assets else default_assets_dir()


def readable_roots() -> list[Path]:
    """The folders a user may read from: the assets folder and the ``--allow-dir`` folders."""
    return [assets_root(), *allowed_dirs()]


def hidden_folders() -> list[Path]:
    """The server's own folders, cut from paths in messages: the assets folder and the cache
    (a viewer sees `agents/x`, not where the server keeps it)."""
    folders = [assets_root(), cache_dir()]
    return [*folders, *(folder.resolve() for folder in folders)]
