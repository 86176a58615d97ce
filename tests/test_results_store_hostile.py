"""A results folder holding what the store did not write (issue 50, item 6): only regular files
named exactly as shards are read, within a size bound; nothing else is read or moved; what is
set aside or skipped is named in a warning."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from paretoscope import results_store
from paretoscope.results_store import ResultsStore, StoreWarning, is_shard_name
from tests.bad_inputs.cli_harness import OUT, PEAK_MEMORY_LIMIT, SECONDS_LIMIT, CliCase, run_case
from tests.bad_inputs.cli_store import STORE_ENV, shard_name

ENV = STORE_ENV


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def _rows(count: int, start: int = 0) -> pd.DataFrame:
    return pd.DataFrame(
        {"agent": "a", "episode_key": [f"k{i}" for i in range(start, start + count)]}
    )


def _store_with_one_shard(root: Path) -> tuple[ResultsStore, Path]:
    store = ResultsStore(root)
    return store, store.write(ENV, _rows(3))


def test_only_the_stores_own_names_are_shards() -> None:
    assert is_shard_name(shard_name(b"x"))
    for name in ("-.parquet", "a-.parquet", "my-analysis.parquet", shard_name(b"x") + ".tmp"):
        assert not is_shard_name(name), name


def test_a_users_own_parquet_files_are_neither_read_nor_moved(tmp_path: Path) -> None:
    store, _ = _store_with_one_shard(tmp_path)
    folder = tmp_path / ENV
    mine = folder / "my-analysis.parquet"
    mine.write_bytes(_parquet(_rows(5, start=100)))
    # Once the empty digest after '-' matched every file: such a name is no shard.
    empty_digest = folder / "abc-.parquet"
    empty_digest.write_bytes(_parquet(_rows(5, start=200)))
    assert sorted(store.read(ENV)["episode_key"]) == ["k0", "k1", "k2"]
    assert mine.is_file() and empty_digest.is_file()
    assert not list(folder.glob("*.corrupt"))


def test_a_damaged_shard_is_set_aside_with_a_warning_naming_it(tmp_path: Path) -> None:
    store, shard = _store_with_one_shard(tmp_path)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    with pytest.warns(StoreWarning, match=re.escape(f"{shard}: damaged results shard")):
        assert len(store.read(ENV)) == 0
    assert shard.with_suffix(".corrupt").is_file()


def test_a_shard_over_the_size_bound_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, shard = _store_with_one_shard(tmp_path)
    monkeypatch.setattr(results_store, "MAX_SHARD_BYTES", shard.stat().st_size - 1)
    with pytest.warns(StoreWarning, match=re.escape(f"{shard}: {shard.stat().st_size:,} bytes")):
        assert len(store.read(ENV)) == 0
    assert shard.is_file()


def test_links_and_fifos_named_as_shards_are_not_read(tmp_path: Path) -> None:
    store, _ = _store_with_one_shard(tmp_path)
    folder = tmp_path / ENV
    fifo = folder / shard_name(b"fifo")
    os.mkfifo(fifo)
    link = folder / shard_name(b"link")
    link.symlink_to("/dev/zero")
    with pytest.warns(StoreWarning) as caught:
        assert sorted(store.read(ENV)["episode_key"]) == ["k0", "k1", "k2"]
    told = " ".join(str(warning.message) for warning in caught)
    assert f"{fifo}: not a regular file" in told
    assert f"{link}: not read" in told
    assert fifo.exists() and link.is_symlink()


def _hostile_store(work: Path) -> list[str]:
    folder = work / OUT / ENV
    folder.mkdir(parents=True)
    os.mkfifo(folder / shard_name(b"fifo"))
    (folder / shard_name(b"zero")).symlink_to("/dev/zero")
    (folder / "my-analysis.parquet").write_bytes(_parquet(_rows(2)))
    (folder / "x-.parquet").write_bytes(b"not parquet")
    damaged = _parquet(_rows(2))
    (folder / shard_name(damaged)).write_bytes(damaged[:-8])
    return ["evaluate", "random", "--env", ENV, "--out", OUT, "--granularity", "1"]


def test_evaluate_on_a_hostile_store_finishes_in_bounded_memory(tmp_path: Path) -> None:
    """The FIFO once hung evaluate, the link to /dev/zero grew memory without bound, and the
    user's file was renamed .corrupt; now each is named in a warning or left alone."""
    case = CliCase("store-hostile-folder", _hostile_store, expect="")
    outcome = run_case(case, tmp_path)
    assert outcome.status == 0, outcome.stderr[-2000:]
    assert outcome.seconds < SECONDS_LIMIT
    assert outcome.peak_memory < PEAK_MEMORY_LIMIT
    warnings = [line for line in outcome.stderr.splitlines() if "paretoscope: warning:" in line]
    folder = f"{OUT}/{ENV}"
    assert any(f"{shard_name(b'fifo')}: not a regular file" in line for line in warnings)
    assert any(f"{shard_name(b'zero')}: not read" in line for line in warnings)
    assert any("damaged results shard" in line and folder in line for line in warnings)
    assert len(warnings) == 3, warnings
    assert (tmp_path / folder / "my-analysis.parquet").is_file()
    assert (tmp_path / folder / "x-.parquet").read_bytes() == b"not parquet"
    assert "Traceback" not in outcome.stderr
