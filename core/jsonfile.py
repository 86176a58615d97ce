"""Reading a small JSON file that must hold an object, with a message naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paretoscope.errors import ParetoscopeError


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; a `ParetoscopeError` naming the file when it is unreadable,
    not JSON, or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ParetoscopeError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(data, dict):
        raise ParetoscopeError(f"{path}: expected a JSON object")
    return data
