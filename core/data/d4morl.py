"""D4MORL pickles (the PEDA benchmark): file names, a validating reader and a streaming writer.

A file is a list with one ``defaultdict(list)`` per trajectory holding float64 arrays
``observations``, ``actions``, ``next_observations``, ``preference`` (the same row on every
step), ``raw_rewards`` (T, n_obj) and bool ``terminals`` (see
docs/reference.md#d4morl-dataset-files). Files are read with `paretoscope.safe_pickle`, never
with
plain `pickle.load`.
"""

from __future__ import annotations

import collections
import os
import pickle
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from paretoscope.data.formats import DatasetHeader, TrajectoryStream
from paretoscope.data.progress import progress_bar
from paretoscope.data.trajectories import (
    DatasetInfo,
    Trajectories,
    Trajectory,
    check_preference,
    check_trajectory,
)
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.safe_pickle import load_restricted
from paretoscope.text import briefly

# Keys of one trajectory, in the order PEDA's collection script writes them.
D4MORL_KEYS = (
    "observations",
    "actions",
    "next_observations",
    "preference",
    "terminals",
    "raw_rewards",
)
QUALITIES = ("expert", "amateur")
DISTRIBUTIONS = ("uniform", "wide", "narrow")

_NAME_PATTERN = re.compile(
    r"^(?P<env>.+)_(?P<count>\d+)_(?P<quality>expert|amateur)_(?P<distribution>uniform|wide|narrow)"
    r"\.pkl$"
)
# The most bytes a D4MORL file may declare per byte it holds, counted as the readers will hold
# them (every element as a float64, every reference to a shared trajectory as its own copy).
# A file written by PEDA or paretoscope declares about 1 byte per byte; a pickle's memo lets a
# few bytes refer to one trajectory thousands of times, each of which the readers would copy.
MAX_DECLARED_BYTES_PER_FILE_BYTE = 16
# Rows of `preference` within one trajectory must agree to this absolute tolerance.
_PREFERENCE_ROW_TOLERANCE = 1e-12


@dataclass(frozen=True)
class D4MORLName:
    """The parts of a D4MORL file name ``{env}_{count}_{quality}_{distribution}.pkl``."""

    env_id: str
    count: int
    quality: str
    distribution: str


def parse_d4morl_name(file_name: str) -> D4MORLName | None:
    """The parts of a D4MORL file name, or None when the name does not follow the convention."""
    match = _NAME_PATTERN.match(Path(file_name).name)
    if match is None:
        return None
    return D4MORLName(
        env_id=match["env"],
        count=int(match["count"]),
        quality=match["quality"],
        distribution=match["distribution"],
    )


def d4morl_file_name(env_id: str, count: int, quality: str, distribution: str) -> str:
    """The conventional file name, e.g. ``MO-Hopper-v2_50000_expert_uniform.pkl``."""
    return f"{env_id}_{count}_{quality}_{distribution}.pkl"


def check_input_file(path: Path, what: str = "a D4MORL .pkl file") -> Path:
    """`path` as a Path if it is a non-empty regular file, else a `ParetoscopeError`."""
    path = Path(path)
    if not path.exists():
        raise ParetoscopeError(f"{path}: no such file")
    if path.is_dir():
        raise ParetoscopeError(f"{path}: is a directory, expected {what}")
    if path.stat().st_size == 0:
        raise ParetoscopeError(f"{path}: the file is empty (0 bytes), expected {what}")
    return path


def check_pickle_signature(name: str, head: bytes) -> None:
    """Refuse bytes that do not start a pickle of protocol 2 or later (D4MORL uses 4)."""
    if not head.startswith(b"\x80"):
        raise ParetoscopeError(f"{name}: not a pickle file (expected protocol 2 or later)")


def sniff_d4morl(path: Path) -> DatasetHeader | None:
    """A D4MORL file's header from its name alone (nothing is unpickled); None for other
    paths. The env is unknown (None) when the name does not follow the convention."""
    if not (path.is_file() and path.suffix == ".pkl"):
        return None
    parsed = parse_d4morl_name(path.name)
    return DatasetHeader(
        format="d4morl",
        env_id=parsed.env_id if parsed else None,
        n_trajectories=parsed.count if parsed else None,
        description=f"D4MORL {parsed.quality} {parsed.distribution}" if parsed else "D4MORL file",
        extra={"bytes": path.stat().st_size},
        no_env_reason=("the file name does not say its env ({env}_{count}_{quality}_{dist}.pkl)"),
    )


def info_from_file_name(path: Path, env_id: str | None = None) -> DatasetInfo:
    """Dataset info from a D4MORL file name; an explicit `env_id` wins over the name."""
    name = parse_d4morl_name(path.name)
    if env_id is None:
        if name is None:
            raise ParetoscopeError(
                f"{path}: cannot tell the environment: the file name does not follow the D4MORL "
                "naming {env}_{count}_{quality}_{distribution}.pkl; give the env id (--env)"
            )
        env_id = name.env_id
        try:
            get_spec(env_id)
        except ParetoscopeError as error:
            raise ParetoscopeError(f"{path}: the file name names an {error}") from None
    spec = get_spec(env_id)
    return DatasetInfo(
        env_id=env_id,
        objective_names=spec.objective_names,
        source=f"d4morl:{path.resolve()}",
        quality=name.quality if name else None,
        preference_distribution=name.distribution if name else None,
    )


def _trajectory_from_entry(entry: Any, where: str) -> Trajectory:
    """Check one raw D4MORL entry's keys, dtypes and step counts; build a `Trajectory`."""
    if not isinstance(entry, Mapping):
        raise ParetoscopeError(f"{where}: is a {type(entry).__name__}, expected a dict of arrays")
    missing = [key for key in D4MORL_KEYS if key not in entry]
    if missing:
        hint = ""
        if "raw_rewards" in missing and "rewards" in entry:
            hint = (
                "; scalar 'rewards' are not enough: D4MORL files carry per-objective "
                "'raw_rewards' of shape (T, n_obj)"
            )
        raise ParetoscopeError(
            f"{where}: missing key(s) {', '.join(map(repr, missing))} "
            f"(found {', '.join(map(repr, sorted(map(str, entry))))}){hint}"
        )
    arrays: dict[str, np.ndarray] = {}
    for key in D4MORL_KEYS:
        value = entry[key]
        if not isinstance(value, np.ndarray):
            raise ParetoscopeError(
                f"{where}: {briefly(key)} is a {type(value).__name__}, expected a numpy array"
            )
        if value.dtype.kind not in "biuf":
            raise ParetoscopeError(
                f"{where}: {briefly(key)} has dtype {value.dtype}, expected numbers"
            )
        expected_ndim = 1 if key == "terminals" else 2
        if value.ndim != expected_ndim:
            raise ParetoscopeError(
                f"{where}: {briefly(key)} has shape {value.shape}, expected {expected_ndim} "
                "dimension(s)"
            )
        arrays[key] = value
    length = arrays["observations"].shape[0]
    for key, value in arrays.items():
        if value.shape[0] != length:
            raise ParetoscopeError(
                f"{where}: {briefly(key)} has {value.shape[0]} steps but 'observations' has "
                f"{length}"
            )
    if length == 0:
        raise ParetoscopeError(f"{where}: the trajectory has no steps")
    preference_rows = arrays["preference"]
    first_row = preference_rows[0]
    deviation = np.abs(preference_rows - first_row).max(axis=1)
    if (deviation > _PREFERENCE_ROW_TOLERANCE).any():
        step = int(np.argmax(deviation > _PREFERENCE_ROW_TOLERANCE))
        raise ParetoscopeError(
            f"{where}: the preference changes within the trajectory (step 0: "
            f"{first_row.tolist()}, step {step}: {preference_rows[step].tolist()}); D4MORL "
            "repeats one preference on every step"
        )
    check_preference(first_row, where)
    terminals = arrays["terminals"]
    if terminals.dtype.kind != "b" and not np.isin(terminals, (0, 1)).all():
        raise ParetoscopeError(f"{where}: 'terminals' holds values other than 0/1 or True/False")
    return Trajectory.from_step_arrays(
        observations=np.asarray(arrays["observations"], dtype=np.float64),
        actions=np.asarray(arrays["actions"], dtype=np.float64),
        next_observations=np.asarray(arrays["next_observations"], dtype=np.float64),
        raw_rewards=np.asarray(arrays["raw_rewards"], dtype=np.float64),
        terminals=terminals.astype(bool, copy=False),
        preference=np.array(first_row, dtype=np.float64),
    )


def check_declared_size(path: Path, entries: Iterable[Any]) -> None:
    """Refuse a loaded pickle whose trajectories declare more data than its file could hold
    (`MAX_DECLARED_BYTES_PER_FILE_BYTE`), before any reader copies an array: shared entries
    and shared arrays are counted once per reference, as the readers copy each."""
    file_bytes = path.stat().st_size
    declared_bytes = 0
    declared_steps = 0
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue  # refused by name when validated
        for key in D4MORL_KEYS:
            value = entry.get(key)
            if isinstance(value, np.ndarray):
                declared_bytes += value.size * np.dtype(np.float64).itemsize
                if key == "observations" and value.ndim > 0:
                    declared_steps += value.shape[0]
    limit = file_bytes * MAX_DECLARED_BYTES_PER_FILE_BYTE
    if declared_bytes > limit:
        raise ParetoscopeError(
            f"{path}: the trajectories declare {declared_steps:,} steps ({declared_bytes:,} "
            f"bytes once read) in a file of {file_bytes:,} bytes; a D4MORL file may declare at "
            f"most {MAX_DECLARED_BYTES_PER_FILE_BYTE} times its size (each reference to a "
            "shared trajectory or array counts as the copy the readers make)"
        )


class D4MORLFile:
    """A loaded and fully validated D4MORL pickle, handed out trajectory by trajectory."""

    def __init__(self, path: Path, info: DatasetInfo, entries: list[Any]) -> None:
        self.path = path
        self.info = info
        self._entries: list[Any] = entries
        self.lengths = np.zeros(len(entries), dtype=np.int64)
        # True when every trajectory's next_observations are its observations shifted by one.
        self.next_observations_derivable = True

    @property
    def n_trajectories(self) -> int:
        return len(self._entries)

    @property
    def n_steps(self) -> int:
        return int(self.lengths.sum())

    def _validate(self, progress: bool) -> None:
        spec = self.info.spec
        for index in progress_bar(range(len(self._entries)), "checking", progress, "traj"):
            where = f"{self.path}: trajectory {index}"
            trajectory = _trajectory_from_entry(self._entries[index], where)
            check_trajectory(trajectory, spec, where)
            self.lengths[index] = len(trajectory)
            if trajectory.next_observations is not None:
                self.next_observations_derivable = False

    def trajectories(self, release: bool = False) -> Iterator[Trajectory]:
        """Each trajectory in order; with `release`, each raw entry is dropped once handed out
        (so a converter never holds two copies), and the file can be iterated only once."""
        for index in range(len(self._entries)):
            entry = self._entries[index]
            if entry is None:
                raise RuntimeError("D4MORLFile.trajectories(release=True) was already consumed")
            if release:
                self._entries[index] = None
            yield _trajectory_from_entry(entry, f"{self.path}: trajectory {index}")


def load_d4morl(path: str | Path, env_id: str | None = None, progress: bool = False) -> D4MORLFile:
    """Load and validate a D4MORL pickle with the restricted unpickler (see module docstring).

    The env id comes from the file name when it follows the D4MORL naming, else from `env_id`
    (which also overrides the name). Every problem raises `ParetoscopeError` naming the file.
    """
    path = check_input_file(Path(path))
    info = info_from_file_name(path, env_id)
    content = load_restricted(path, progress=progress)
    if not isinstance(content, list | tuple):
        raise ParetoscopeError(
            f"{path}: holds a {type(content).__name__}, expected a list of trajectories"
        )
    if len(content) == 0:
        raise ParetoscopeError(f"{path}: the dataset holds no trajectories (empty list)")
    check_declared_size(path, content)
    loaded = D4MORLFile(path, info, list(content))
    del content
    loaded._validate(progress)
    return loaded


def read_d4morl(
    path: str | Path, env_id: str | None = None, progress: bool = False
) -> Trajectories:
    """A D4MORL pickle as in-memory `Trajectories` (for big files, convert to native first)."""
    loaded = load_d4morl(path, env_id, progress=progress)
    return Trajectories.from_trajectories(
        loaded.trajectories(release=True), loaded.info, validate=False
    )


# --- writing ------------------------------------------------------------------------------------


class _StreamedList:
    """Pickles as a plain list whose items come from an iterator, one at a time."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items = items

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (), None, iter(self._items))


def d4morl_entry(trajectory: Trajectory) -> collections.defaultdict:
    """One trajectory as PEDA stores it: a defaultdict(list) of float64 arrays, bool terminals."""
    length = len(trajectory)
    entry: collections.defaultdict = collections.defaultdict(list)
    entry["observations"] = np.asarray(trajectory.observations, dtype=np.float64)
    entry["actions"] = np.asarray(trajectory.actions, dtype=np.float64)
    entry["next_observations"] = np.asarray(
        trajectory.next_observations_or_derived(), dtype=np.float64
    )
    entry["preference"] = np.tile(np.asarray(trajectory.preference, dtype=np.float64), (length, 1))
    entry["terminals"] = np.asarray(trajectory.terminals, dtype=bool)
    entry["raw_rewards"] = np.asarray(trajectory.raw_rewards, dtype=np.float64)
    return entry


def dump_d4morl_entries(file: BinaryIO, entries: Iterable[Mapping[str, np.ndarray]]) -> None:
    """Pickle `entries` as one list (protocol 4), one entry in memory at a time.

    The pickler runs without a memo ("fast" mode: nothing is shared between entries), so
    written entries are not kept alive; the result loads as a plain list.
    """
    pickler = pickle.Pickler(file, protocol=4)
    pickler.fast = True  # no memo: entries are independent, and a memo would keep them all
    pickler.dump(_StreamedList(entries))


def write_d4morl(
    trajectories: Trajectories,
    path: str | Path,
    overwrite: bool = False,
    progress: bool = False,
) -> Path:
    """Write `trajectories` as a D4MORL pickle that PEDA's loader accepts; returns the path.

    Written to a temporary file first and renamed, so a failure leaves nothing behind.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise ParetoscopeError(f"{path}: already exists (pass overwrite to replace it)")
    if path.is_dir():
        raise ParetoscopeError(f"{path}: is a directory, expected a .pkl file name")
    make_folder(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    entries = (
        d4morl_entry(trajectory)
        for trajectory in progress_bar(
            trajectories, "writing D4MORL", progress, "traj", total=len(trajectories)
        )
    )
    try:
        with open(temporary, "wb", buffering=1 << 20) as file:
            dump_d4morl_entries(file, entries)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


# --- the format, as registered in paretoscope.data.formats --------------------------------------


def stream_d4morl(
    path: str | Path, env_id: str | None = None, progress: bool = False
) -> TrajectoryStream:
    """A D4MORL pickle, validated whole, then handed out trajectory by trajectory (each raw
    entry dropped once handed out: the pickle is one object and must be loaded whole)."""
    loaded = load_d4morl(path, env_id, progress=progress)
    return TrajectoryStream(
        loaded.info,
        loaded.trajectories(release=True),
        count=loaded.n_trajectories,
        store_next_observations=not loaded.next_observations_derivable,
    )


class D4MORLFormat:
    """PEDA's benchmark pickles, ``{env}_{count}_{quality}_{distribution}.pkl``."""

    name = "d4morl"
    description = "a D4MORL .pkl file"
    suffixes = (".pkl",)

    def check_signature(self, name: str, payload: bytes) -> None:
        check_pickle_signature(name, payload[:16])

    def sniff(self, path: Path) -> DatasetHeader | None:
        return sniff_d4morl(path)

    def open(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> Trajectories:
        return read_d4morl(source, env_id=env_id, progress=progress)

    def stream(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> TrajectoryStream:
        return stream_d4morl(source, env_id=env_id, progress=progress)

    def write(
        self,
        trajectories: Trajectories,
        destination: str | Path,
        overwrite: bool = False,
        progress: bool = False,
    ) -> Path:
        return write_d4morl(trajectories, destination, overwrite=overwrite, progress=progress)


FORMAT = D4MORLFormat()
