"""Hostile datasets for the CLI (issue 50): each case makes its small files in a work folder.

D4MORL pickles whose arrays declare more than the file holds (zero strides, many references to
one trajectory), Minari HDF5 datasets whose shapes promise data that is not stored or whose
files are not what Minari needs, and native dataset headers that are malformed or point outside
their folder.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tests.bad_inputs.cli_harness import OUT, CliCase

ENV = "MO-Hopper-v2"
OBS, ACT, N_OBJ = 11, 3, 2
PICKLE_NAME = f"{ENV}_1_expert_uniform.pkl"
# A nesting deep enough to exhaust Python's recursion in any recursive JSON parser.
DEEP = 100_000


# --- D4MORL -------------------------------------------------------------------------------------


class StridedView:
    """Pickles as ``numpy.ndarray(shape, dtype, buffer, offset, strides)`` called directly:
    a view of `buffer` that may declare far more than the buffer holds."""

    def __init__(
        self, shape: tuple[int, ...], buffer: bytes, strides: tuple[int, ...] | None, offset: int
    ) -> None:
        self.args = (shape, np.dtype(np.float64), buffer, offset, strides)

    def __reduce__(self) -> tuple[Any, ...]:
        return (np.ndarray, self.args)


def d4morl_entry(steps: int, seed: int = 0) -> dict[str, np.ndarray]:
    """One valid MO-Hopper trajectory as PEDA stores it."""
    rng = np.random.default_rng(seed)
    terminals = np.zeros(steps, dtype=bool)
    terminals[-1] = True
    return {
        "observations": rng.normal(size=(steps, OBS)),
        "actions": rng.uniform(-0.5, 0.5, size=(steps, ACT)),
        "next_observations": rng.normal(size=(steps, OBS)),
        "preference": np.tile([0.5, 0.5], (steps, 1)),
        "terminals": terminals,
        "raw_rewards": rng.normal(size=(steps, N_OBJ)),
    }


def zero_stride_entry(steps: int) -> dict[str, Any]:
    """A trajectory of `steps` steps whose every array is one float repeated (stride 0)."""
    one = b"\0" * 8
    return {
        "observations": StridedView((steps, OBS), one, (0, 0), 0),
        "actions": StridedView((steps, ACT), one, (0, 0), 0),
        "next_observations": StridedView((steps, OBS), one, (0, 0), 0),
        "preference": StridedView((steps, N_OBJ), one, (0, 0), 0),
        "terminals": StridedView((steps,), one, (0,), 0),
        "raw_rewards": StridedView((steps, N_OBJ), one, (0, 0), 0),
    }


def _write_pickle(work: Path, content: object) -> str:
    (work / PICKLE_NAME).write_bytes(pickle.dumps(content, protocol=4))
    return PICKLE_NAME


def _zero_stride_pickle(work: Path) -> str:
    return _write_pickle(work, [zero_stride_entry(1_000_000_000)])


def _memo_pickle(work: Path) -> str:
    # The pickler's memo writes the one trajectory once and 32,000 references to it.
    return _write_pickle(work, [d4morl_entry(500)] * 32_000)


# --- Minari -------------------------------------------------------------------------------------

_SPACE = {"type": "Box", "dtype": "float64", "shape": [OBS], "low": None, "high": None}


def minari_metadata(**changes: Any) -> dict[str, Any]:
    """metadata.json of a one-episode Minari dataset for MO-Hopper, as paretoscope writes it."""
    observation_space = dict(_SPACE, low=[-1e9] * OBS, high=[1e9] * OBS)
    action_space = dict(_SPACE, shape=[ACT], low=[-2.0, -2.0, -4.0], high=[2.0, 2.0, 4.0])
    metadata: dict[str, Any] = {
        "total_episodes": 1,
        "total_steps": 3,
        "data_format": "hdf5",
        "observation_space": json.dumps(observation_space),
        "action_space": json.dumps(action_space),
        "dataset_id": "hostile/set-v0",
        "algorithm_name": "hostile",
        "minari_version": "0.5.4",
        "dataset_size": 0.0,
        "paretoscope": {
            "format_version": 1,
            "info": {"env_id": ENV, "objective_names": ["run", "jump"]},
        },
    }
    metadata.update(changes)
    return metadata


def minari_episode(
    shapes: dict[str, tuple[int, ...]] | None = None, leave_out: tuple[str, ...] = ()
) -> Callable[[Any], None]:
    """Writes episode_0 into an open h5py file: a valid 3-step episode, except that the
    datasets named in `shapes` are declared with that shape and hold no data at all."""

    def write(file: Any) -> None:
        group = file.create_group("episode_0")
        group.attrs["id"] = 0
        group.attrs["total_steps"] = 3
        valid = {
            "observations": np.zeros((4, OBS)),
            "actions": np.zeros((3, ACT)),
            "rewards": np.ones((3, N_OBJ)),
            "terminations": np.array([False, False, True]),
            "truncations": np.zeros(3, dtype=bool),
        }
        for name, values in valid.items():
            if name in leave_out:
                continue
            if shapes and name in shapes:
                # Chunked with nothing written: the declared size costs no bytes on disk.
                group.create_dataset(name, shape=shapes[name], dtype=values.dtype, chunks=True)
            else:
                group.create_dataset(name, data=values)

    return write


def make_minari(
    work: Path,
    episode: Callable[[Any], None] | None = None,
    metadata: dict[str, Any] | str | None = None,
    data: bytes | None = None,
) -> str:
    """A Minari dataset folder `set` in `work`: metadata.json (an object, or raw text) and
    main_data.hdf5 (written by `episode`, or the raw bytes `data`)."""
    import h5py

    folder = work / "set" / "data"
    folder.mkdir(parents=True)
    text = metadata if isinstance(metadata, str) else json.dumps(metadata or minari_metadata())
    (folder / "metadata.json").write_text(text, encoding="utf-8")
    if data is not None:
        (folder / "main_data.hdf5").write_bytes(data)
    else:
        with h5py.File(folder / "main_data.hdf5", "w") as file:
            (episode or minari_episode())(file)
    return "set"


def _deep_json() -> str:
    return "[" * DEEP + "]" * DEEP


# --- native -------------------------------------------------------------------------------------


def make_native(work: Path, edit: Callable[[dict[str, Any], Path], object] | None = None) -> str:
    """A valid two-trajectory native dataset `native` in `work`, its header then changed by
    `edit(header, folder)` (which edits in place, or returns the text to write instead)."""
    from paretoscope.data.native import HEADER_FILE, NativeWriter
    from paretoscope.data.trajectories import DatasetInfo, Trajectory

    folder = work / "native"
    with NativeWriter(folder, DatasetInfo.for_env(ENV)) as writer:
        for seed in (0, 1):
            entry = d4morl_entry(5, seed)
            writer.append(
                Trajectory(
                    observations=entry["observations"],
                    actions=entry["actions"],
                    raw_rewards=entry["raw_rewards"],
                    terminals=entry["terminals"],
                    preference=np.array([0.5, 0.5]),
                    final_observation=entry["next_observations"][-1],
                )
            )
    if edit is not None:
        header_path = folder / HEADER_FILE
        header = json.loads(header_path.read_text(encoding="utf-8"))
        replaced = edit(header, folder)
        text = replaced if isinstance(replaced, str) else json.dumps(header)
        header_path.write_text(text, encoding="utf-8")
    return "native"


def _decreasing_offsets(header: dict[str, Any], folder: Path) -> None:
    np.save(folder / "offsets.npy", np.array([0, 50, 10], dtype=np.int64))


def _object_column(header: dict[str, Any], folder: Path) -> None:
    np.save(folder / "returns.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    header["columns"]["returns"]["dtype"] = "|O"


# --- the cases ----------------------------------------------------------------------------------


def _show(make: Callable[[Path], str]) -> Callable[[Path], list[str]]:
    return lambda work: ["data", "show", make(work)]


def _convert(make: Callable[[Path], str]) -> Callable[[Path], list[str]]:
    return lambda work: ["data", "convert", make(work), f"{OUT}/converted"]


def _train(make: Callable[[Path], str]) -> Callable[[Path], list[str]]:
    return lambda work: [
        "train",
        "morvs",
        "--data",
        make(work),
        "--out",
        f"{OUT}/run",
        "--steps",
        "2",
    ]


def _three(name: str, make: Callable[[Path], str], expect: str) -> list[CliCase]:
    """The same hostile dataset given to `data show`, `data convert` and `train morvs`."""
    return [
        CliCase(f"{name}-show", _show(make), expect),
        CliCase(f"{name}-convert", _convert(make), expect),
        CliCase(f"{name}-train", _train(make), expect),
    ]


_PICKLE = r"MO-Hopper-v2_1_expert_uniform\.pkl"

CASES: list[CliCase] = [
    # D4MORL: 1e9 steps over one float of data (stride 0).
    *_three("data-d4morl-zero-stride", _zero_stride_pickle, _PICKLE + r".*stride"),
    # D4MORL: 32,000 references to one 500-step trajectory (16 million steps once copied).
    *_three("data-d4morl-memo-references", _memo_pickle, _PICKLE + r".*declare [\d,]+ steps"),
    # Minari: shapes declared with no data stored.
    *_three(
        "data-minari-declared-1e9",
        lambda work: make_minari(work, minari_episode({"rewards": (1_000_000_000, N_OBJ)})),
        r"main_data\.hdf5.*episode_0/rewards.*declares",
    ),
    CliCase(
        "data-minari-declared-38gib-show",
        _show(lambda work: make_minari(work, minari_episode({"rewards": (300_000_000, 17)}))),
        r"main_data\.hdf5.*episode_0/rewards.*declares",
    ),
    CliCase(
        "data-minari-no-rewards-show",
        _show(lambda work: make_minari(work, minari_episode(leave_out=("rewards",)))),
        r"main_data\.hdf5.*episode_0.*'rewards'",
    ),
    CliCase(
        "data-minari-not-hdf5-show",
        _show(lambda work: make_minari(work, data=b"this is not HDF5\n" * 8)),
        r"main_data\.hdf5.*not an HDF5 file",
    ),
    CliCase(
        "data-minari-deep-metadata-show",
        _show(lambda work: make_minari(work, minari_episode(), metadata=_deep_json())),
        r"metadata\.json.*nested",
    ),
    CliCase(
        "data-minari-deep-env-spec-show",
        _show(
            lambda work: make_minari(
                work, minari_episode(), minari_metadata(paretoscope=None, env_spec=_deep_json())
            )
        ),
        r"metadata\.json.*env_spec.*nested",
    ),
    # Native headers.
    CliCase(
        "data-native-deep-header-show",
        _show(lambda work: make_native(work, lambda header, folder: _deep_json())),
        r"paretoscope-dataset\.json.*nested",
    ),
    CliCase(
        "data-native-no-columns-show",
        _show(lambda work: make_native(work, lambda header, folder: header.pop("columns"))),
        r"paretoscope-dataset\.json.*'columns'",
    ),
    CliCase(
        "data-native-no-info-show",
        _show(lambda work: make_native(work, lambda header, folder: header.pop("info"))),
        r"paretoscope-dataset\.json.*'info'",
    ),
    CliCase(
        "data-native-columns-list-show",
        _show(
            lambda work: make_native(
                work, lambda header, folder: header.update(columns=list(header["columns"]))
            )
        ),
        r"paretoscope-dataset\.json.*'columns'.*object",
    ),
    CliCase(
        "data-native-column-not-object-show",
        _show(
            lambda work: make_native(
                work, lambda header, folder: header["columns"].update(offsets=[1, 2])
            )
        ),
        r"paretoscope-dataset\.json.*column 'offsets'",
    ),
    CliCase(
        "data-native-decreasing-offsets-show",
        _show(lambda work: make_native(work, _decreasing_offsets)),
        r"offsets\.npy.*offsets.*decrease",
    ),
    CliCase(
        "data-native-decreasing-offsets-convert",
        _convert(lambda work: make_native(work, _decreasing_offsets)),
        r"offsets\.npy.*offsets.*decrease",
    ),
    CliCase(
        "data-native-file-outside-show",
        _show(
            lambda work: make_native(
                work,
                lambda header, folder: header["columns"]["returns"].update(file="/etc/passwd"),
            )
        ),
        r"paretoscope-dataset\.json.*column 'returns'.*'/etc/passwd'.*inside",
    ),
    CliCase(
        "data-native-file-parent-show",
        _show(
            lambda work: make_native(
                work,
                lambda header, folder: header["columns"]["offsets"].update(file="../x.npy"),
            )
        ),
        r"paretoscope-dataset\.json.*column 'offsets'.*inside",
    ),
    CliCase(
        "data-native-object-column-show",
        _show(lambda work: make_native(work, _object_column)),
        r"returns\.npy.*column 'returns'.*not plain numbers(?!.*allow_pickle)",
    ),
]
