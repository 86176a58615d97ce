"""Torch files with random declared shapes, strides, offsets, storage sizes and compression
(issue 50): each is refused with one message naming the file, or loads to exactly the tensor
its bytes describe, and never costs more memory than it holds.

The reader is checked in-process under an address-space cap (a bomb fails the test, not the
machine); a few files go through the CLI in a capped child process as a user would run them.
"""

from __future__ import annotations

import collections
import io
import pickle
import resource
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paretoscope.errors import ParetoscopeError
from paretoscope.torch_files import load_tensors
from tests.bad_inputs.cli_harness import CliCase, check_refusal, run_case
from tests.bad_inputs.torch_zips import (
    DEFLATED,
    Record,
    deflated,
    records_of,
    storage_record,
    write_zip,
)

# Room above what the test process already maps: far less than any bomb here asks for.
_HEADROOM = 2 << 30


@pytest.fixture
def capped_memory() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + _HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class _Storage:
    """Pickled as torch pickles a storage: a persistent id declaring `numel` floats."""

    def __init__(self, numel: int) -> None:
        self.numel = numel


class _View:
    """Pickled as torch pickles a tensor: `_rebuild_tensor_v2(storage, offset, size, stride)`."""

    def __init__(self, storage: _Storage, offset: int, size: tuple, stride: tuple) -> None:
        self.args = (storage, offset, size, stride)

    def __reduce__(self) -> tuple:
        storage, offset, size, stride = self.args
        rebuild = torch._utils._rebuild_tensor_v2
        return rebuild, (storage, offset, size, stride, False, collections.OrderedDict())


class _TorchPickler(pickle.Pickler):
    def persistent_id(self, obj: object) -> object:
        if isinstance(obj, _Storage):
            return ("storage", torch.FloatStorage, "0", "cpu", obj.numel)
        return None


def _pickle(obj: object) -> bytes:
    buffer = io.BytesIO()
    _TorchPickler(buffer, protocol=2).dump(obj)
    return buffer.getvalue()


_dims = st.integers(0, 3)
_extent = st.one_of(st.integers(0, 8), st.integers(0, 100_000))


@st.composite
def _hostile_files(draw: st.DrawFn) -> dict:
    ndim = draw(_dims)
    return {
        "stored": draw(st.integers(1, 64)),  # floats the storage record really holds
        "declared": draw(st.one_of(st.none(), st.integers(0, 10**12))),  # numel in its id
        "offset": draw(st.one_of(st.just(0), st.integers(0, 100))),
        "size": tuple(draw(st.lists(_extent, min_size=ndim, max_size=ndim))),
        "stride": tuple(draw(st.lists(_extent, min_size=ndim, max_size=ndim))),
        "method": draw(st.sampled_from(["stored", "deflated", "unknown"])),
        "encrypted": draw(st.sampled_from([False, False, False, True])),
        # A record whose headers declare another inflated size than it holds.
        "lie": draw(st.one_of(st.none(), st.integers(0, 2**32 - 1))),
    }


def _write(path: Path, spec: dict) -> torch.Tensor:
    """The file `spec` describes; returns the storage's real floats."""
    values = torch.arange(spec["stored"], dtype=torch.float32)
    records = records_of({"t": values}, "archive")
    numel = spec["stored"] if spec["declared"] is None else spec["declared"]
    storage = _Storage(numel)
    payload = _pickle({"t": _View(storage, spec["offset"], spec["size"], spec["stride"])})
    index = next(i for i, r in enumerate(records) if r.name.endswith("/data.pkl"))
    records[index] = Record(records[index].name, payload, len(payload), zlib.crc32(payload))
    storage_index = storage_record(records)
    record = records[storage_index]
    if spec["method"] == "deflated":
        record = deflated(record)
    elif spec["method"] == "unknown":
        record = replace(record, method=99)
    if spec["encrypted"]:
        record = replace(record, flags=1)
    if spec["lie"] is not None:
        record = replace(record, size=spec["lie"])
    records[storage_index] = record
    write_zip(path, records)
    return values


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=_hostile_files())
def test_a_torch_file_is_refused_by_name_or_loads_to_what_its_bytes_hold(
    spec: dict, tmp_path: Path, capped_memory: None
) -> None:
    path = tmp_path / "x.ckpt"
    _write(path, spec)
    try:
        content = load_tensors(path)
    except ParetoscopeError as error:
        assert str(error).startswith(f"{path}: "), str(error)
        assert len(str(error)) < 1000
        return
    tensor = content["t"]
    # What loaded is a view within the storage the file holds, value for value.
    assert tensor.numel() <= spec["stored"]
    expected = torch.arange(spec["stored"], dtype=torch.float32).as_strided(
        spec["size"], spec["stride"], spec["offset"]
    )
    assert torch.equal(tensor, expected)
    assert spec["method"] != "unknown" and not spec["encrypted"]


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=st.integers(20_000, 100_000),
    columns=st.integers(20_000, 100_000),
    compress=st.booleans(),
)
def test_a_declared_bomb_is_refused_by_the_cli_in_bounded_memory(
    rows: int, columns: int, compress: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    def argv(work: Path) -> list[str]:
        records = records_of({"model": {"w": torch.zeros(1).expand(rows, columns)}}, "step=1")
        if compress:
            records = [deflated(r) if r.method != DEFLATED else r for r in records]
        write_zip(work / "step=1.ckpt", records)
        return ["agent", "import", "step=1.ckpt", "--env", "MO-Hopper-v2", "--kind", "rvs"] + [
            "--out",
            "out/agent",
        ]

    expect = rf"step=1\.ckpt: tensor 'model\.w' declares {rows * columns:,} elements"
    case = CliCase("ckpt-property", argv, expect)
    check_refusal(case, run_case(case, tmp_path_factory.mktemp("bomb")))
