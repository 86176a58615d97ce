"""The results store: evaluated episodes as Parquet shards under one folder.

Each finished batch of episodes is one shard written atomically (temporary file, fsync,
rename), so a reader never sees a partial file and a killed sweep loses at most the batch it
was computing. A shard's name carries the SHA-256 of its bytes: a shard whose bytes changed on
disk is detected, set aside (renamed ``.corrupt``, with a `StoreWarning` naming it) and its
episodes computed again. Only regular files named exactly as shards are read, up to
`MAX_SHARD_BYTES`; links, FIFOs, devices and a user's own files in the folder are left alone.
Rows are keyed by `episode_key` (agent fingerprint, env, preference, target, seed, horizon);
when two shards hold the same key the first one read wins.

Every shard has a nullable integer `step` column, right after `agent`: the training step of a
run's snapshot (`paretoscope.runs.sweep`), null for any other agent. Shards written before the
column existed read as null there.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import tempfile
import uuid
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from paretoscope.errors import ParetoscopeError, ParetoscopeWarning

if TYPE_CHECKING:
    from paretoscope.envs import EnvSpec

KEY_COLUMN = "episode_key"
STEP_COLUMN = "step"  # a run snapshot's training step; null for other agents
_SHARD_SUFFIX = ".parquet"
_DIGEST_LENGTH = 16
# `write`'s names: 12 hex digits of a random id, then the first 16 of the bytes' SHA-256.
_SHARD_NAME = re.compile(rf"[0-9a-f]{{12}}-[0-9a-f]{{{_DIGEST_LENGTH}}}{re.escape(_SHARD_SUFFIX)}")
# The most bytes one shard may hold on disk, and its columns once read (a sweep writes a shard
# every 64 rows or 2 seconds: a few hundred kilobytes). Larger files are not read.
MAX_SHARD_BYTES = 256 << 20


class StoreWarning(ParetoscopeWarning):
    """A file in the results folder that was not read, or was set aside (named in the text)."""


def is_shard_name(name: str) -> bool:
    """Whether `name` is the name `ResultsStore.write` gives a shard (other files are not
    the store's: they are never read nor moved)."""
    return _SHARD_NAME.fullmatch(name) is not None


def _digest_in_name(name: str) -> str:
    return name[: -len(_SHARD_SUFFIX)].rsplit("-", 1)[-1]


def _warn(message: str) -> None:
    warnings.warn(message, StoreWarning, stacklevel=3)


def _regular_file_bytes(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file (not a link, FIFO or device) of at most
    `MAX_SHARD_BYTES`; None, with a warning, otherwise."""
    try:
        # No link is followed and opening a FIFO does not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        _warn(f"{path}: not read ({error.strerror or error}; a link is never followed)")
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            _warn(f"{path}: not a regular file; not read")
            return None
        if status.st_size > MAX_SHARD_BYTES:
            _warn(f"{path}: {status.st_size:,} bytes (over {MAX_SHARD_BYTES:,}); not read")
            return None
        blocks = []
        left = MAX_SHARD_BYTES + 1
        while left > 0 and (block := os.read(descriptor, min(left, 1 << 20))):
            blocks.append(block)
            left -= len(block)
    finally:
        os.close(descriptor)
    data = b"".join(blocks)
    if len(data) > MAX_SHARD_BYTES:  # grew while being read
        _warn(f"{path}: over {MAX_SHARD_BYTES:,} bytes; not read")
        return None
    return data


def with_step_column(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` with a nullable integer (Int64) `step` column, null where it had none; placed
    after `agent` when it is added."""
    rows = rows.copy()
    if STEP_COLUMN in rows.columns:
        rows[STEP_COLUMN] = rows[STEP_COLUMN].astype("Int64")
        return rows
    position = rows.columns.get_loc("agent") + 1 if "agent" in rows.columns else rows.shape[1]
    rows.insert(int(position), STEP_COLUMN, pd.array([pd.NA] * len(rows), dtype="Int64"))
    return rows


def objective_columns(prefix: str, spec: EnvSpec) -> list[str]:
    """Column names like `return_run`, `return_energy` for the env's objectives, in order."""
    return [f"{prefix}_{name}" for name in spec.objective_names]


def episode_key(
    agent_fingerprint: str,
    env_id: str,
    preference: Sequence[float],
    target: Sequence[float] | None,
    seed: int,
    horizon: int,
    gamma: float = 1.0,
) -> str:
    """A stable identifier of one episode request (floats rounded to 1e-9 to absorb noise).

    The discount is part of the key only when it is not 1, so that episodes stored before
    discounting existed keep their keys (their returns are undiscounted)."""

    def rounded(values: Sequence[float] | None) -> list[float] | None:
        return None if values is None else [round(float(v), 9) for v in values]

    parts: list[object] = [
        agent_fingerprint,
        env_id,
        rounded(preference),
        rounded(target),
        int(seed),
        int(horizon),
    ]
    if float(gamma) != 1.0:
        parts.append(round(float(gamma), 12))
    canonical = json.dumps(parts, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class ResultsStore:
    """Parquet shards of episode rows under `root`, one sub-folder per environment."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _folder(self, env_id: str) -> Path:
        return self.root / env_id

    def read(self, env_id: str, keys: set[str] | None = None) -> pd.DataFrame:
        """All intact rows stored for `env_id` (only `keys` when given), one per episode key.

        Only files named as `write` names shards are read; anything else in the folder is
        left alone. A shard that is damaged is set aside (a `StoreWarning` names it)."""
        folder = self._folder(env_id)
        frames = []
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            if not is_shard_name(path.name):
                continue
            frame = self._read_shard(path)
            if frame is None:
                continue
            if keys is not None:
                frame = frame[frame[KEY_COLUMN].isin(keys)]
            frames.append(frame)
        if not frames:
            return pd.DataFrame()
        table = pd.concat(frames, ignore_index=True)
        return table.drop_duplicates(subset=KEY_COLUMN, keep="first").reset_index(drop=True)

    def _read_shard(self, path: Path) -> pd.DataFrame | None:
        """A shard's rows; None (with a warning) when it is no regular file within the size
        bound, or when it is damaged (then it is also set aside)."""
        data = _regular_file_bytes(path)
        if data is None:
            return None
        if hashlib.sha256(data).hexdigest()[:_DIGEST_LENGTH] != _digest_in_name(path.name):
            self._set_aside(path, "its bytes do not match the digest in its name")
            return None
        try:
            parquet = pq.ParquetFile(io.BytesIO(data))
            inflated = sum(
                parquet.metadata.row_group(group).total_byte_size
                for group in range(parquet.metadata.num_row_groups)
            )
        except (pa.ArrowException, OSError, ValueError):
            self._set_aside(path, "it is not a readable Parquet file")
            return None
        if inflated > MAX_SHARD_BYTES:
            _warn(
                f"{path}: its columns declare {inflated:,} bytes "
                f"(over {MAX_SHARD_BYTES:,}); not read"
            )
            return None
        if KEY_COLUMN not in parquet.schema_arrow.names:
            raise ParetoscopeError(
                f"{path}: named as a results shard but has no {KEY_COLUMN!r} column (not written "
                "by paretoscope); move it out of the results folder"
            )
        try:
            frame = parquet.read().to_pandas()
        except (pa.ArrowException, OSError, ValueError):
            self._set_aside(path, "its columns cannot be read")
            return None
        return with_step_column(frame)  # shards older than the column: null steps

    @staticmethod
    def _set_aside(path: Path, why: str) -> None:
        # Keep the bytes for inspection, out of the way of future reads.
        aside = path.with_suffix(".corrupt")
        try:
            path.rename(aside)
        except OSError:
            _warn(f"{path}: damaged results shard ({why}); not read")
            return
        _warn(
            f"{path}: damaged results shard ({why}), set aside as {aside.name}; its episodes "
            "are computed again"
        )

    def write(self, env_id: str, rows: pd.DataFrame) -> Path:
        """Store `rows` (which must carry `episode_key`) as one new shard, atomically."""
        if KEY_COLUMN not in rows.columns:
            raise ValueError(f"rows must have a {KEY_COLUMN!r} column")
        folder = self._folder(env_id)
        buffer = io.BytesIO()
        with_step_column(rows).to_parquet(buffer, index=False)
        data = buffer.getvalue()
        digest = hashlib.sha256(data).hexdigest()[:_DIGEST_LENGTH]
        final_path = folder / f"{uuid.uuid4().hex[:12]}-{digest}{_SHARD_SUFFIX}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, final_path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as error:
            raise ParetoscopeError(
                f"cannot write results to {folder}: {error.strerror or error}; "
                "earlier results are unchanged"
            ) from error
        return final_path


class LayeredStore(ResultsStore):
    """Several stores read as one (the first that holds an episode wins), written to the last,
    writable one: e.g. an assets folder's precomputed sweeps over a cache."""

    def __init__(self, read_only: Sequence[ResultsStore], writable: ResultsStore) -> None:
        super().__init__(writable.root)
        self.read_only = list(read_only)
        self.writable = writable

    def read(self, env_id: str, keys: set[str] | None = None) -> pd.DataFrame:
        frames = []
        wanted = None if keys is None else set(keys)
        for store in [*self.read_only, self.writable]:
            frame = store.read(env_id, wanted)
            if len(frame):
                frames.append(frame)
                if wanted is not None:
                    wanted -= set(frame[KEY_COLUMN])
                    if not wanted:
                        break
        if not frames:
            return pd.DataFrame()
        table = pd.concat(frames, ignore_index=True)
        return table.drop_duplicates(subset=KEY_COLUMN, keep="first").reset_index(drop=True)

    def write(self, env_id: str, rows: pd.DataFrame) -> Path:
        return self.writable.write(env_id, rows)


def layered_store(read_only_roots: Iterable[Path], writable_root: Path) -> LayeredStore:
    """The stores under `read_only_roots` (read only) over the one at `writable_root`."""
    return LayeredStore(
        [ResultsStore(root) for root in read_only_roots], ResultsStore(writable_root)
    )
