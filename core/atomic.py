"""Atomic file writes: readers see the old file or the new one, never a torn one."""

from __future__ import annotations

import os
from pathlib import Path


def write_bytes_atomically(path: Path, payload: bytes) -> None:
    """Write `payload` to `path` through a temporary file beside it, fsync, then a rename."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
