"""W&B runs: a run folder as Weights & Biases' own library writes it (``wandb/run-DATE-ID/``
once synced, ``wandb/offline-run-DATE-ID/`` offline), read as a training run of logged fronts.

What is read:
- ``run-ID.wandb``, the record log: W&B's leveldb-style framing (a 7-byte file header, 32 KiB
  blocks of CRC-checked chunks), each record one protobuf message parsed with W&B's own
  ``wandb_internal_pb2.Record`` (the optional extra ``paretoscope[wandb]``). Its run and config
  records give the config (``env_id``, ``ref_point``); its history records the logged rows;
- ``files/media/table/...table.json``: the tables a history row points to
  (``{"columns": [...], "data": [[...], ...]}``), plain JSON.

A row's step is its ``global_step`` (what MORL-Baselines keys every metric to), else W&B's own
``_step``; rows of one step are merged. The front of a step is the table logged under
``eval/front`` (MORL-Baselines' key; another by `TrainingRun.logged_key`), one column per
objective; its points carry no preferences. Nothing here unpickles or sends anything.

Bad input is left out with a `RunNotice`, the rest kept: a record log cut short or damaged (the
records before it are read), a step logged after a later one (steps going backwards), a
table missing, too large, of the wrong width or holding NaN.
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.runs.run import LoggedFront, RunNotice, Snapshot, TrainingRun

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.agents.importers import ImportAnswers

DEFAULT_TABLE = "eval/front"
STEP_KEY = "global_step"
INSTALL_HINT = "install paretoscope's wandb extra: pip install 'paretoscope[wandb]'"
_FOLDER = re.compile(r"^(?:offline-)?run-\d{8}_\d{6}-(?P<id>[A-Za-z0-9_-]+)$")
# The framing of W&B's record log (its former Python `datastore`, now its Go core).
_HEADER = struct.Struct("<4sHB")
_CHUNK = struct.Struct("<IHB")
_IDENT, _MAGIC, _VERSION = b":W&B", 0xBEE1, 0
_BLOCK = 32768
_FULL, _FIRST, _MIDDLE, _LAST = 1, 2, 3, 4
# A front of MORL-Baselines is tens of points; this is far beyond any front worth drawing.
MOST_TABLE_BYTES = 16 * 2**20
MOST_TABLE_ROWS = 100_000
ENV_KEYS = ("env_id", "env", "env_name")
# Relative difference below which a logged number is the recomputed one (float32 points).
AGREES = 1e-5


@dataclass(frozen=True)
class LoggedRow:
    """One step's merged history rows: numbers logged, and the tables' files by key."""

    step: int
    scalars: dict[str, float]
    tables: dict[str, str]  # key -> path relative to the run's files/


@dataclass(frozen=True)
class WandbLog:
    """What a run's record log says: its id, name, config and rows by step."""

    run_id: str
    name: str
    config: dict[str, Any]
    rows: tuple[LoggedRow, ...]
    notices: tuple[RunNotice, ...]


def record_log(folder: Path) -> Path | None:
    """The record log of a W&B run folder; None when `folder` is none."""
    match = _FOLDER.match(folder.name)
    if match is None:
        return None
    path = folder / f"run-{match['id']}.wandb"
    return path if path.is_file() else None


def read_records(path: Path) -> tuple[list[bytes], str | None]:
    """The records of a record log, and why reading stopped early (None: read to its end)."""
    data = path.read_bytes()
    if len(data) < _HEADER.size:
        return [], "the record log is empty or cut short before its header"
    ident, magic, version = _HEADER.unpack_from(data)
    if (ident, magic, version) != (_IDENT, _MAGIC, _VERSION):
        return [], "not a W&B record log (its header is not W&B's)"
    records: list[bytes] = []
    pending: bytes | None = None
    position = _HEADER.size
    while position < len(data):
        left = _BLOCK - position % _BLOCK
        if left < _CHUNK.size:  # a block's tail too short for a chunk header is padding
            position += left
            continue
        if position + _CHUNK.size > len(data):
            return records, f"the record log ends inside a record at byte {position}"
        checksum, length, kind = _CHUNK.unpack_from(data, position)
        if kind == 0 and length == 0 and not any(data[position : position + left]):
            position += left  # zero padding to the next block
            continue
        chunk = data[position + _CHUNK.size : position + _CHUNK.size + length]
        if len(chunk) < length:
            return records, f"the record log is cut short at byte {position}"
        if zlib.crc32(chunk, zlib.crc32(bytes([kind]))) & 0xFFFFFFFF != checksum:
            return records, f"the record log is damaged at byte {position} (checksum)"
        position += _CHUNK.size + length
        if kind == _FULL:
            records.append(chunk)
        elif kind == _FIRST:
            pending = chunk
        elif kind in (_MIDDLE, _LAST) and pending is not None:
            pending += chunk
            if kind == _LAST:
                records.append(pending)
                pending = None
        else:
            return records, f"the record log is damaged at byte {position} (chunk type {kind})"
    if pending is not None:
        return records, "the record log ends inside a record (a run still writing or cut short)"
    return records, None


def _protobuf() -> Any:
    try:
        from wandb.proto import wandb_internal_pb2
    except ImportError:
        raise ParetoscopeError(f"reading a W&B run needs W&B's library: {INSTALL_HINT}") from None
    return wandb_internal_pb2


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def read_wandb_log(path: Path) -> WandbLog:
    """The record log at `path`, parsed (again only when the file changed)."""
    stat = path.stat()
    return _read_wandb_log(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read_wandb_log(path: Path, mtime: int, size: int) -> WandbLog:
    del mtime, size  # part of the cache key only
    proto = _protobuf()
    blobs, stopped = read_records(path)
    notices = [] if stopped is None else [RunNotice(path, f"{stopped}; the records before kept")]
    config: dict[str, Any] = {}
    run_id, name = path.stem.removeprefix("run-"), ""
    raw_rows: list[tuple[int, dict[str, float], dict[str, str]]] = []
    for blob in blobs:
        record = proto.Record()
        try:
            record.ParseFromString(blob)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError; one bad record is skipped
            notices.append(RunNotice(path, "a record that is not W&B's was skipped"))
            continue
        kind = record.WhichOneof("record_type")
        if kind == "run":
            run_id, name = record.run.run_id or run_id, record.run.display_name
            _update_config(config, record.run.config.update)
        elif kind == "config":
            _update_config(config, record.config.update)
        elif kind == "history":
            raw_rows.append(_history_row(record.history.item))
    rows = _merged_by_step(raw_rows, path, notices)
    return WandbLog(run_id, name, config, tuple(rows), tuple(notices))


def _update_config(config: dict[str, Any], items: Any) -> None:
    for item in items:
        key = item.key or "/".join(item.nested_key)
        if key and not key.startswith("_"):
            config[key] = _json(item.value_json)


def _history_row(items: Any) -> tuple[int, dict[str, float], dict[str, str]]:
    values: dict[str, Any] = {}
    tables: dict[str, str] = {}
    for item in items:
        value = _json(item.value_json)
        if len(item.nested_key) > 1:  # a media value's fields: its table file is "path"
            *parents, field = item.nested_key
            if field == "path" and isinstance(value, str):
                tables["/".join(parents)] = value
            continue
        values[item.key or "".join(item.nested_key)] = value
    scalars = {
        key: float(value)
        for key, value in values.items()
        if isinstance(value, int | float)
        and not isinstance(value, bool)
        and not key.startswith("_")
        and key != STEP_KEY
    }
    step = values.get(STEP_KEY, values.get("_step", 0))
    return int(step) if isinstance(step, int | float) else 0, scalars, tables


def _merged_by_step(
    raw: list[tuple[int, dict[str, float], dict[str, str]]], path: Path, notices: list[RunNotice]
) -> list[LoggedRow]:
    """Rows of one step merged in order; a row whose step is below one already read is left
    out (its step went backwards, as a resumed or restarted run's can)."""
    rows: list[LoggedRow] = []
    for step, scalars, tables in raw:
        if rows and step < rows[-1].step:
            what = f" ({', '.join(sorted(tables))})" if tables else ""
            notices.append(
                RunNotice(
                    path,
                    f"step {step} logged after step {rows[-1].step}{what}: the steps go "
                    "backwards (a resumed or restarted run?); left out",
                )
            )
            continue
        if rows and step == rows[-1].step:
            rows[-1].scalars.update(scalars)
            for key, table in tables.items():
                rows[-1].tables.setdefault(key, table)
            continue
        rows.append(LoggedRow(step, dict(scalars), dict(tables)))
    return rows


def read_table(path: Path, n_obj: int | None) -> np.ndarray:
    """A logged table's points (rows, objectives), checked: every column a finite number."""
    if not path.is_file():
        raise ParetoscopeError("its table file is missing (a run not fully written or synced)")
    size = path.stat().st_size
    if size > MOST_TABLE_BYTES:
        raise ParetoscopeError(f"its table is {size} bytes, too large for a front")
    content = _json(path.read_text(encoding="utf-8", errors="replace"))
    if not isinstance(content, dict) or not isinstance(content.get("data"), list):
        raise ParetoscopeError("its table file is not a W&B table (no 'columns' and 'data')")
    columns, data = content.get("columns") or [], content["data"]
    if len(data) > MOST_TABLE_ROWS:
        raise ParetoscopeError(f"its table has {len(data)} rows, too many for a front")
    if n_obj is not None and len(columns) != n_obj:
        raise ParetoscopeError(
            f"its table has columns {columns[:8]}, not one per objective ({n_obj})"
        )
    try:
        points = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"its table's columns {columns[:8]} are not all numbers") from None
    if points.ndim != 2 or len(points) == 0 or points.shape[1] != len(columns):
        raise ParetoscopeError(f"its table holds no points of {len(columns)} objectives")
    if not np.isfinite(points).all():
        raise ParetoscopeError("its table holds NaN or infinite values")
    return points


def config_env(config: dict[str, Any]) -> str | None:
    """The env id a run's config names (MORL-Baselines logs ``env_id``), None if none."""
    for key in ENV_KEYS:
        if isinstance(config.get(key), str):
            return str(config[key])
    return None


def config_reference_point(config: dict[str, Any]) -> tuple[float, ...] | None:
    """The hypervolume reference point the run logged in its config (``ref_point``)."""
    value = config.get("ref_point")
    if isinstance(value, list) and value and all(isinstance(v, int | float) for v in value):
        return tuple(float(v) for v in value)
    return None


def disagrees(logged: float | None, recomputed: float) -> bool:
    """Whether a number the run logged differs from the one recomputed from its front (beyond
    the rounding of float32 points)."""
    if logged is None or math.isnan(logged):
        return False
    return abs(logged - recomputed) > AGREES * max(1.0, abs(recomputed))


def logged_reference_point(run: TrainingRun) -> tuple[float, ...] | None:
    """The reference point a W&B run's config names, for a W&B run or a run with one W&B run
    beside it (None for other runs, or none named)."""
    folders = [run.root] if run.format == "wandb" else _runs_beside(run.root)
    log_path = record_log(folders[0]) if len(folders) == 1 else None
    return None if log_path is None else config_reference_point(read_wandb_log(log_path).config)


class WandbRunReader:
    name = "wandb"
    agent_format = "checkpoint"

    def sniff(self, path: Path) -> TrainingRun | None:
        log_path = record_log(path)
        if log_path is None:
            return None
        log = read_wandb_log(log_path)
        notices = list(log.notices)
        env_id = config_env(log.config)
        if env_id is not None:
            from paretoscope.envs import get_spec

            try:
                env_id = get_spec(env_id).id
            except ParetoscopeError:
                notices.append(
                    RunNotice(log_path, f"its config names env {env_id!r}, not one known here")
                )
                env_id = None
        steps = tuple(row.step for row in log.rows if row.tables)
        return TrainingRun(
            root=path,
            format=self.name,
            kind=str(log.config.get("algo") or "wandb"),
            env_id=env_id,
            snapshots=(),
            notices=tuple(notices),
            description=f"W&B run {log.name or log.run_id} ({len(steps)} logged evaluations)",
            logged_steps=steps,
        )

    def load(
        self, run: TrainingRun, snapshot: Snapshot, answers: ImportAnswers, device: str
    ) -> Agent:
        raise ParetoscopeError(f"W&B run {run.root.name} holds logged fronts, no checkpoint")

    def logged_fronts(self, run: TrainingRun) -> tuple[list[LoggedFront], list[RunNotice]]:
        log_path = record_log(run.root)
        if log_path is None:
            return [], []
        log = read_wandb_log(log_path)
        key = run.logged_key or DEFAULT_TABLE
        n_obj = None
        if run.env_id is not None:
            from paretoscope.envs import get_spec

            n_obj = get_spec(run.env_id).n_obj
        fronts: list[LoggedFront] = []
        notices: list[RunNotice] = []
        for row in log.rows:
            if key not in row.tables:
                continue
            table = run.root / "files" / row.tables[key]
            try:
                if ".." in Path(row.tables[key]).parts:
                    raise ParetoscopeError("its table path leaves the run folder")
                points = read_table(table, n_obj)
            except ParetoscopeError as error:
                notices.append(RunNotice(table, f"step {row.step}, {key}: {error}; left out"))
                continue
            n_obj = points.shape[1]
            unknown = np.full(points.shape, math.nan)
            fronts.append(LoggedFront(row.step, unknown, points, table, dict(row.scalars)))
        if not fronts and not notices:
            keys = sorted({name for row in log.rows for name in row.tables})
            notices.append(
                RunNotice(log_path, f"no table logged under {key!r} (tables: {keys or 'none'})")
            )
        return fronts, notices


READER = WandbRunReader()


def logged_beside(root: Path) -> tuple[list[LoggedFront], list[RunNotice]]:
    """The fronts logged by the W&B run in ``root/wandb/`` (where W&B leaves it, in the working
    folder of the training that saved the checkpoints in `root`); none without one. Several
    runs there are not guessed between: a notice names them."""
    folders = _runs_beside(root)
    if not folders:
        return [], []
    if len(folders) > 1:
        names = ", ".join(folder.name for folder in folders[:5])
        return [], [RunNotice(root / "wandb", f"several W&B runs ({names}): none read; keep one")]
    try:
        logged = READER.sniff(folders[0])
        if logged is None:
            return [], []
        fronts, notices = READER.logged_fronts(logged)
    except ParetoscopeError as error:
        return [], [RunNotice(folders[0], str(error))]
    return fronts, [*logged.notices, *notices]


def _runs_beside(root: Path) -> list[Path]:
    """The W&B run folders in ``root/wandb/``, by name (W&B's names start with the date)."""
    return sorted(
        entry for entry in (root / "wandb").glob("*run-*") if record_log(entry) is not None
    )
