"""What says a file or folder changed: its modification times, part of the cache keys of what
the pages load from it."""

from __future__ import annotations

from pathlib import Path


def mtime(path: Path) -> float:
    """The latest modification time of a file, or of a folder and its entries; 0 when it
    cannot be read."""
    try:
        stamps = [path.stat().st_mtime]
        if path.is_dir():
            stamps += [child.stat().st_mtime for child in path.iterdir()]
        return max(stamps)
    except OSError:
        return 0.0
