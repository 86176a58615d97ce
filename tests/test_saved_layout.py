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
    rows = np.arange(tiles) * 2
    return GalleryLayout(
        fingerprint="abc123",
        front=front,
        rows=rows,
        preferences=rng.dirichlet([1.0, 1.0], size=tiles),
        returns=front[rows],
        labels=tuple(index % 2 for index in range(tiles)),
        names=("fast", "slow"),
        embedding=rng.normal(size=(tiles, 2)),
    )


def _same(a: GalleryLayout, b: GalleryLayout) -> None:
    assert a.fingerprint == b.fingerprint
    assert (a.labels, a.names) == (b.labels, b.names)
    for field in ("front", "rows", "preferences", "returns", "embedding"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_a_layout_put_is_the_layout_got(tmp_path: Path) -> None:
    layouts = GalleryLayouts([], tmp_path / "cache")
    layout = _layout()
    assert layouts.get("k", n_obj=2, most_tiles=9) is None
    layouts.put("k", layout)
    got = layouts.get("k", n_obj=2, most_tiles=9)
    assert got is not None
    _same(got, layout)
    # Floats survive exactly (JSON keeps the shortest repr that reads back the same double).
    assert got.front.dtype == np.float64


def test_read_only_folders_come_first(tmp_path: Path) -> None:
    shipped, cache = tmp_path / "shipped", tmp_path / "cache"
    GalleryLayouts([], shipped).put("k", _layout())
    other = GalleryLayout(**{**_layout().__dict__, "fingerprint": "from-the-cache"})
    GalleryLayouts([], cache).put("k", other)
    got = GalleryLayouts([shipped], cache).get("k", n_obj=2, most_tiles=9)
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
        "an empty front": changed(front=[]),
        "a number as text": changed(front=[["1", 2.0]] * 7),
        "a boolean as a number": changed(front=[[True, 2.0]] * 7),
        "an integer past a double": changed(front=[[10**400, 2.0]] * 7),
        "an integer too long to read": changed(front="FRONT").replace(
            b'"FRONT"', b"[[" + b"9" * 5000 + b", 1.0]]"
        ),
        "a row past the front": changed(rows=[0, 2, 7]),
        "more tiles than asked for": changed(
            rows=list(range(7)) * 2, preferences=[[0.5, 0.5]] * 14, returns=[[0.0, 0.0]] * 14
        ),
        "a negative weight": changed(preferences=[[1.5, -0.5]] * 3),
        "weights not summing to one": changed(preferences=[[0.5, 0.6]] * 3),
        "three objectives": changed(front=[[1.0, 2.0, 3.0]]),
        "NaN in the returns": changed(returns=[[float("nan"), 1.0]] * 3),
        "returns of another tile count": changed(returns=[[1.0, 2.0]] * 2),
        "an embedding in 3-D": changed(embedding=[[0.0, 0.0, 0.0]] * 3),
        "a label past the clusters": changed(labels=[0, 1, 2]),
        "a label that is no number": changed(labels=[0, 1, "1"]),
        "a boolean label": changed(labels=[0, 1, True]),
        "names that are not strings": changed(names=[1, 2]),
        "no tiles": changed(rows=[], preferences=[], returns=[], embedding=[], labels=[]),
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
        assert layouts.get("k", n_obj=2, most_tiles=9) is None
    assert "gallery layout" in caplog.text and "skipped" in caplog.text
    GalleryLayouts([], cache).put("k", _layout())
    got = layouts.get("k", n_obj=2, most_tiles=9)
    assert got is not None and got.fingerprint == "abc123"


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / GALLERIES_SUBDIR
    folder.mkdir()
    with open(folder / "k.json", "wb") as handle:
        handle.truncate(MOST_LAYOUT_BYTES + 1)  # sparse: no bytes written
    assert GalleryLayouts([tmp_path], None).get("k", n_obj=2, most_tiles=9) is None


def test_from_dict_names_the_problem() -> None:
    data = {**_layout().to_dict(), "labels": [0, 1, 5]}
    with pytest.raises(ParetoscopeError, match="labels: expected 3 cluster numbers below 2"):
        GalleryLayout.from_dict(data, n_obj=2, most_tiles=9)


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    GalleryLayouts([], blocked).put("k", _layout())  # logs, does not raise
    assert GalleryLayouts([], blocked).get("k", n_obj=2, most_tiles=9) is None


def test_every_input_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from paretoscope.behaviour import saved_layout

    arguments = ("digest", "mo-halfcheetah-v5", {"granularity": 11}, 9, 0, 1000)
    base = layout_key(*arguments)
    assert base == layout_key(*arguments)
    changed = [
        ("other-digest", *arguments[1:]),
        (arguments[0], "mo-hopper-v5", *arguments[2:]),
        (*arguments[:2], {"granularity": 21}, *arguments[3:]),
        (*arguments[:3], 8, *arguments[4:]),
        (*arguments[:4], 1, arguments[5]),
        (*arguments[:5], 500),
    ]
    keys = {layout_key(*values) for values in changed}  # type: ignore[arg-type]
    # ... and this code's versions: the layout's, paretoscope's and the arithmetic's.
    for name, value in [
        ("LAYOUT_VERSION", 2),
        ("__version__", "9.9.9"),
        ("ARITHMETIC_VERSION", "another"),
    ]:
        with monkeypatch.context() as patched:
            patched.setattr(saved_layout, name, value)
            keys.add(layout_key(*arguments))
    assert len(keys) == len(changed) + 3 and base not in keys


def _framed(*parts: bytes) -> bytes:
    """`parts`, each preceded by its length (8 bytes, little-endian)."""
    return b"".join(len(part).to_bytes(8, "little") + part for part in parts)


def test_the_content_digest_of_a_file_and_of_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "weights.bin"
    file.write_bytes(b"\x00\x01weights")
    assert content_digest(file) == hashlib.sha256(_framed(b"\x00\x01weights")).hexdigest()
    folder = tmp_path / "agent"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "sub" / "w").write_bytes(b"123")
    by_hand = hashlib.sha256(_framed(b"config.json", b"{}", b"sub/w", b"123")).hexdigest()
    assert content_digest(folder) == by_hand
    os.utime(folder / "config.json", (1, 1))  # touched: same content
    assert content_digest(folder) == by_hand
    (folder / "sub" / "w").rename(folder / "sub" / "v")  # a part renamed: another agent
    assert content_digest(folder) != by_hand


def test_moving_bytes_between_a_name_and_a_file_changes_the_digest(tmp_path: Path) -> None:
    one, other = tmp_path / "one", tmp_path / "other"
    one.mkdir()
    other.mkdir()
    (one / "a").write_bytes(b"bX")
    (other / "ab").write_bytes(b"X")
    assert content_digest(one) != content_digest(other)
