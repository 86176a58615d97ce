"""Text forms of setting values, as the command line writes them.

Each parser takes the text of one option and returns the value, or raises ValueError saying
what was expected (`paretoscope.cli.options` names the option in front of it).
"""

from __future__ import annotations

import re


def parse_numbers(text: str) -> tuple[float, ...]:
    """Comma-separated numbers such as ``0.8,0.2``."""
    try:
        return tuple(float(part) for part in text.replace(" ", "").split(","))
    except ValueError:
        raise ValueError(
            f"expected comma-separated numbers such as 0.8,0.2, got {text!r}"
        ) from None


def parse_auto_or_number(text: str) -> float | None:
    """``auto`` (None: the library decides) or a number."""
    if text == "auto":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected 'auto' or a number, got {text!r}") from None


def parse_size(text: str) -> tuple[int, int]:
    """A frame size like ``480x480`` as (width, height)."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if match is None:
        raise ValueError(f"expected WxH such as 480x480, got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise ValueError(f"expected sides from 16 to 4096 pixels, got {text!r}")
    return width, height


def format_numbers(values: tuple[float | None, ...]) -> str:
    """Numbers as `parse_numbers` reads them (``inf`` for None: no bound)."""
    return ",".join("inf" if value is None else f"{value:g}" for value in values)
