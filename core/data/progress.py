"""Progress bars for long data jobs: tqdm on stderr, shown only when asked and on a terminal."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

Item = TypeVar("Item")


def progress_bar(
    iterable: Iterable[Item],
    description: str,
    enabled: bool,
    unit: str = "it",
    total: int | None = None,
) -> Iterator[Item]:
    """`iterable` wrapped in a tqdm bar when `enabled` (and stderr is a terminal)."""
    if not enabled:
        yield from iterable
        return
    with tqdm(
        iterable, desc=description, unit=unit, total=total, disable=None, dynamic_ncols=True
    ) as bar:
        yield from bar


def counter_bar(total: int, description: str, enabled: bool, unit: str = "it") -> tqdm:
    """A tqdm bar advanced by hand (`update(n)`); a silent one when not `enabled`."""
    return tqdm(
        total=total,
        desc=description,
        unit=unit,
        disable=None if enabled else True,
        dynamic_ncols=True,
    )
