"""Frame sizes, checked once for every renderer (this module imports no GL and no mujoco)."""

from __future__ import annotations

from paretoscope.errors import ParetoscopeError

DEFAULT_SIZE = (480, 480)  # (width, height) in pixels
MAX_SIDE = 4096  # larger offscreen buffers fail on many GL implementations


def check_size(size: tuple[int, int] | list[int]) -> tuple[int, int]:
    """`size` as (width, height) positive ints no larger than MAX_SIDE, or a ParetoscopeError."""
    try:
        width, height = (int(value) for value in size)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"size: expected (width, height), got {size!r}") from None
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ParetoscopeError(
            f"size: expected width and height between 1 and {MAX_SIDE}, got {width}x{height}"
        )
    return width, height
