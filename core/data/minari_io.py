"""Minari datasets with vector rewards: read a local dataset, write ours as one.

Minari is optional (``pip install paretoscope[minari]``) and imported only when used. Only
vector rewards make a multi-objective dataset: a dataset whose rewards are scalars is refused.
Minari keeps T + 1 observations per episode (the last is the one after the last step), so the
final observation maps onto ours exactly. Each episode's preference travels in its reset
options (``options/preference``), and our dataset info in the dataset metadata under
``"paretoscope"``. The HDF5 storage is used: it is the one that keeps vector rewards.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope import jsonfile
from paretoscope.data.formats import DatasetHeader, TrajectoryStream
from paretoscope.data.progress import progress_bar
from paretoscope.data.trajectories import DatasetInfo, Trajectories, Trajectory, check_trajectory
from paretoscope.envs import REGISTRY, get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly, printable

MINARI_PREFIX = "minari:"
_METADATA_KEY = "paretoscope"
# Episodes handed to Minari per call when writing (bounds the memory a big dataset needs).
_WRITE_CHUNK = 256
# Bounds on what main_data.hdf5 may declare, checked before anything is read: all its datasets
# together at most this many times the file's size (unwritten chunks and fill values store
# nothing; compression of real episodes rarely reaches 10x even with constant columns), and
# one dataset (one episode's column) at most this many bytes.
MAX_DECLARED_BYTES_PER_FILE_BYTE = 64
MAX_EPISODE_COLUMN_BYTES = 1 << 30
# The datasets every Minari episode group holds.
_EPISODE_COLUMNS = ("observations", "actions", "rewards", "terminations", "truncations")


def import_minari() -> Any:
    """The `minari` module, or a `ParetoscopeError` saying how to install it."""
    try:
        import minari
    except ImportError:
        raise ParetoscopeError(
            "Minari datasets need the optional dependency minari: pip install 'paretoscope[minari]'"
        ) from None
    return minari


@contextlib.contextmanager
def _datasets_root(root: str | Path | None) -> Iterator[None]:
    """Point Minari at `root` for the duration (Minari reads MINARI_DATASETS_PATH each call)."""
    if root is None:
        yield
        return
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(Path(root).resolve())
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


def minari_data_path(source: str | Path, root: str | Path | None = None) -> Path:
    """The ``data`` directory (main_data.hdf5 + metadata.json) of a Minari dataset.

    `source` is a dataset directory, its ``data`` directory, or ``minari:<dataset id>``
    looked up under `root` (default: MINARI_DATASETS_PATH, else ~/.minari/datasets).
    """
    text = str(source)
    if text.startswith(MINARI_PREFIX):
        dataset_id = text[len(MINARI_PREFIX) :]
        base = Path(root) if root is not None else _default_root()
        path = base / dataset_id
        if not path.is_dir():
            raise ParetoscopeError(f"{text}: no local Minari dataset at {path}")
    else:
        path = Path(source)
    if (path / "data" / "metadata.json").is_file():
        return path / "data"
    if (path / "metadata.json").is_file():
        return path
    raise ParetoscopeError(f"{source}: not a Minari dataset (no data/metadata.json)")


def _default_root() -> Path:
    configured = os.environ.get("MINARI_DATASETS_PATH")
    return Path(configured) if configured else Path.home() / ".minari" / "datasets"


def is_minari_dataset(source: str | Path) -> bool:
    try:
        minari_data_path(source)
    except ParetoscopeError:
        return False
    return True


def sniff_minari(path: Path) -> DatasetHeader | None:
    """A Minari dataset folder's header from its ``data/metadata.json``; None for other paths.
    The env is the one paretoscope wrote, else the one Minari recorded if paretoscope knows it."""
    if not (path.is_dir() and (path / "data" / "metadata.json").is_file()):
        return None
    metadata = _read_metadata(path / "data")
    ours = metadata.get(_METADATA_KEY)
    if isinstance(ours, str):
        ours = _parse_field(path / "data" / "metadata.json", _METADATA_KEY, ours)
    env_id = None
    if isinstance(ours, dict):
        info = ours.get("info", ours)
        if isinstance(info, dict) and isinstance(info.get("env_id"), str):
            env_id = str(info["env_id"])
    if env_id is None:
        recorded = _recorded_env_id(metadata, path / "data" / "metadata.json")
        env_id = recorded if recorded in REGISTRY else None
    count = metadata.get("total_episodes")
    return DatasetHeader(
        format="minari",
        env_id=env_id,
        n_trajectories=int(count) if isinstance(count, int) else None,
        description="Minari dataset",
        no_env_reason="a Minari dataset whose env is unknown",
    )


def _read_metadata(data_path: Path) -> dict[str, Any]:
    where = data_path / "metadata.json"
    try:
        metadata = jsonfile.loads(where.read_bytes(), where)
    except OSError as error:
        raise ParetoscopeError(f"{where}: unreadable ({error})") from None
    if not isinstance(metadata, dict):
        raise ParetoscopeError(f"{where}: not a JSON object")
    return metadata


def _parse_field(where: Path, field: str, text: str) -> Any:
    """A metadata field that holds JSON as text (Minari's `env_spec`); None when it is not
    JSON, a `ParetoscopeError` when it is nested too deeply to parse."""
    try:
        return jsonfile.loads(text, f"{where}: field {field!r}")
    except jsonfile.NestedTooDeeply:
        raise
    except ParetoscopeError:
        return None


def _info_from_metadata(
    source: str, metadata: dict[str, Any], env_id: str | None, where: Path
) -> DatasetInfo:
    ours = metadata.get(_METADATA_KEY)
    if isinstance(ours, dict) and isinstance(ours.get("info"), dict):
        stored = DatasetInfo.from_dict(ours["info"], f"{source}: metadata.json")
        if env_id is None or env_id == stored.env_id:
            return DatasetInfo(
                env_id=stored.env_id,
                objective_names=stored.objective_names,
                source=f"minari:{source}",
                quality=stored.quality,
                preference_distribution=stored.preference_distribution,
                extra=stored.extra,
            )
    if env_id is None:
        recorded = _recorded_env_id(metadata, where)
        if recorded is None or recorded not in REGISTRY:
            raise ParetoscopeError(
                f"{source}: cannot tell which paretoscope environment this Minari dataset is for "
                f"(it records {briefly(recorded)}); give the env id (--env)"
            )
        env_id = recorded
    return DatasetInfo.for_env(env_id, source=f"minari:{source}")


def _recorded_env_id(metadata: dict[str, Any], where: Path) -> str | None:
    env_spec = metadata.get("env_spec")
    if not isinstance(env_spec, str):
        return None
    parsed = _parse_field(where, "env_spec", env_spec)
    return str(parsed.get("id")) if isinstance(parsed, dict) else None


def check_minari_storage(data_path: Path) -> None:
    """Refuse a ``main_data.hdf5`` that is not HDF5, whose episodes lack a column, whose data
    lie outside it (external or virtual storage), or whose datasets declare more than it can
    hold (`MAX_DECLARED_BYTES_PER_FILE_BYTE`, `MAX_EPISODE_COLUMN_BYTES`): only shapes and
    layouts are read, no data."""
    import h5py

    path = data_path / "main_data.hdf5"
    try:
        file = h5py.File(path, "r")
    except OSError as error:
        raise ParetoscopeError(f"{path}: not an HDF5 file Minari can read ({error})") from None
    with file:
        for name, episode in file.items():
            if not isinstance(episode, h5py.Group):
                continue
            missing = [column for column in _EPISODE_COLUMNS if column not in episode]
            if missing:
                raise ParetoscopeError(
                    f"{path}: {printable(name, 80)} has no {', '.join(map(repr, missing))} "
                    "(a Minari episode holds observations, actions, rewards, terminations "
                    "and truncations)"
                )
        budget = _DeclaredBudget(path, path.stat().st_size * MAX_DECLARED_BYTES_PER_FILE_BYTE)
        file.visititems(budget.check)


class _DeclaredBudget:
    """Adds up what the datasets of one HDF5 file declare, refusing past `limit` bytes."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.total = 0

    def check(self, name: str, item: Any) -> None:
        import h5py

        if not isinstance(item, h5py.Dataset):
            return
        where = f"{self.path}: {printable(name, 200)}"
        if item.external or item.is_virtual:
            raise ParetoscopeError(f"{where} keeps its data outside the file (refused)")
        if item.shape is None:
            return
        declared = int(np.prod(item.shape, dtype=object)) * item.dtype.itemsize
        self.total += declared
        if declared > MAX_EPISODE_COLUMN_BYTES or self.total > self.limit:
            raise ParetoscopeError(
                f"{where} declares shape {item.shape} ({declared:,} bytes; it stores "
                f"{item.id.get_storage_size():,}); a Minari file may declare at most "
                f"{MAX_DECLARED_BYTES_PER_FILE_BYTE} times its size ({self.limit:,} bytes) in "
                f"all and {MAX_EPISODE_COLUMN_BYTES:,} bytes in one column"
            )


def read_minari(
    source: str | Path,
    env_id: str | None = None,
    root: str | Path | None = None,
    progress: bool = False,
) -> Trajectories:
    """A local Minari dataset whose rewards are vectors, as in-memory `Trajectories`."""
    info, trajectories = iter_minari(source, env_id=env_id, root=root, progress=progress)
    return Trajectories.from_trajectories(trajectories, info, validate=False, where=str(source))


def iter_minari(
    source: str | Path,
    env_id: str | None = None,
    root: str | Path | None = None,
    progress: bool = False,
) -> tuple[DatasetInfo, Iterator[Trajectory]]:
    """Dataset info and a validating iterator over the episodes of a Minari dataset."""
    import_minari()
    from minari import MinariDataset

    data_path = minari_data_path(source, root)
    metadata = _read_metadata(data_path)
    info = _info_from_metadata(str(source), metadata, env_id, data_path / "metadata.json")
    spec = get_spec(info.env_id)
    check_minari_storage(data_path)
    try:
        dataset = MinariDataset(data_path)
    except Exception as error:  # Minari raises ValueError/AssertionError/KeyError alike
        raise ParetoscopeError(f"{source}: Minari cannot open it ({error})") from None
    if len(dataset) == 0:
        raise ParetoscopeError(f"{source}: the dataset holds no episodes")

    def generate() -> Iterator[Trajectory]:
        indices = dataset.episode_indices
        episode_metadata = dataset.storage.get_episode_metadata(indices)
        episodes = dataset.iterate_episodes(indices)
        for position, (episode, extra) in enumerate(
            progress_bar(
                zip(episodes, episode_metadata, strict=True),
                "reading Minari",
                progress,
                "ep",
                total=len(indices),
            )
        ):
            where = f"{source}: episode {int(indices[position])}"
            trajectory = _trajectory_from_episode(episode, extra, spec.n_obj, where)
            check_trajectory(trajectory, spec, where)
            yield trajectory

    return info, generate()


def _trajectory_from_episode(
    episode: Any, extra: dict[str, Any], n_obj: int, where: str
) -> Trajectory:
    rewards = np.asarray(episode.rewards)
    if rewards.ndim == 1:
        raise ParetoscopeError(
            f"{where}: rewards are scalars (one number per step, shape {rewards.shape}); "
            "paretoscope needs one reward per objective, shape (T, n_obj). A scalar reward "
            "has already mixed the objectives, so they cannot be shown apart"
        )
    observations = episode.observations
    if not isinstance(observations, np.ndarray) or observations.ndim != 2:
        raise ParetoscopeError(
            f"{where}: observations are not a flat (T + 1, obs_dim) array "
            "(dict or image observation spaces are not supported)"
        )
    length = rewards.shape[0]
    if observations.shape[0] != length + 1:
        raise ParetoscopeError(
            f"{where}: {observations.shape[0]} observations for {length} steps, "
            f"expected {length + 1}"
        )
    preference = (extra.get("options") or {}).get("preference")
    if preference is None:  # a dataset not written by paretoscope: weights unknown
        preference = np.full(n_obj, 1.0 / n_obj)
    terminals = np.asarray(episode.terminations, dtype=bool) | np.asarray(
        episode.truncations, dtype=bool
    )
    return Trajectory(
        observations=np.asarray(observations[:-1], dtype=np.float64),
        actions=np.asarray(episode.actions, dtype=np.float64),
        raw_rewards=np.asarray(rewards, dtype=np.float64),
        terminals=terminals,
        preference=np.asarray(preference, dtype=np.float64),
        final_observation=np.asarray(observations[-1], dtype=np.float64),
    )


def write_minari(
    trajectories: Trajectories,
    dataset_id: str,
    root: str | Path | None = None,
    progress: bool = False,
) -> Path:
    """Write `trajectories` as the local Minari dataset `dataset_id` (``namespace/name-v0``).

    Stored under `root` (default: MINARI_DATASETS_PATH, else ~/.minari/datasets); returns the
    dataset directory. A terminal last step at the horizon is a truncation, any other a
    termination, so reading back gives the same terminals.
    """
    minari = import_minari()
    import gymnasium as gym
    from minari.data_collector import EpisodeBuffer

    if dataset_id.startswith(MINARI_PREFIX):
        dataset_id = dataset_id[len(MINARI_PREFIX) :]
    info = trajectories.info
    spec = info.spec
    if trajectories.next_observations is not None:
        warnings.warn(
            "Minari keeps one observation sequence per episode: stored next_observations that "
            "differ from the shifted observations are not written",
            stacklevel=2,
        )
    observation_space = gym.spaces.Box(-np.inf, np.inf, (spec.obs_dim,), np.float64)
    action_space = gym.spaces.Box(
        np.asarray(spec.action_low, dtype=np.float64),
        np.asarray(spec.action_high, dtype=np.float64),
        dtype=np.float64,
    )

    def buffer(index: int) -> Any:
        trajectory = trajectories.trajectory(index)
        terminals = np.asarray(trajectory.terminals, dtype=bool)
        truncations = np.zeros_like(terminals)
        terminations = terminals.copy()
        if len(trajectory) >= info.horizon and terminals[-1]:
            truncations[-1], terminations[-1] = True, False
        return EpisodeBuffer(
            id=index,
            options={"preference": np.asarray(trajectory.preference, dtype=np.float64)},
            observations=np.concatenate(
                [trajectory.observations, trajectory.final_observation[None, :]]
            ).astype(np.float64),
            actions=np.asarray(trajectory.actions, dtype=np.float64),
            rewards=np.asarray(trajectory.raw_rewards, dtype=np.float64),
            terminations=terminations,
            truncations=truncations,
        )

    chunks = range(0, len(trajectories), _WRITE_CHUNK)
    with _datasets_root(root), warnings.catch_warnings():
        # Minari warns about every optional field left empty (author, permalink, ...).
        warnings.simplefilter("ignore", UserWarning)
        dataset = None
        for first in progress_bar(chunks, "writing Minari", progress, "chunk"):
            buffers = [
                buffer(index)
                for index in range(first, min(first + _WRITE_CHUNK, len(trajectories)))
            ]
            if dataset is None:
                try:
                    dataset = minari.create_dataset_from_buffers(
                        dataset_id=dataset_id,
                        buffer=buffers,
                        observation_space=observation_space,
                        action_space=action_space,
                        algorithm_name=f"paretoscope ({info.quality or 'unknown'} behaviour)",
                        description=(
                            f"{info.env_id} trajectories with vector rewards "
                            f"({', '.join(info.objective_names)}); "
                            f"source {info.source or 'unknown'}"
                        ),
                        data_format="hdf5",
                    )
                except ValueError as error:  # bad id, or the dataset already exists
                    raise ParetoscopeError(f"minari:{dataset_id}: {error}") from None
            else:
                dataset.update_dataset_from_buffer(buffers)
        assert dataset is not None
        dataset.storage.update_metadata(
            {_METADATA_KEY: {"format_version": 1, "info": info.to_dict()}}
        )
        return Path(dataset.storage.data_path).parent


# --- the format, as registered in paretoscope.data.formats --------------------------------------


class MinariFormat:
    """A local Minari dataset with vector rewards (a folder, or ``minari:<dataset id>``)."""

    name = "minari"
    description = "a Minari dataset (a folder with data/metadata.json, or minari:ID)"
    suffixes: tuple[str, ...] = ()  # a folder: not uploaded
    prefix = MINARI_PREFIX

    def check_signature(self, name: str, payload: bytes) -> None:
        raise ParetoscopeError(f"{name}: a Minari dataset is a folder; it cannot be uploaded")

    def sniff(self, path: Path) -> DatasetHeader | None:
        return sniff_minari(path)

    def open(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> Trajectories:
        return read_minari(source, env_id=env_id, progress=progress)

    def stream(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> TrajectoryStream:
        info, trajectories = iter_minari(source, env_id=env_id, progress=progress)
        return TrajectoryStream(info, trajectories)  # iter_minari shows its own bar

    def data_files(self, source: str | Path) -> list[Path]:
        data_path = minari_data_path(source)
        return [data_path / "main_data.hdf5", data_path / "metadata.json"]

    def write(
        self,
        trajectories: Trajectories,
        destination: str | Path,
        overwrite: bool = False,
        progress: bool = False,
    ) -> Path:
        """Minari never replaces a dataset: an existing id is refused whatever `overwrite`."""
        return write_minari(trajectories, str(destination), progress=progress)


FORMAT = MinariFormat()
