"""Strings from files and links, made safe to show: every control, format or separator
character (newlines, terminal escapes, bidirectional overrides, zero-width marks) written as a
visible ``\\u…`` escape, and the length capped. The terminal and the dashboard both use it."""

from __future__ import annotations

import unicodedata

# Unicode categories that are not visible text: controls, formats (bidi overrides,
# zero-width marks), line and paragraph separators, private use, surrogates, unassigned.
_INVISIBLE = frozenset(("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"))


def printable(text: object, limit: int | None = None, keep: str = "") -> str:
    """`text` with its invisible characters (except those in `keep`) written as escapes, cut to
    `limit` characters (an ellipsis ends a cut text)."""
    shown = "".join(
        char.encode("unicode_escape").decode("ascii")
        if unicodedata.category(char) in _INVISIBLE and char not in keep
        else char
        for char in str(text)
    )
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


def for_terminal(text: object) -> str:
    """`text` for a terminal: lines and tabs kept, every other invisible character (an escape
    sequence from a file's name or field) written visibly."""
    return printable(text, keep="\n\t")
