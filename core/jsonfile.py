"""Reading JSON that may come from anyone: one depth-bounded parse whose every failure is a
`ParetoscopeError` naming where the text came from.

Python's parser recurses once per nesting level, so 100,000 opening brackets end in a
`RecursionError`; `loads` measures the nesting first (brackets outside strings, in numpy) and
refuses text nested deeper than `MOST_JSON_DEPTH`, far deeper than any file paretoscope reads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.errors import ParetoscopeError

MOST_JSON_DEPTH = 100


class NestedTooDeeply(ParetoscopeError):
    """JSON nested deeper than `MOST_JSON_DEPTH`: hostile, never a file paretoscope wrote."""


# A JSON string, escapes included (the unrolled form runs in linear time).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def loads(text: str | bytes, where: object) -> Any:
    """The JSON value in `text`; a `ParetoscopeError` that starts with `where` when it is not
    JSON or is nested deeper than `MOST_JSON_DEPTH`."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        if _depth(text) > MOST_JSON_DEPTH:
            raise NestedTooDeeply(
                f"{where}: not readable JSON (nested deeper than {MOST_JSON_DEPTH} levels)"
            )
        return json.loads(text)
    except ValueError as error:  # not UTF-8, not JSON, or an integer literal too long to read
        raise ParetoscopeError(f"{where}: not readable JSON ({str(error)[:200]})") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise NestedTooDeeply(f"{where}: not readable JSON (nested too deeply)") from None


def _depth(text: str) -> int:
    """How deeply `text`'s arrays and objects nest (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MOST_JSON_DEPTH:
        return 0
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max()) if steps.size else 0


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; a `ParetoscopeError` naming the file when it is unreadable,
    not JSON, or not an object."""
    try:
        data = loads(path.read_bytes(), path)
    except OSError as error:
        raise ParetoscopeError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(data, dict):
        raise ParetoscopeError(f"{path}: expected a JSON object")
    return data
