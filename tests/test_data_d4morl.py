"""D4MORL pickles: reading, writing in PEDA's structure, the restricted unpickler, bad input."""

from __future__ import annotations

import collections
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from paretoscope.data import (
    convert,
    d4morl_file_name,
    load_d4morl,
    parse_d4morl_name,
    read_d4morl,
    write_d4morl,
)
from paretoscope.errors import ParetoscopeError
from tests.test_data_support import CHEETAH, CHEETAH_FILE, make_entries, make_entry, write_pickle

# --- reading and writing -----------------------------------------------------------------------


def test_read_gives_the_arrays_of_the_file(tmp_path: Path) -> None:
    entries = make_entries(12, seed=1)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    trajectories = read_d4morl(path)
    assert trajectories.info.env_id == CHEETAH
    assert trajectories.info.quality == "expert"
    assert trajectories.info.preference_distribution == "uniform"
    assert trajectories.n_trajectories == 12
    assert trajectories.n_steps == sum(len(entry["observations"]) for entry in entries)
    for index, entry in enumerate(entries):
        trajectory = trajectories.trajectory(index)
        np.testing.assert_array_equal(trajectory.observations, entry["observations"])
        np.testing.assert_array_equal(trajectory.actions, entry["actions"])
        np.testing.assert_array_equal(trajectory.raw_rewards, entry["raw_rewards"])
        np.testing.assert_array_equal(trajectory.terminals, entry["terminals"])
        np.testing.assert_array_equal(trajectory.preference, entry["preference"][0])
        np.testing.assert_array_equal(
            trajectory.next_observations_or_derived(), entry["next_observations"]
        )
        np.testing.assert_allclose(
            trajectories.returns[index], entry["raw_rewards"].sum(axis=0), rtol=1e-12
        )
    # Consistent next observations are derived, not stored twice.
    assert trajectories.next_observations is None


def test_written_file_has_peda_structure_and_round_trips(tmp_path: Path) -> None:
    entries = make_entries(9, seed=2)
    source = write_pickle(tmp_path / CHEETAH_FILE, entries)
    target = tmp_path / "copy" / "MO-HalfCheetah-v2_9_amateur_wide.pkl"
    write_d4morl(read_d4morl(source), target)

    with open(target, "rb") as file:
        raw = pickle.load(file)  # our own file, plain pickle to see exactly what PEDA would see
    assert type(raw) is list and len(raw) == len(entries)
    for written, original in zip(raw, entries, strict=True):
        assert type(written) is collections.defaultdict and written.default_factory is list
        assert list(written) == [
            "observations",
            "actions",
            "next_observations",
            "preference",
            "terminals",
            "raw_rewards",
        ]
        for key, array in original.items():
            assert written[key].dtype == array.dtype, key
            assert written[key].shape == array.shape, key
            np.testing.assert_array_equal(written[key], array)
    assert read_d4morl(target).info.quality == "amateur"


def test_inconsistent_next_observations_survive_a_round_trip(tmp_path: Path) -> None:
    entries = make_entries(4, seed=3)
    entries[2]["next_observations"] = entries[2]["next_observations"] + 0.5
    source = write_pickle(tmp_path / CHEETAH_FILE, entries)
    trajectories = read_d4morl(source)
    assert trajectories.next_observations is not None
    native = convert(source, tmp_path / "native")
    back = write_d4morl(read_d4morl(source), tmp_path / "back.pkl")
    with open(back, "rb") as file:
        raw = pickle.load(file)
    for written, original in zip(raw, entries, strict=True):
        np.testing.assert_array_equal(written["next_observations"], original["next_observations"])
    from paretoscope.data import open_native

    np.testing.assert_array_equal(
        open_native(native).next_observations_or_derived(),
        np.concatenate([entry["next_observations"] for entry in entries]),
    )


def test_streamed_writer_does_not_share_objects_between_entries(tmp_path: Path) -> None:
    # Two trajectories with identical content must still come back as separate arrays.
    entry = make_entry(np.random.default_rng(0), 5)
    source = write_pickle(tmp_path / CHEETAH_FILE, [entry, entry])
    target = write_d4morl(read_d4morl(source), tmp_path / "twice.pkl")
    with open(target, "rb") as file:
        raw = pickle.load(file)
    assert raw[0]["observations"] is not raw[1]["observations"]
    np.testing.assert_array_equal(raw[0]["observations"], raw[1]["observations"])


def test_integer_terminals_and_protocol_5_files_are_read(tmp_path: Path) -> None:
    entries = make_entries(3, seed=4)
    for entry in entries:
        entry["terminals"] = entry["terminals"].astype(np.float64)
    path = tmp_path / CHEETAH_FILE
    with open(path, "wb") as file:
        pickle.dump(entries, file, protocol=5)
    trajectories = read_d4morl(path)
    assert trajectories.terminals.dtype == bool
    np.testing.assert_array_equal(
        trajectories.terminals, np.concatenate([entry["terminals"] for entry in entries]) == 1
    )


def test_env_from_file_name_or_given() -> None:
    name = parse_d4morl_name("data/MO-Hopper-v3/MO-Hopper-v3_50000_amateur_narrow.pkl")
    assert name is not None
    assert (name.env_id, name.count, name.quality, name.distribution) == (
        "MO-Hopper-v3",
        50000,
        "amateur",
        "narrow",
    )
    assert parse_d4morl_name("hopper.pkl") is None
    assert parse_d4morl_name(d4morl_file_name("MO-Ant-v2", 7, "expert", "wide")) == (
        parse_d4morl_name("MO-Ant-v2_7_expert_wide.pkl")
    )


def test_file_not_following_the_naming_needs_an_env(tmp_path: Path) -> None:
    path = write_pickle(tmp_path / "my-data.pkl", make_entries(2))
    with pytest.raises(ParetoscopeError, match="cannot tell the environment.*--env"):
        read_d4morl(path)
    assert read_d4morl(path, env_id=CHEETAH).n_trajectories == 2


# --- the restricted unpickler --------------------------------------------------------------------


class _WritesMarker:
    """Unpickling this with plain pickle would run os.system and create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


class _EvalsMarker:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (eval, (f"open({str(self.marker)!r}, 'w').close()",))


@pytest.mark.parametrize("payload_type", [_WritesMarker, _EvalsMarker])
def test_code_execution_payload_is_refused_and_never_runs(
    tmp_path: Path, payload_type: type
) -> None:
    marker = tmp_path / "payload-ran"
    entries = make_entries(2)
    entries[1]["raw_rewards"] = payload_type(marker)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    with pytest.raises(ParetoscopeError) as caught:
        read_d4morl(path)
    message = str(caught.value)
    assert str(path) in message
    assert "system" in message or "eval" in message
    assert "nothing from the file was run" in message
    assert not marker.exists()


def test_the_payload_is_real(tmp_path: Path) -> None:
    """Guards the test above: the same payload does run under a plain unpickler."""
    marker = tmp_path / "payload-ran"
    pickle.loads(pickle.dumps(_EvalsMarker(marker)))
    assert marker.exists()


def test_defaultdict_with_another_factory_is_refused(tmp_path: Path) -> None:
    entries = make_entries(1)
    strange: collections.defaultdict = collections.defaultdict(np.ndarray)
    strange.update(entries[0])
    path = write_pickle(tmp_path / CHEETAH_FILE, [strange])
    with pytest.raises(ParetoscopeError, match="default factory is not `list`"):
        read_d4morl(path)


def test_object_arrays_are_refused(tmp_path: Path) -> None:
    entries = make_entries(1)
    entries[0]["terminals"] = np.array([None] * len(entries[0]["terminals"]), dtype=object)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    with pytest.raises(ParetoscopeError, match=f"{path}.*refused"):
        read_d4morl(path)


# --- bad input: each names the file and the problem, and disturbs nothing -----------------------


def _assert_refused(path: Path, pattern: str, tmp_path: Path, env_id: str | None = None) -> None:
    """Reading and converting both fail with `pattern`; the conversion leaves no trace."""
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ParetoscopeError, match=pattern) as caught:
        read_d4morl(path, env_id=env_id)
    assert str(path) in str(caught.value)
    with pytest.raises(ParetoscopeError, match=pattern):
        convert(path, tmp_path / "converted", env_id=env_id)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_truncated_pickle(tmp_path: Path) -> None:
    whole = pickle.dumps(make_entries(5), protocol=4)
    path = tmp_path / CHEETAH_FILE
    path.write_bytes(whole[: len(whole) // 2])
    _assert_refused(path, "truncated or corrupt", tmp_path)


def test_not_a_pickle_at_all(tmp_path: Path) -> None:
    path = tmp_path / CHEETAH_FILE
    path.write_text("observations,actions\n1,2\n")
    _assert_refused(path, "not a (complete|valid)", tmp_path)


def test_zero_byte_file(tmp_path: Path) -> None:
    path = tmp_path / CHEETAH_FILE
    path.touch()
    _assert_refused(path, "empty", tmp_path)


def test_directory(tmp_path: Path) -> None:
    path = tmp_path / CHEETAH_FILE
    path.mkdir()
    with pytest.raises(ParetoscopeError, match=f"{path}.*is a directory"):
        read_d4morl(path)
    with pytest.raises(ParetoscopeError, match=f"{path}.*is a directory"):
        convert(path, tmp_path / "converted")
    assert not (tmp_path / "converted").exists()


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="no such file"):
        read_d4morl(tmp_path / CHEETAH_FILE)


def test_missing_key_names_it(tmp_path: Path) -> None:
    entries = make_entries(3)
    del entries[1]["raw_rewards"]
    entries[1]["rewards"] = np.zeros(len(entries[1]["observations"]))
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(
        path, r"trajectory 1: missing key\(s\) 'raw_rewards'.*scalar 'rewards'", tmp_path
    )


def test_wrong_value_type(tmp_path: Path) -> None:
    entries = make_entries(2)
    entries[0]["actions"] = entries[0]["actions"].tolist()
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 0: 'actions' is a list, expected a numpy array", tmp_path)


def test_entry_not_a_dict(tmp_path: Path) -> None:
    entries: list = make_entries(2)
    entries[1] = [1.0, 2.0]
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 1: is a list, expected a dict", tmp_path)


def test_top_level_not_a_list(tmp_path: Path) -> None:
    path = write_pickle(tmp_path / CHEETAH_FILE, {"observations": np.zeros((3, 17))})
    _assert_refused(path, "holds a dict, expected a list", tmp_path)


def test_step_counts_disagree_between_keys(tmp_path: Path) -> None:
    entries = make_entries(3)
    entries[2]["actions"] = entries[2]["actions"][:-1]
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 2: 'actions' has .* steps but 'observations' has", tmp_path)


def test_shapes_disagree_with_env(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    entries = [make_entry(rng, 10, obs_dim=11, act_dim=3)]  # Hopper-sized, named HalfCheetah
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(
        path, r"trajectory 0: observations has shape \(10, 11\), expected \(10, 17\)", tmp_path
    )


def test_objective_count_disagrees_with_env(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    path = write_pickle(tmp_path / CHEETAH_FILE, [make_entry(rng, 10, n_obj=3)])
    _assert_refused(path, "trajectory 0: raw_rewards has shape", tmp_path)


@pytest.mark.parametrize("bad_value", [np.nan, np.inf, -np.inf])
def test_non_finite_rewards_name_the_trajectory(tmp_path: Path, bad_value: float) -> None:
    entries = make_entries(6)
    entries[4]["raw_rewards"][0, 1] = bad_value
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, r"trajectory 4: raw_rewards contains NaN or inf", tmp_path)


def test_preference_not_summing_to_one(tmp_path: Path) -> None:
    entries = make_entries(3)
    entries[1]["preference"] = entries[1]["preference"] * 1.5
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 1: preference .* sums to 1.5, expected 1", tmp_path)


def test_preference_changing_within_a_trajectory(tmp_path: Path) -> None:
    entries = make_entries(3, max_length=20)
    length = len(entries[2]["preference"])
    rows = np.tile([0.3, 0.7], (max(length, 2), 1))
    rows[-1] = [0.6, 0.4]
    entries[2] = make_entry(np.random.default_rng(9), len(rows))
    entries[2]["preference"] = rows
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 2: the preference changes within the trajectory", tmp_path)


def test_empty_dataset(tmp_path: Path) -> None:
    path = write_pickle(tmp_path / CHEETAH_FILE, [])
    _assert_refused(path, "holds no trajectories", tmp_path)


def test_empty_trajectory(tmp_path: Path) -> None:
    entries = make_entries(2)
    entries[0] = make_entry(np.random.default_rng(0), 0)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    _assert_refused(path, "trajectory 0: the trajectory has no steps", tmp_path)


def test_unknown_env_in_file_name(tmp_path: Path) -> None:
    path = write_pickle(tmp_path / "MO-Unicorn-v2_50000_expert_uniform.pkl", make_entries(2))
    _assert_refused(path, "names an unknown environment id 'MO-Unicorn-v2'", tmp_path)


def test_load_reports_lengths_and_releases_entries(tmp_path: Path) -> None:
    entries = make_entries(5, seed=7)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    loaded = load_d4morl(path)
    np.testing.assert_array_equal(loaded.lengths, [len(entry["observations"]) for entry in entries])
    assert len(list(loaded.trajectories(release=True))) == 5
    with pytest.raises(RuntimeError, match="already consumed"):
        next(loaded.trajectories())
