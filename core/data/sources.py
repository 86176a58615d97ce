"""Open any supported dataset by its path, and get its summary, cached beside the data.

Sources: a native dataset directory, a D4MORL ``.pkl`` file, a Minari dataset directory or
``minari:<dataset id>``. A native dataset keeps its summary inside its directory; for the
others a sidecar ``.npz`` (no pickle inside) sits next to the data, keyed by the source's size
and modification time, so opening an unchanged source again skips reading it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import numpy as np

from paretoscope.data.d4morl import check_input_file, load_d4morl, read_d4morl
from paretoscope.data.minari_io import (
    MINARI_PREFIX,
    is_minari_dataset,
    iter_minari,
    minari_data_path,
    read_minari,
)
from paretoscope.data.native import is_native_dataset, native_summary, open_native
from paretoscope.data.summary import (
    SUMMARY_VERSION,
    DatasetSummary,
    TrajectoryTable,
    summarize,
)
from paretoscope.data.trajectories import Trajectories
from paretoscope.errors import ParetoscopeError

SourceFormat = Literal["native", "d4morl", "minari"]
SIDECAR_SUFFIX = ".paretoscope-summary.npz"
MINARI_SIDECAR = "paretoscope-summary.npz"


def detect_format(source: str | Path) -> SourceFormat:
    """Which reader `source` needs; a `ParetoscopeError` for anything unreadable."""
    if str(source).startswith(MINARI_PREFIX):
        return "minari"
    path = Path(source)
    if not path.exists():
        raise ParetoscopeError(f"{path}: no such file or directory")
    if path.is_dir():
        if is_native_dataset(path):
            return "native"
        if is_minari_dataset(path):
            return "minari"
        raise ParetoscopeError(
            f"{path}: is a directory but neither a paretoscope dataset (no "
            "paretoscope-dataset.json) nor a Minari dataset (no data/metadata.json); a D4MORL "
            "dataset is a single .pkl file"
        )
    check_input_file(path)
    return "d4morl"


def open_dataset(
    source: str | Path, env_id: str | None = None, progress: bool = False
) -> Trajectories:
    """`source` as `Trajectories`: memory-mapped for native datasets, in memory otherwise."""
    kind = detect_format(source)
    if kind == "native":
        return open_native(source)
    if kind == "minari":
        return read_minari(source, env_id=env_id, progress=progress)
    return read_d4morl(source, env_id=env_id, progress=progress)


def dataset_summary(
    source: str | Path, env_id: str | None = None, progress: bool = False
) -> DatasetSummary:
    """The summary of `source`, from its cache when the source has not changed since."""
    kind = detect_format(source)
    if kind == "native":
        return native_summary(source)
    if kind == "minari":
        data_path = minari_data_path(source)
        sidecar = data_path / MINARI_SIDECAR
        key = _cache_key([data_path / "main_data.hdf5", data_path / "metadata.json"], env_id)
    else:
        path = Path(source)
        sidecar = path.with_name(path.name + SIDECAR_SUFFIX)
        key = _cache_key([path], env_id)
    cached = _read_sidecar(sidecar, key)
    if cached is not None:
        return cached
    # Stream the trajectories into the small table: never a second copy of the data.
    if kind == "minari":
        info, trajectories = iter_minari(source, env_id=env_id, progress=progress)
    else:
        loaded = load_d4morl(source, env_id=env_id, progress=progress)
        info, trajectories = loaded.info, loaded.trajectories(release=True)
    summary = summarize(TrajectoryTable.from_stream(trajectories, info.horizon), info)
    _write_sidecar(sidecar, key, summary)
    return summary


def _cache_key(files: list[Path], env_id: str | None) -> str:
    """What the cached summary depends on: the files' sizes and mtimes, the env, the version."""
    stamps = []
    for file in files:
        status = file.stat() if file.exists() else None
        stamps.append(
            [str(file.name), status.st_size if status else -1, status.st_mtime_ns if status else -1]
        )
    return json.dumps({"files": stamps, "env_id": env_id, "summary_version": SUMMARY_VERSION})


def _read_sidecar(sidecar: Path, key: str) -> DatasetSummary | None:
    try:
        with np.load(sidecar, allow_pickle=False) as content:
            if str(content["key"]) != key:
                return None
            table = TrajectoryTable(
                returns=content["returns"],
                lengths=content["lengths"],
                preferences=content["preferences"],
                ended_early=content["ended_early"],
            )
            return DatasetSummary.from_dict(json.loads(str(content["summary"])), table=table)
    except (OSError, ValueError, KeyError, TypeError, ParetoscopeError):
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
