"""Convert between dataset formats; any format with ``write`` is a target
(`paretoscope.data.formats`).

A source whose format can stream (D4MORL, Minari) is written to a format that can take a
stream (native) trajectory by trajectory: for D4MORL the pickle must be loaded whole (it is one
object), but each trajectory is written and dropped in turn, so the converter never holds two
copies of the data. Other directions go through `Trajectories` (a native source is
memory-mapped).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from paretoscope.data.formats import (
    DEFAULT_OUTPUT_FORMAT,
    DatasetWriter,
    format_of,
    get_dataset_format,
    writable_formats,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly


def target_format(destination: str | Path, to: str | None = None) -> str:
    """The output format's name: `to` when given, else the writable format whose prefix
    (``minari:``) or suffix (``.pkl``) `destination` has, else native."""
    names = writable_formats()
    if to is not None:
        if to not in names:
            raise ParetoscopeError(
                f"output format {briefly(to)}: expected one of {', '.join(names)}"
            )
        return to
    text = str(destination)
    for name in names:
        format = get_dataset_format(name)
        prefix = getattr(format, "prefix", "")
        if (prefix and text.startswith(prefix)) or any(map(text.endswith, format.suffixes)):
            return name
    return DEFAULT_OUTPUT_FORMAT


def convert(
    source: str | Path,
    destination: str | Path,
    to: str | None = None,
    env_id: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
) -> Path:
    """Convert `source` (any readable format) to `destination`; returns where it was written.

    Nothing is written when the source is invalid: D4MORL files are validated whole before
    the first trajectory is written, and outputs appear only once complete.
    """
    reader = format_of(source)
    writer = get_dataset_format(target_format(destination, to))
    stream = getattr(reader, "stream", None)
    write_stream = getattr(writer, "write_stream", None)
    if callable(stream) and callable(write_stream):
        written: Path = write_stream(
            stream(source, env_id=env_id, progress=progress),
            destination,
            overwrite=overwrite,
            progress=progress,
        )
        return written
    trajectories = reader.open(source, env_id=env_id, progress=progress)
    return cast(DatasetWriter, writer).write(
        trajectories, destination, overwrite=overwrite, progress=progress
    )


__all__ = ["convert", "target_format"]
