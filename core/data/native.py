"""paretoscope's own dataset format: a directory of flat ``.npy`` columns and a JSON header.

Opened with memory maps, so a 50,000-trajectory dataset opens in milliseconds and only the
columns a caller touches are read. The precomputed per-trajectory table (returns, offsets,
preferences) and a cached summary let the dashboard show a dataset without reading its steps.
The layout is documented in docs/datasets.md; `FORMAT_VERSION` changes when it does.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from paretoscope import jsonfile
from paretoscope.data.formats import DatasetHeader, TrajectoryStream
from paretoscope.data.summary import SUMMARY_VERSION, DatasetSummary, TrajectoryTable, summarize
from paretoscope.data.trajectories import (
    DatasetInfo,
    Trajectories,
    Trajectory,
    check_trajectory,
    trajectory_return,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.text import QUOTE_LIMIT, briefly, printable

FORMAT_NAME = "paretoscope-trajectories"
FORMAT_VERSION = 1
HEADER_FILE = "paretoscope-dataset.json"
SUMMARY_FILE = "summary.json"

# Columns with one row per step, and with one row per trajectory.
STEP_COLUMNS = ("observations", "actions", "raw_rewards", "terminals", "next_observations")
TRAJECTORY_COLUMNS = ("offsets", "preferences", "final_observations", "returns")

# A resumable writer's commit point: counts, rows per column and caller state; and its table.
_CHECKPOINT_FILE = "checkpoint.json"
_CHECKPOINT_TABLE = "checkpoint-table.npz"

# Every dataset has these columns (next_observations only when not derivable).
REQUIRED_COLUMNS = tuple(
    name for name in STEP_COLUMNS + TRAJECTORY_COLUMNS if name != "next_observations"
)

# Step columns are streamed to disk behind a fixed-size .npy header, written last.
_NPY_HEADER_BYTES = 128


def is_native_dataset(path: str | Path) -> bool:
    """Whether `path` is a directory holding a native dataset header."""
    return (Path(path) / HEADER_FILE).is_file()


def sniff_native(path: Path) -> DatasetHeader | None:
    """A native dataset's header (env, counts) from its JSON alone; None for other paths."""
    if not (path.is_dir() and is_native_dataset(path)):
        return None
    header = read_header(path)
    info = header.get("info")
    env_id = info.get("env_id") if isinstance(info, dict) else None
    if not isinstance(env_id, str):
        raise ParetoscopeError(f"{path}: the dataset header names no env_id")
    described = info if isinstance(info, dict) else {}
    parts = [str(described[k]) for k in ("quality", "preference_distribution") if described.get(k)]
    count = header.get("n_trajectories")
    steps = header.get("n_steps")
    return DatasetHeader(
        format="native",
        env_id=env_id,
        n_trajectories=int(count) if isinstance(count, int) else None,
        description=" ".join(parts) or str(described.get("source") or ""),
        extra={"steps": int(steps)} if isinstance(steps, int) else {},
    )


def _npy_header(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    """A version 1.0 .npy header of exactly `_NPY_HEADER_BYTES` bytes."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer,
        {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape},
    )
    header = buffer.getvalue()
    if len(header) != _NPY_HEADER_BYTES:  # only for absurdly many dimensions
        raise RuntimeError(f"unexpected .npy header size {len(header)}")
    return header


class _StepColumn:
    """A 2-D (or 1-D) column appended to a .npy file row block by row block."""

    def __init__(
        self, path: Path, dtype: np.dtype, width: int | None, resume_rows: int | None = None
    ) -> None:
        self.path = path
        self.dtype = np.dtype(dtype)
        self.width = width
        if resume_rows is None:
            self.rows = 0
            self._file: BinaryIO = open(path, "wb", buffering=1 << 20)  # noqa: SIM115
            self._file.write(b"\0" * _NPY_HEADER_BYTES)
        else:  # continue after the last checkpoint: drop anything written after it
            self.rows = resume_rows
            self._file = open(path, "r+b", buffering=1 << 20)  # noqa: SIM115
            row_bytes = self.dtype.itemsize * (width or 1)
            self._file.truncate(_NPY_HEADER_BYTES + resume_rows * row_bytes)
            self._file.seek(0, os.SEEK_END)

    def append(self, values: np.ndarray) -> None:
        block = np.ascontiguousarray(values, dtype=self.dtype)
        self._file.write(block.data)
        self.rows += block.shape[0]

    def finish(self) -> dict[str, Any]:
        shape = (self.rows,) if self.width is None else (self.rows, self.width)
        self._file.seek(0)
        self._file.write(_npy_header(self.dtype, shape))
        self._file.close()
        return {"file": self.path.name, "dtype": self.dtype.str, "shape": list(shape)}

    def flush(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


class NativeWriter:
    """Writes a native dataset trajectory by trajectory, never holding the step data.

    Use as a context manager; `close()` (or leaving the block) finishes the dataset. Data go to
    a hidden temporary directory renamed at the end, so a failure or an interrupt leaves nothing
    half-written at `path`.

    With a `resume_key` (a JSON-able dict saying what is being written), the writer is
    resumable: `checkpoint(state)` commits what was appended so far, an interrupted writer keeps
    its partial directory, and a new writer with the same key continues after the last
    checkpoint (`resumed_state` returns the `state` given then; empty when starting afresh).
    """

    def __init__(
        self,
        path: str | Path,
        info: DatasetInfo,
        store_next_observations: bool = False,
        overwrite: bool = False,
        validate: bool = True,
        resume_key: dict[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.info = info
        self.spec = info.spec
        self.validate = validate
        _check_output_path(self.path, overwrite)
        make_folder(self.path.parent)
        self._resume_key = resume_key
        partial_name = (
            f".{self.path.name}.partial"
            if resume_key
            else f".{self.path.name}.{os.getpid()}.partial"
        )
        self._temporary = self.path.with_name(partial_name)
        self._overwrite = overwrite
        self._lengths: list[int] = []
        self._preferences: list[np.ndarray] = []
        self._finals: list[np.ndarray] = []
        self._returns: list[np.ndarray] = []
        self._closed = False
        self.resumed_state: dict[str, Any] = {}
        spec = self.spec
        widths: dict[str, tuple[np.dtype, int | None]] = {
            "observations": (np.dtype(np.float64), spec.obs_dim),
            "actions": (np.dtype(np.float64), spec.act_dim),
            "raw_rewards": (np.dtype(np.float64), spec.n_obj),
            "terminals": (np.dtype(bool), None),
        }
        if store_next_observations:
            widths["next_observations"] = (np.dtype(np.float64), spec.obs_dim)
        checkpoint = self._read_checkpoint(list(widths))
        if checkpoint is None:
            if self._temporary.exists():
                shutil.rmtree(self._temporary)
            self._temporary.mkdir()
        rows = checkpoint["rows"] if checkpoint else {}
        self._columns: dict[str, _StepColumn] = {
            name: _StepColumn(self._temporary / f"{name}.npy", dtype, width, rows.get(name))
            for name, (dtype, width) in widths.items()
        }

    def append(self, trajectory: Trajectory) -> None:
        """Add one trajectory (validated against the env spec unless `validate=False`)."""
        if self.validate:
            check_trajectory(trajectory, self.spec, f"{self.path}: trajectory {len(self._lengths)}")
        if trajectory.next_observations is not None and "next_observations" not in self._columns:
            raise ParetoscopeError(
                f"{self.path}: trajectory {len(self._lengths)} has next_observations that are not "
                "its shifted observations; create the writer with store_next_observations=True"
            )
        rewards = np.asarray(trajectory.raw_rewards, dtype=np.float64)
        self._columns["observations"].append(trajectory.observations)
        self._columns["actions"].append(trajectory.actions)
        self._columns["raw_rewards"].append(rewards)
        self._columns["terminals"].append(trajectory.terminals)
        if "next_observations" in self._columns:
            self._columns["next_observations"].append(trajectory.next_observations_or_derived())
        self._lengths.append(len(trajectory))
        self._preferences.append(np.asarray(trajectory.preference, dtype=np.float64))
        self._finals.append(np.asarray(trajectory.final_observation, dtype=np.float64))
        self._returns.append(trajectory_return(rewards))

    @property
    def n_trajectories(self) -> int:
        return len(self._lengths)

    # --- resuming ----------------------------------------------------------------------------
    def _read_checkpoint(self, column_names: list[str]) -> dict[str, Any] | None:
        """The last checkpoint of a partial write with the same key (loading its table)."""
        if self._resume_key is None:
            return None
        try:
            checkpoint = json.loads((self._temporary / _CHECKPOINT_FILE).read_text("utf-8"))
            if checkpoint["key"] != json.loads(json.dumps(self._resume_key)):
                return None
            if sorted(checkpoint["rows"]) != sorted(column_names):
                return None
            if not all((self._temporary / f"{name}.npy").is_file() for name in column_names):
                return None
            count = int(checkpoint["n_trajectories"])
            with np.load(self._temporary / _CHECKPOINT_TABLE, allow_pickle=False) as table:
                self._lengths = [int(length) for length in table["lengths"][:count]]
                self._preferences = list(table["preferences"][:count])
                self._finals = list(table["final_observations"][:count])
                self._returns = list(table["returns"][:count])
            if len(self._lengths) != count:
                raise ValueError("checkpoint table shorter than its count")
        except (OSError, ValueError, KeyError, TypeError):
            self._lengths, self._preferences, self._finals, self._returns = [], [], [], []
            return None
        self.resumed_state = dict(checkpoint.get("state") or {})
        return checkpoint

    def checkpoint(self, state: dict[str, Any] | None = None) -> None:
        """Commit everything appended so far (resumable writers only); `state` is kept with it."""
        if self._resume_key is None:
            raise RuntimeError("checkpoint() needs a writer created with a resume_key")
        for column in self._columns.values():
            column.flush()
        count = len(self._lengths)
        table_path = self._temporary / _CHECKPOINT_TABLE
        with open(table_path.with_suffix(".partial"), "wb") as file:
            np.savez(
                file,
                lengths=np.asarray(self._lengths, dtype=np.int64),
                preferences=np.reshape(self._preferences, (count, self.spec.n_obj)),
                final_observations=np.reshape(self._finals, (count, self.spec.obs_dim)),
                returns=np.reshape(self._returns, (count, self.spec.n_obj)),
            )
        os.replace(table_path.with_suffix(".partial"), table_path)
        content = {
            "key": self._resume_key,
            "n_trajectories": count,
            "rows": {name: column.rows for name, column in self._columns.items()},
            "state": state or {},
        }
        checkpoint_path = self._temporary / _CHECKPOINT_FILE
        _write_json(checkpoint_path.with_suffix(".partial"), content)
        os.replace(checkpoint_path.with_suffix(".partial"), checkpoint_path)

    def close(self) -> Path:
        """Finish the dataset: headers, per-trajectory table, summary; move it into place."""
        if self._closed:
            return self.path
        if not self._lengths:
            self.abort()
            raise ParetoscopeError(f"{self.path}: no trajectories to write")
        columns = {name: column.finish() for name, column in self._columns.items()}
        lengths = np.asarray(self._lengths, dtype=np.int64)
        per_trajectory = {
            "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            "preferences": np.stack(self._preferences),
            "final_observations": np.stack(self._finals),
            "returns": np.stack(self._returns),
        }
        for name, array in per_trajectory.items():
            np.save(self._temporary / f"{name}.npy", array)
            columns[name] = {
                "file": f"{name}.npy",
                "dtype": array.dtype.str,
                "shape": list(array.shape),
            }
        uid = uuid.uuid4().hex
        header = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "uid": uid,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "info": self.info.to_dict(),
            "n_trajectories": len(lengths),
            "n_steps": int(lengths.sum()),
            "obs_dim": self.spec.obs_dim,
            "act_dim": self.spec.act_dim,
            "n_obj": self.spec.n_obj,
            "columns": columns,
        }
        table = TrajectoryTable.from_columns(
            per_trajectory["returns"], lengths, per_trajectory["preferences"], self.info.horizon
        )
        _write_json(self._temporary / HEADER_FILE, header)
        _write_summary(self._temporary, uid, summarize(table, self.info))
        for name in (_CHECKPOINT_FILE, _CHECKPOINT_TABLE):
            (self._temporary / name).unlink(missing_ok=True)
        if self._overwrite and self.path.exists():
            shutil.rmtree(self.path)
        os.replace(self._temporary, self.path)
        self._closed = True
        return self.path

    def abort(self, keep_checkpoint: bool = False) -> None:
        """Drop everything written so far; with `keep_checkpoint`, keep what a resumable writer
        committed so that the next writer with the same key continues from it."""
        for column in self._columns.values():
            column.close()
        if not (keep_checkpoint and (self._temporary / _CHECKPOINT_FILE).exists()):
            shutil.rmtree(self._temporary, ignore_errors=True)
        self._closed = True

    def __enter__(self) -> NativeWriter:
        return self

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort(keep_checkpoint=self._resume_key is not None)


def _check_output_path(path: Path, overwrite: bool) -> None:
    if not path.exists():
        return
    if not overwrite:
        raise ParetoscopeError(f"{path}: already exists (pass overwrite to replace it)")
    if not is_native_dataset(path):
        raise ParetoscopeError(
            f"{path}: exists and is not a paretoscope dataset; refusing to replace it"
        )


def _write_json(path: Path, content: dict[str, Any]) -> None:
    path.write_text(json.dumps(content, indent=1) + "\n", encoding="utf-8")


def _write_summary(directory: Path, uid: str, summary: DatasetSummary) -> None:
    _write_json(directory / SUMMARY_FILE, {"dataset_uid": uid, **summary.to_dict()})


def write_native(
    trajectories: Trajectories, path: str | Path, overwrite: bool = False, progress: bool = False
) -> Path:
    """Write in-memory (or memory-mapped) `Trajectories` as a native dataset."""
    from paretoscope.data.progress import progress_bar

    with NativeWriter(
        path,
        trajectories.info,
        store_next_observations=trajectories.next_observations is not None,
        overwrite=overwrite,
        validate=True,
    ) as writer:
        for trajectory in progress_bar(
            trajectories, "writing", progress, "traj", total=len(trajectories)
        ):
            writer.append(trajectory)
    return Path(path)


# --- reading ------------------------------------------------------------------------------------


def read_header(path: str | Path) -> dict[str, Any]:
    """The JSON header of the native dataset at `path`, checked for format and version."""
    path = Path(path)
    header_path = path / HEADER_FILE
    if not header_path.is_file():
        raise ParetoscopeError(f"{path}: not a paretoscope dataset (no {HEADER_FILE})")
    try:
        header = jsonfile.loads(header_path.read_bytes(), header_path)
    except OSError as error:
        raise ParetoscopeError(f"{header_path}: unreadable header ({error})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ParetoscopeError(f"{header_path}: not a {FORMAT_NAME} header")
    version = header.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ParetoscopeError(
            f"{header_path}: format version {briefly(version)}; this paretoscope reads up to "
            f"{FORMAT_VERSION} (upgrade paretoscope)"
        )
    if not isinstance(header.get("info"), dict):
        raise ParetoscopeError(f"{header_path}: the header has no 'info' object")
    columns = header.get("columns")
    if not isinstance(columns, dict):
        raise ParetoscopeError(
            f"{header_path}: the header's 'columns' is "
            f"{'missing' if columns is None else 'a ' + type(columns).__name__}, expected an "
            "object naming each column's file, dtype and shape"
        )
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise ParetoscopeError(
            f"{header_path}: the header's 'columns' lack {', '.join(map(repr, missing))}"
        )
    for name, entry in columns.items():
        _check_column_entry(path, header_path, name, entry)
    return header


def _check_column_entry(path: Path, header_path: Path, name: str, entry: Any) -> None:
    """One entry of the header's `columns`: a file inside the dataset folder, a dtype, a shape."""
    shown = printable(name, 80)
    if name not in STEP_COLUMNS + TRAJECTORY_COLUMNS:
        raise ParetoscopeError(f"{header_path}: unknown column {shown!r}")
    if not (
        isinstance(entry, dict)
        and isinstance(entry.get("file"), str)
        and isinstance(entry.get("dtype"), str)
        and isinstance(entry.get("shape"), list)
        and all(isinstance(size, int) and size >= 0 for size in entry["shape"])
    ):
        raise ParetoscopeError(
            f"{header_path}: column {shown!r} is not an object with a 'file', a 'dtype' and a "
            "'shape' (a list of sizes)"
        )
    file_name = entry["file"]
    # A plain file name in the folder: never an absolute path, '..' or a link leading out.
    inside = Path(file_name).name == file_name and file_name not in ("", ".", "..")
    if not inside or (path / file_name).resolve().parent != path.resolve():
        raise ParetoscopeError(
            f"{header_path}: column {shown!r} names the file {printable(file_name, 80)!r}, "
            "which is not inside the dataset folder"
        )


def _open_column(path: Path, name: str, header: dict[str, Any]) -> np.ndarray:
    entry = header["columns"][name]
    file_path = path / entry["file"]
    where = printable(file_path, QUOTE_LIMIT)  # the file's name is the header's text
    try:
        array = np.load(file_path, mmap_mode="r", allow_pickle=False)
    except OSError as error:
        raise ParetoscopeError(
            f"{where}: cannot open column {name!r} ({error.strerror or error})"
        ) from None
    except ValueError:  # a pickle, Python objects, or a shape larger than the file
        raise ParetoscopeError(
            f"{where}: column {name!r} is not plain numbers in a .npy file that holds "
            "its whole shape"
        ) from None
    if list(array.shape) != list(entry["shape"]) or array.dtype.str != entry["dtype"]:
        raise ParetoscopeError(
            f"{where}: column {name!r} is {array.dtype.str} {list(array.shape)}, the header "
            f"says {printable(entry['dtype'], QUOTE_LIMIT)} {briefly(entry['shape'])} (the dataset "
            "is damaged)"
        )
    return array


def _checked_offsets(path: Path, header: dict[str, Any], steps: int | None) -> np.ndarray:
    """The offsets column, refused unless it starts at 0, never decreases and (when `steps`
    is known) ends at the number of step rows."""
    offsets = np.asarray(_open_column(path, "offsets", header))
    file_path = path / header["columns"]["offsets"]["file"]
    if offsets.ndim != 1 or offsets.dtype.kind not in "iu" or len(offsets) < 2:
        raise ParetoscopeError(
            f"{file_path}: column 'offsets' is not a list of at least two whole numbers"
        )
    if offsets[0] != 0:
        raise ParetoscopeError(f"{file_path}: column 'offsets' starts at {offsets[0]}, not 0")
    steps_per_trajectory = np.diff(offsets)
    if (steps_per_trajectory < 0).any():
        index = int(np.argmax(steps_per_trajectory < 0))
        raise ParetoscopeError(
            f"{file_path}: column 'offsets' decreases at trajectory {index} ({offsets[index]} "
            f"then {offsets[index + 1]}); offsets never decrease"
        )
    if steps is not None and offsets[-1] != steps:
        raise ParetoscopeError(
            f"{file_path}: column 'offsets' ends at {offsets[-1]} but the step columns hold "
            f"{steps} rows"
        )
    return offsets


def open_native(path: str | Path) -> Trajectories:
    """The native dataset at `path` as `Trajectories` over read-only memory maps."""
    path = Path(path)
    header = read_header(path)
    info = DatasetInfo.from_dict(header["info"], str(path / HEADER_FILE))
    columns = {name: _open_column(path, name, header) for name in header["columns"]}
    columns["offsets"] = _checked_offsets(path, header, len(columns["observations"]))
    return Trajectories(
        info=info,
        observations=columns["observations"],
        actions=columns["actions"],
        raw_rewards=columns["raw_rewards"],
        terminals=columns["terminals"],
        preferences=columns["preferences"],
        offsets=np.asarray(columns["offsets"]),
        final_observations=columns["final_observations"],
        next_observations=columns.get("next_observations"),
        returns=np.asarray(columns["returns"]),
    )


def native_table(path: str | Path, header: dict[str, Any] | None = None) -> TrajectoryTable:
    """The per-trajectory table of a native dataset, read from its small columns only."""
    path = Path(path)
    header = read_header(path) if header is None else header
    info = DatasetInfo.from_dict(header["info"], str(path / HEADER_FILE))
    offsets = _checked_offsets(path, header, None)
    return TrajectoryTable.from_columns(
        returns=np.asarray(_open_column(path, "returns", header)),
        lengths=np.diff(offsets),
        preferences=np.asarray(_open_column(path, "preferences", header)),
        horizon=info.horizon,
    )


def native_summary(path: str | Path) -> DatasetSummary:
    """The summary of a native dataset: from its cache when current, else computed and cached."""
    path = Path(path)
    header = read_header(path)
    table = native_table(path, header)
    cache = path / SUMMARY_FILE
    try:
        cached = jsonfile.loads(cache.read_bytes(), cache)
        if cached.get("dataset_uid") == header["uid"]:
            return DatasetSummary.from_dict(cached, table=table)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ParetoscopeError):
        pass  # missing, stale or damaged: recompute below
    summary = summarize(table, DatasetInfo.from_dict(header["info"], str(path / HEADER_FILE)))
    with contextlib.suppress(OSError):  # a read-only dataset is still readable
        _write_summary(path, header["uid"], summary)
    return summary


def write_native_stream(
    stream: TrajectoryStream, path: str | Path, overwrite: bool = False, progress: bool = False
) -> Path:
    """Write a dataset read once (`TrajectoryStream`) as a native dataset, one trajectory at a
    time: never two copies of the data."""
    from paretoscope.data.progress import progress_bar

    with NativeWriter(
        path,
        stream.info,
        store_next_observations=stream.store_next_observations,
        overwrite=overwrite,
        validate=False,  # the stream's reader checked every trajectory already
    ) as writer:
        shown = stream.count is not None and progress  # else the reader shows its own bar
        for trajectory in progress_bar(
            stream.trajectories, "converting", shown, "traj", total=stream.count
        ):
            writer.append(trajectory)
    return Path(path)


class NativeFormat:
    """paretoscope's own format, as registered in `paretoscope.data.formats`."""

    name = "native"
    description = f"a paretoscope dataset folder ({HEADER_FILE})"
    suffixes: tuple[str, ...] = ()  # a folder: uploaded zipped

    def check_signature(self, name: str, payload: bytes) -> None:
        raise ParetoscopeError(f"{name}: a native dataset is a folder; upload it as a .zip")

    def sniff(self, path: Path) -> DatasetHeader | None:
        return sniff_native(path)

    def open(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> Trajectories:
        return open_native(source)

    def summary(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> DatasetSummary:
        return native_summary(source)

    def write(
        self,
        trajectories: Trajectories,
        destination: str | Path,
        overwrite: bool = False,
        progress: bool = False,
    ) -> Path:
        return write_native(trajectories, destination, overwrite=overwrite, progress=progress)

    def write_stream(
        self,
        stream: TrajectoryStream,
        destination: str | Path,
        overwrite: bool = False,
        progress: bool = False,
    ) -> Path:
        return write_native_stream(stream, destination, overwrite=overwrite, progress=progress)


FORMAT = NativeFormat()

__all__ = [
    "FORMAT",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "NativeWriter",
    "SUMMARY_VERSION",
    "is_native_dataset",
    "sniff_native",
    "native_summary",
    "native_table",
    "open_native",
    "read_header",
    "write_native",
    "write_native_stream",
]
