"""Output folders: made with their parents, or refused with one message naming the folder."""

from __future__ import annotations

from pathlib import Path

from paretoscope.errors import ParetoscopeError
from paretoscope.text import quoted


def make_folder(folder: Path) -> Path:
    """Make `folder` and its parents (nothing when it exists); a folder that cannot be made
    (no permission, a read-only or special file system such as /proc, a name too long, a file
    in the way) is a ParetoscopeError naming it and why."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ParetoscopeError(
            f"{quoted(str(folder))}: cannot make this folder ({reason})"
        ) from None
    return folder
