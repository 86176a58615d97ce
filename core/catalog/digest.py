"""What identifies an asset's content: a digest of its file, or of every file in its folder
with their relative paths (renaming a part changes it; copying or touching the folder does not)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def content_digest(path: Path) -> str:
    """The sha256 (hex) of `path`'s bytes, or of each file under the folder `path`: its path
    relative to the folder, then its bytes, in path order, each part preceded by its length
    (so that no two different folders give the same stream)."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        parts = [file.relative_to(path).as_posix().encode()] if file != path else []
        for part in [*parts, file.read_bytes()]:
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return digest.hexdigest()
