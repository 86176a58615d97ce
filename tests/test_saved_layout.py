"""A gallery's saved layout (`paretoscope.behaviour.saved_layout`): the file round trip, what is
refused (and skipped for the next folder), the key's inputs, and the agent files' content
digest (`paretoscope.catalog.digest`) it is keyed by."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np
import pytest

from paretoscope.behaviour.saved_layout import (
    GALLERIES_SUBDIR,
    MOST_LAYOUT_BYTES,
    GalleryLayout,
    GalleryLayouts,
    layout_key,
)
from paretoscope.catalog.digest import content_digest
from paretoscope.errors import ParetoscopeError


def _layout(tiles: int = 3) -> GalleryLayout:
    rng = np.random.default_rng(0)
    front = rng.normal(size=(7, 2))
    return GalleryLayout(
        fingerprint="abc123",
        front=front,
        preferences=rng.dirichlet([1.0, 1.0], size=tiles),
        returns=front[:tiles],
        labels=tuple(index % 2 for index in range(tiles)),
        names=("fast", "slow"),
        embedding=rng.normal(size=(tiles, 2)),
    )


def _same(a: GalleryLayout, b: GalleryLayout) -> None:
    assert a.fingerprint == b.fingerprint
    assert (a.labels, a.names) == (b.labels, b.names)
    for field in ("front", "preferences", "returns", "embedding"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_a_layout_put_is_the_layout_got(tmp_path: Path) -> None:
    layouts = GalleryLayouts([], tmp_path / "cache")
    layout = _layout()
    assert layouts.get("k", n_obj=2) is None
    layouts.put("k", layout)
    got = layouts.get("k", n_obj=2)
    assert got is not None
    _same(got, layout)
    # Floats survive exactly (JSON keeps the shortest repr that reads back the same double).
    assert got.front.dtype == np.float64


def test_read_only_folders_come_first(tmp_path: Path) -> None:
    shipped, cache = tmp_path / "shipped", tmp_path / "cache"
    GalleryLayouts([], shipped).put("k", _layout())
    other = GalleryLayout(**{**_layout().__dict__, "fingerprint": "from-the-cache"})
    GalleryLayouts([], cache).put("k", other)
    got = GalleryLayouts([shipped], cache).get("k", n_obj=2)
    assert got is not None and got.fingerprint == "abc123"


def _bad_files(layout: dict) -> dict[str, bytes]:
    def changed(**fields: object) -> bytes:
        return json.dumps({**layout, **fields}).encode()

    return {
        "not JSON": b"{not json",
        "nested too deeply": b"[" * 100_000,
        "not an object": b"[1, 2]",
        "another format": changed(format="something-else"),
        "another version": changed(version=999),
        "no fingerprint": changed(fingerprint=""),
        "a ragged front": changed(front=[[1.0, 2.0], [3.0]]),
        "three objectives": changed(front=[[1.0, 2.0, 3.0]]),
        "NaN in the returns": changed(returns=[[float("nan"), 1.0]] * 3),
        "returns of another tile count": changed(returns=[[1.0, 2.0]] * 2),
        "an embedding in 3-D": changed(embedding=[[0.0, 0.0, 0.0]] * 3),
        "a label past the clusters": changed(labels=[0, 1, 2]),
        "a label that is no number": changed(labels=[0, 1, "1"]),
        "a boolean label": changed(labels=[0, 1, True]),
        "names that are not strings": changed(names=[1, 2]),
        "no tiles": changed(preferences=[], returns=[], embedding=[], labels=[]),
    }


@pytest.mark.parametrize("case", list(_bad_files(_layout().to_dict())))
def test_a_bad_file_is_skipped_for_the_next_folder(
    case: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad, cache = tmp_path / "bad", tmp_path / "cache"
    (bad / GALLERIES_SUBDIR).mkdir(parents=True)
    (bad / GALLERIES_SUBDIR / "k.json").write_bytes(_bad_files(_layout().to_dict())[case])
    layouts = GalleryLayouts([bad], cache)
    with caplog.at_level(logging.WARNING, "paretoscope.behaviour"):
        assert layouts.get("k", n_obj=2) is None
    assert "gallery layout" in caplog.text and "skipped" in caplog.text
    GalleryLayouts([], cache).put("k", _layout())
    got = layouts.get("k", n_obj=2)
    assert got is not None and got.fingerprint == "abc123"


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / GALLERIES_SUBDIR
    folder.mkdir()
    with open(folder / "k.json", "wb") as handle:
        handle.truncate(MOST_LAYOUT_BYTES + 1)  # sparse: no bytes written
    assert GalleryLayouts([tmp_path], None).get("k", n_obj=2) is None


def test_from_dict_names_the_problem() -> None:
    data = {**_layout().to_dict(), "labels": [0, 1, 5]}
    with pytest.raises(ParetoscopeError, match="labels: expected 3 cluster numbers below 2"):
        GalleryLayout.from_dict(data, n_obj=2)


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    GalleryLayouts([], blocked).put("k", _layout())  # logs, does not raise
    assert GalleryLayouts([], blocked).get("k", n_obj=2) is None


def test_every_input_changes_the_key() -> None:
    arguments = ("digest", "mo-halfcheetah-v5", {"granularity": 11}, 9, 0, 1000)
    base = layout_key(*arguments)
    assert base == layout_key(*arguments)
    changed = [
        ("other-digest", *arguments[1:]),
        (arguments[0], "mo-hopper-v5", *arguments[2:]),
        (*arguments[:2], {"granularity": 21}, *arguments[3:]),
        (*arguments[:2], None, *arguments[3:]),
        (*arguments[:3], 8, *arguments[4:]),
        (*arguments[:4], 1, arguments[5]),
        (*arguments[:5], 500),
    ]
    keys = {layout_key(*values) for values in changed}  # type: ignore[arg-type]
    assert len(keys) == len(changed) and base not in keys


def test_the_content_digest_of_a_file_and_of_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "weights.bin"
    file.write_bytes(b"\x00\x01weights")
    assert content_digest(file) == hashlib.sha256(b"\x00\x01weights").hexdigest()
    folder = tmp_path / "agent"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "sub" / "w").write_bytes(b"123")
    by_hand = hashlib.sha256(b"config.json{}sub/w123").hexdigest()
    assert content_digest(folder) == by_hand
    os.utime(folder / "config.json", (1, 1))  # touched: same content
    assert content_digest(folder) == by_hand
    (folder / "sub" / "w").rename(folder / "sub" / "v")  # a part renamed: another agent
    assert content_digest(folder) != by_hand
