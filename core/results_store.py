"""The results store: evaluated episodes as Parquet shards under one folder.

Each finished batch of episodes is one shard written atomically (temporary file, fsync,
rename), so a reader never sees a partial file and a killed sweep loses at most the batch it
was computing. A shard's name carries the SHA-256 of its bytes: a shard whose bytes changed on
disk is detected, set aside and its episodes computed again. Rows are keyed by
`episode_key` (agent fingerprint, env, preference, target, seed, horizon); when two shards
hold the same key the first one read wins.

Every shard has a nullable integer `step` column, right after `agent`: the training step of a
run's snapshot (`paretoscope.runs.sweep`), null for any other agent. Shards written before the
column existed read as null there.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from paretoscope.errors import ParetoscopeError

if TYPE_CHECKING:
    from paretoscope.envs import EnvSpec

KEY_COLUMN = "episode_key"
STEP_COLUMN = "step"  # a run snapshot's training step; null for other agents
_SHARD_SUFFIX = ".parquet"


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
        """All intact rows stored for `env_id` (only `keys` when given), one per episode key."""
        folder = self._folder(env_id)
        frames = []
        for path in sorted(folder.glob(f"*{_SHARD_SUFFIX}")) if folder.is_dir() else []:
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
        """A shard's rows; None (and the shard set aside) when its bytes do not match its name."""
        expected_digest = path.stem.rsplit("-", 1)[-1]
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest()[: len(expected_digest)] != expected_digest:
            self._set_aside(path)
            return None
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - any unreadable shard is treated as corrupt
            self._set_aside(path)
            return None
        return with_step_column(frame)  # shards older than the column: null steps

    @staticmethod
    def _set_aside(path: Path) -> None:
        # Keep the bytes for inspection, out of the way of future reads.
        with contextlib.suppress(OSError):
            path.rename(path.with_suffix(".corrupt"))

    def write(self, env_id: str, rows: pd.DataFrame) -> Path:
        """Store `rows` (which must carry `episode_key`) as one new shard, atomically."""
        if KEY_COLUMN not in rows.columns:
            raise ValueError(f"rows must have a {KEY_COLUMN!r} column")
        folder = self._folder(env_id)
        buffer = io.BytesIO()
        with_step_column(rows).to_parquet(buffer, index=False)
        data = buffer.getvalue()
        digest = hashlib.sha256(data).hexdigest()[:16]
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
