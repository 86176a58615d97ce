"""Text to show: strings from files and links made safe (every control, format or separator
character written as a visible ``\\u…`` escape, the length capped), and the one number
formatter every page, table, report and command line uses."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

# Unicode categories that are not visible text: controls, formats (bidi overrides,
# zero-width marks), line and paragraph separators, private use, surrogates, unassigned.
_INVISIBLE = frozenset(("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"))


def printable(text: object, limit: int | None = None, keep: str = "") -> str:
    """`text` with its invisible characters (except those in `keep`) written as escapes, cut to
    `limit` characters (an ellipsis ends a cut text)."""
    text = str(text)
    # Escapes only lengthen: the first limit + 1 characters decide what is shown (a text of
    # megabytes is never escaped whole).
    head = text if limit is None else text[: limit + 1]
    shown = "".join(
        char.encode("unicode_escape").decode("ascii")
        if unicodedata.category(char) in _INVISIBLE and char not in keep
        else char
        for char in head
    )
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


# Characters of a user's value (an env id, a path, a name) that a message quotes.
QUOTE_LIMIT = 200


def quoted(value: object) -> str:
    """`value` as a message quotes it: in quotes, made printable and cut to `QUOTE_LIMIT`
    characters, so a message never echoes megabytes a file or an argument held."""
    text = value if isinstance(value, str) else str(value)
    return repr(printable(text[: QUOTE_LIMIT + 1], QUOTE_LIMIT))


def listed(names: Iterable[object], limit: int = 5) -> str:
    """A collection a user made (members, files, columns, keys) as a message names it: its
    first `limit` items (each quoted when it is text), then how many more there are, so a
    message never lists a million: "'a', 'b', 'c', 'd', 'e' and 999,995 more"."""
    items = list(names)
    shown = ", ".join(
        quoted(item) if isinstance(item, str) else printable(item, QUOTE_LIMIT)
        for item in items[:limit]
    )
    rest = len(items) - limit
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def briefly(value: object) -> str:
    """A value from a user's file or settings as a message shows it: a list by `listed` (in
    brackets), text by `quoted`, anything else as Python writes it, cut to `QUOTE_LIMIT`."""
    if isinstance(value, list | tuple):
        return f"[{listed(value)}]"
    if isinstance(value, str):
        return quoted(value)
    return printable(repr(value), QUOTE_LIMIT)


def changes(
    previous: Mapping[str, object],
    current: Mapping[str, object],
    keys: Sequence[str],
    limit: int = 5,
) -> str:
    """How the settings `keys` changed from `previous` to `current`, the first `limit` of them
    (each value `briefly`): "members: was 3, now 5; seed: was 0, now 1 and 2 more"."""
    shown = "; ".join(
        f"{printable(key, QUOTE_LIMIT)}: was {briefly(previous.get(key))}, "
        f"now {briefly(current.get(key))}"
        for key in keys[:limit]
    )
    rest = len(keys) - limit
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def for_terminal(text: object) -> str:
    """`text` for a terminal: lines and tabs kept, every other invisible character (an escape
    sequence from a file's name or field) written visibly."""
    return printable(text, keep="\n\t")


# Characters of one error or warning the command line prints, at most: the last line of
# defence should a message quote a user's value whole.
MESSAGE_LIMIT = 1_500


def terminal_message(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """A message for a terminal (as `for_terminal` writes it) of at most `limit` characters,
    then, when cut, how many characters more it had: "… (104,857,600 more characters)"."""
    text = str(text)
    pieces: list[str] = []
    used = 0
    for count, char in enumerate(text[: limit + 1]):
        piece = for_terminal(char)
        if used + len(piece) > limit:
            return "".join(pieces) + f"… ({len(text) - count:,} more characters)"
        pieces.append(piece)
        used += len(piece)
    return "".join(pieces)


# Shown for a missing value (None or NaN) wherever a number would be.
MISSING = "—"
# Magnitudes outside [SMALLEST_PLAIN, LARGEST_PLAIN) are written in scientific notation.
SMALLEST_PLAIN = 1e-4
LARGEST_PLAIN = 1e15


def number(value: float | None, digits: int = 4) -> str:
    """`value` for a reader: `digits` significant digits but never fewer than its integer
    digits, thousands separated, no trailing zeros, no "-0"; "—" when missing.

    5374273.3989 -> "5,374,273", 2170.4 -> "2,170", 4.41602 -> "4.416", 0.5 -> "0.5",
    -1e-9 with 4 digits -> "-1e-09", None or NaN -> "—".
    """
    if value is None:
        return MISSING
    value = float(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude < SMALLEST_PLAIN or magnitude >= LARGEST_PLAIN:
        mantissa, exponent = f"{value:.{max(digits - 1, 0)}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{exponent}"
    decimals = max(digits - 1 - math.floor(math.log10(magnitude)), 0)
    shown = f"{value:,.{decimals}f}"
    if "." in shown:
        shown = shown.rstrip("0").rstrip(".")
    return "0" if shown == "-0" else shown


def signed(value: float | None, digits: int = 4) -> str:
    """`number(value)` with a "+" before a positive value (a difference): "+1.5", "-2", "0"."""
    shown = number(value, digits)
    return shown if shown in ("0", MISSING) or shown.startswith("-") else "+" + shown


def numbers(values: object, digits: int = 4) -> str:
    """Several numbers, comma separated (each by `number`): "1,200, 0.5" would be ambiguous,
    so they are joined by "; " when any of them has a thousands separator."""
    shown = [number(float(value), digits) for value in values]  # type: ignore[attr-defined]
    return ("; " if any("," in text for text in shown) else ", ").join(shown)
