"""Issue 50's property for datasets: whatever shapes, strides and storage a file declares, a
reader either refuses it with a `ParetoscopeError` or reads exactly what the file holds, and
costs memory in proportion to the file, not to what it declares.

Checked in-process (the message, the values, the peak of Python's and numpy's allocations);
the CLI corpus (tests/bad_inputs/cli_datasets.py) runs the bombs in capped child processes.
"""

from __future__ import annotations

import contextlib
import pickle
import tempfile
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretoscope.data.d4morl import MAX_DECLARED_BYTES_PER_FILE_BYTE, load_d4morl
from paretoscope.data.minari_io import MAX_DECLARED_BYTES_PER_FILE_BYTE as MINARI_EXPANSION
from paretoscope.errors import ParetoscopeError
from paretoscope.safe_pickle import load_restricted
from tests.bad_inputs.cli_datasets import (
    ENV,
    PICKLE_NAME,
    StridedView,
    d4morl_entry,
    make_minari,
    minari_episode,
)

# A refusal or a read of these small files must stay far below what the bombs declare.
PEAK_BYTES = 32 << 20
# Sizes from empty to far beyond memory: a bomb declares the large ones over a few bytes.
SIZES = st.one_of(st.integers(0, 6), st.integers(0, 10**12))


@contextlib.contextmanager
def peak_memory_bounded() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES, f"peak {peak:,} bytes"


@st.composite
def views(draw: st.DrawFn) -> tuple[tuple[int, ...], bytes, tuple[int, ...] | None, int]:
    shape = tuple(draw(st.lists(SIZES, min_size=1, max_size=2)))
    buffer = bytes(range(256))[: draw(st.integers(0, 256))]
    contiguous = tuple(
        int(np.prod(shape[axis + 1 :], dtype=object)) * 8 for axis in range(len(shape))
    )
    strides = draw(
        st.one_of(
            st.none(),
            st.just(contiguous),
            st.tuples(*[st.sampled_from([0, 8, 16, -8, 3, 4096]) for _ in shape]),
        )
    )
    return shape, buffer, strides, draw(st.integers(0, 64))


@settings(max_examples=60, deadline=None)
@given(views())
def test_a_pickled_array_view_is_read_exactly_or_refused(
    view: tuple[tuple[int, ...], bytes, tuple[int, ...] | None, int],
) -> None:
    shape, buffer, strides, offset = view
    count = int(np.prod(shape, dtype=object))
    contiguous = tuple(
        int(np.prod(shape[axis + 1 :], dtype=object)) * 8 for axis in range(len(shape))
    )
    fits = offset + count * 8 <= len(buffer) and strides in (None, contiguous)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "view.pkl")
        path.write_bytes(pickle.dumps(StridedView(shape, buffer, strides, offset), protocol=4))
        with peak_memory_bounded():
            try:
                array = load_restricted(path)
            except ParetoscopeError as error:
                assert not fits, error
                assert "numpy.ndarray" in str(error)
                return
    assert fits, f"accepted {shape} strides {strides} offset {offset} over {len(buffer)} bytes"
    expected = np.frombuffer(buffer, dtype=np.float64, count=count, offset=offset).reshape(shape)
    np.testing.assert_array_equal(array, expected)


@settings(max_examples=25, deadline=None)
@given(steps=st.integers(1, 30), references=st.integers(1, 3000))
def test_references_to_one_trajectory_count_as_copies(steps: int, references: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, PICKLE_NAME)
        path.write_bytes(pickle.dumps([d4morl_entry(steps)] * references, protocol=4))
        columns = sum(value.size for value in d4morl_entry(steps).values()) // steps
        declared = references * steps * columns * 8
        allowed = declared <= path.stat().st_size * MAX_DECLARED_BYTES_PER_FILE_BYTE
        with peak_memory_bounded():
            try:
                loaded = load_d4morl(path)
            except ParetoscopeError as error:
                assert not allowed, error
                assert f"declare {references * steps:,} steps" in str(error)
                return
        assert allowed
        assert loaded.n_trajectories == references
        assert loaded.n_steps == references * steps


@settings(max_examples=25, deadline=None)
@given(
    steps=SIZES.filter(lambda size: size > 0),
    width=st.integers(1, 40),
    written=st.booleans(),
    compression=st.sampled_from([None, "gzip"]),
)
def test_a_minari_column_is_read_as_stored_or_refused(
    steps: int, width: int, written: bool, compression: str | None
) -> None:
    pytest.importorskip("minari")
    from paretoscope.data.minari_io import read_minari

    declared = steps * width * 8
    written = written and declared <= 1 << 20  # real bytes only for small shapes
    rng = np.random.default_rng(steps)
    rewards = rng.normal(size=(steps, width)) if written else np.zeros((0, width))

    def episode(file: Any) -> None:
        minari_episode(leave_out=("rewards",))(file)
        group = file["episode_0"]
        if written:
            group.create_dataset("rewards", data=rewards, compression=compression)
        else:
            group.create_dataset(
                "rewards", shape=(steps, width), dtype="f8", chunks=True, compression=compression
            )

    with tempfile.TemporaryDirectory() as folder:
        make_minari(Path(folder), episode)
        file_bytes = Path(folder, "set", "data", "main_data.hdf5").stat().st_size
        with peak_memory_bounded():
            try:
                read = read_minari(Path(folder, "set"))
            except ParetoscopeError as error:
                assert str(Path(folder, "set")) in str(error), error  # names the dataset
                return
    # Read: then the shapes fit the file, and the rewards are the file's own.
    assert declared <= file_bytes * MINARI_EXPANSION
    assert read.info.env_id == ENV
    assert width == 2 and steps == 3  # any other shape disagrees with the episode's 3 steps
    np.testing.assert_array_equal(read.raw_rewards, rewards if written else np.zeros((3, 2)))


def test_a_cached_summary_that_declares_more_than_it_holds_is_recomputed(tmp_path: Path) -> None:
    """A summary cache shipped beside a dataset is data from the same stranger: an array in it
    that declares a billion floats over 8 bytes is ignored, never allocated."""
    import io
    import zipfile

    from paretoscope.data.sources import SIDECAR_SUFFIX, dataset_summary

    path = tmp_path / PICKLE_NAME
    path.write_bytes(pickle.dumps([d4morl_entry(5, seed) for seed in range(3)], protocol=4))
    first = dataset_summary(path)
    sidecar = path.with_name(path.name + SIDECAR_SUFFIX)
    with zipfile.ZipFile(sidecar) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10**9,)}
    )
    members["returns.npy"] = header.getvalue() + bytes(8)  # the header carries the magic
    with zipfile.ZipFile(sidecar, "w", zipfile.ZIP_STORED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    with peak_memory_bounded():
        again = dataset_summary(path)
    assert again.to_dict() == first.to_dict()
