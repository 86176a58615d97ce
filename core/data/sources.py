"""Open any dataset by its path, and get its summary, cached beside the data.

A source is whatever a registered format (`paretoscope.data.formats`) claims: a native dataset
directory, a D4MORL ``.pkl`` file, a Minari dataset directory or ``minari:<dataset id>``, an
installed format's file. A format may cache its own summary (native: inside its directory);
for the others a sidecar ``.npz`` (no pickle inside) sits next to the data, keyed by the data
files' sizes and modification times, so opening an unchanged source again skips reading it.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope import jsonfile
from paretoscope.data.formats import DatasetFormat, format_of, read_stream
from paretoscope.data.summary import (
    SUMMARY_VERSION,
    DatasetSummary,
    TrajectoryTable,
    summarize,
)
from paretoscope.data.trajectories import Trajectories
from paretoscope.errors import ParetoscopeError

SIDECAR_SUFFIX = ".paretoscope-summary.npz"  # beside a single-file dataset
SIDECAR_NAME = "paretoscope-summary.npz"  # inside a dataset folder


def detect_format(source: str | Path) -> str:
    """The name of the format that reads `source`; a `ParetoscopeError` for anything no
    registered format reads."""
    return format_of(source).name


def open_dataset(
    source: str | Path, env_id: str | None = None, progress: bool = False
) -> Trajectories:
    """`source` as `Trajectories`: memory-mapped for native datasets, in memory otherwise."""
    return format_of(source).open(source, env_id=env_id, progress=progress)


def dataset_summary(
    source: str | Path, env_id: str | None = None, progress: bool = False
) -> DatasetSummary:
    """The summary of `source`, from its cache when the source has not changed since."""
    format = format_of(source)
    own = getattr(format, "summary", None)
    if callable(own):
        summary: DatasetSummary = own(source, env_id=env_id, progress=progress)
        return summary
    sidecar, watched = _summary_cache(format, source)
    key = _cache_key(watched, env_id)
    cached = _read_sidecar(sidecar, key) if sidecar is not None else None
    if cached is not None:
        return cached
    # Stream the trajectories into the small table: never a second copy of the data.
    stream = read_stream(format, source, env_id=env_id, progress=progress)
    summary = summarize(
        TrajectoryTable.from_stream(stream.trajectories, stream.info.horizon), stream.info
    )
    if sidecar is not None:
        _write_sidecar(sidecar, key, summary)
    return summary


def _summary_cache(format: DatasetFormat, source: str | Path) -> tuple[Path | None, list[Path]]:
    """Where the summary of `source` is cached (None: nowhere) and the files it depends on:
    beside a single-file source, else in the folder of the format's data files (by default the
    files directly inside the source's folder)."""
    path = Path(source)
    data_files = getattr(format, "data_files", None)
    if callable(data_files):
        watched: list[Path] = list(data_files(source))
    elif path.is_file():
        watched = [path]
    else:
        watched = sorted(
            entry
            for entry in path.iterdir()
            if entry.is_file() and not entry.name.startswith(".") and entry.name != SIDECAR_NAME
        )
    if path.is_file():
        return path.with_name(path.name + SIDECAR_SUFFIX), watched
    return (watched[0].parent / SIDECAR_NAME if watched else None), watched


def _cache_key(files: list[Path], env_id: str | None) -> str:
    """What the cached summary depends on: the files' sizes and mtimes, the env, the version."""
    stamps = []
    for file in files:
        status = file.stat() if file.exists() else None
        stamps.append(
            [str(file.name), status.st_size if status else -1, status.st_mtime_ns if status else -1]
        )
    return json.dumps({"files": stamps, "env_id": env_id, "summary_version": SUMMARY_VERSION})


def _sidecar_holds_what_it_declares(sidecar: Path) -> bool:
    """Whether every array in the cached summary (an uncompressed .npz, as `np.savez` writes
    it) declares no more bytes than its member holds: a sidecar shipped beside a dataset may
    be hostile, and numpy allocates an array's declared shape before reading it."""
    with zipfile.ZipFile(sidecar) as archive:
        for member in archive.infolist():
            if member.compress_type != zipfile.ZIP_STORED:
                return False
            with archive.open(member) as stream:
                version = np.lib.format.read_magic(stream)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
                else:
                    return False
                if int(np.prod(shape, dtype=object)) * dtype.itemsize > member.file_size:
                    return False
    return True


def _read_sidecar(sidecar: Path, key: str) -> DatasetSummary | None:
    try:
        if not _sidecar_holds_what_it_declares(sidecar):
            return None
        with np.load(sidecar, allow_pickle=False) as content:
            if str(content["key"]) != key:
                return None
            table = TrajectoryTable(
                returns=content["returns"],
                lengths=content["lengths"],
                preferences=content["preferences"],
                ended_early=content["ended_early"],
            )
            summary = jsonfile.loads(str(content["summary"]), sidecar)
            return DatasetSummary.from_dict(summary, table=table)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        zipfile.BadZipFile,
        ParetoscopeError,
    ):
        return None  # missing, stale or damaged: recompute


def _write_sidecar(sidecar: Path, key: str, summary: DatasetSummary) -> None:
    """Best effort: a source in a read-only place is summarised again next time."""
    assert summary.table is not None
    arrays: dict[str, Any] = {
        "key": np.array(key),
        "summary": np.array(json.dumps(summary.to_dict())),
        "returns": summary.table.returns,
        "lengths": summary.table.lengths,
        "preferences": summary.table.preferences,
        "ended_early": summary.table.ended_early,
    }
    temporary = sidecar.with_name(f".{sidecar.name}.{os.getpid()}.partial")
    try:
        with open(temporary, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temporary, sidecar)
    except OSError:
        temporary.unlink(missing_ok=True)
