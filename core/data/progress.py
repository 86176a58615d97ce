"""Progress bars for long data jobs: tqdm on stderr, shown only when asked and on a terminal."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, TypeVar

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


class ReadProgress:
    """A binary file wrapper that advances a bytes bar as it is read (for `pickle.load`)."""

    def __init__(self, file: BinaryIO, total: int, description: str, enabled: bool) -> None:
        self._file = file
        self._bar = tqdm(
            total=total,
            desc=description,
            unit="B",
            unit_scale=True,
            disable=None if enabled else True,
            dynamic_ncols=True,
        )

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self._bar.update(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        count: int = self._file.readinto(buffer)  # type: ignore[attr-defined]
        self._bar.update(count or 0)
        return count

    def readline(self, size: int = -1) -> bytes:
        data = self._file.readline(size)
        self._bar.update(len(data))
        return data

    def peek(self, size: int = 0) -> bytes:
        return self._file.peek(size)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._bar.close()


def counter_bar(total: int, description: str, enabled: bool, unit: str = "it") -> tqdm:
    """A tqdm bar advanced by hand (`update(n)`); a silent one when not `enabled`."""
    return tqdm(
        total=total,
        desc=description,
        unit=unit,
        disable=None if enabled else True,
        dynamic_ncols=True,
    )
