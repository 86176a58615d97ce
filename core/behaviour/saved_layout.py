"""A gallery's layout, saved beside its recordings: which agent it shows (the fingerprint), the
front, the tiles' preferences and returns and their behaviour clusters. With it a page draws a
recorded gallery at once, without loading the agent (torch) or reading its sweep first.

A layout is found by `layout_key`: the agent files' content digest and every setting the layout
depends on, so an agent file that changed is never shown another one's layout. The fingerprint
also depends on how this code reads a checkpoint: the key holds paretoscope's version and the
networks' arithmetic version, and a page that loads the agent anyway (to record a missing tile)
checks the fingerprint and drops a layout that names another. Layouts live in
``galleries/`` under the recording folders (read-only ones first, e.g. an assets folder's
``rollouts/``, then the cache, which receives new ones). A file that does not read as a layout
for the env is skipped (logged): the page then computes the layout itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope import __version__
from paretoscope.agents.arithmetic import ARITHMETIC_VERSION
from paretoscope.atomic import write_bytes_atomically
from paretoscope.errors import ParetoscopeError
from paretoscope.jsonfile import loads

log = logging.getLogger("paretoscope.behaviour")

LAYOUT_FORMAT = "paretoscope-gallery-layout"
# Bumped whenever the tiles' choice, the behaviour descriptors or the clustering change: older
# layouts stop matching instead of showing what this code would not choose.
LAYOUT_VERSION = 1
GALLERIES_SUBDIR = "galleries"
# Larger than any real layout (a front of tens of thousands of points): past it, not read.
MOST_LAYOUT_BYTES = 8 * 2**20


@dataclass(frozen=True)
class GalleryLayout:
    """What a gallery shows of one agent, apart from the videos."""

    fingerprint: str  # the agent's (its recordings' keys hold it)
    front: np.ndarray  # (points, n_obj): the sweep's mean returns per preference
    rows: np.ndarray  # (tiles,): the tiles' rows of the front
    preferences: np.ndarray  # (tiles, n_obj), in order along the front
    returns: np.ndarray  # (tiles, n_obj): the sweep's mean returns at them
    labels: tuple[int, ...]  # each tile's behaviour cluster
    names: tuple[str, ...]  # each cluster's name
    embedding: np.ndarray  # (tiles, 2): the tiles' behaviour in two dimensions

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": LAYOUT_FORMAT,
            "version": LAYOUT_VERSION,
            "fingerprint": self.fingerprint,
            "front": self.front.tolist(),
            "rows": self.rows.tolist(),
            "preferences": self.preferences.tolist(),
            "returns": self.returns.tolist(),
            "labels": list(self.labels),
            "names": list(self.names),
            "embedding": self.embedding.tolist(),
        }

    @classmethod
    def from_dict(cls, data: object, n_obj: int, most_tiles: int) -> GalleryLayout:
        """The layout in `data`, checked (shapes, finite numbers, 1 to `most_tiles` tiles,
        rows of the front, preferences on the simplex, labels naming a cluster); a
        `ParetoscopeError` saying what is wrong otherwise."""
        if not isinstance(data, Mapping):
            raise ParetoscopeError("not a JSON object")
        if data.get("format") != LAYOUT_FORMAT or data.get("version") != LAYOUT_VERSION:
            raise ParetoscopeError(f"not a {LAYOUT_FORMAT} of version {LAYOUT_VERSION}")
        fingerprint = data.get("fingerprint")
        if not isinstance(fingerprint, str) or not fingerprint:
            raise ParetoscopeError("fingerprint: expected a non-empty string")
        rows = data.get("rows")
        if not isinstance(rows, list) or not 1 <= len(rows) <= most_tiles:
            raise ParetoscopeError(f"rows: expected 1 to {most_tiles} tiles")
        tiles = len(rows)
        front = _matrix(data.get("front"), n_obj, "front")
        if not all(type(row) is int and 0 <= row < len(front) for row in rows):
            raise ParetoscopeError(f"rows: expected rows of the front's {len(front)} points")
        preferences = _matrix(data.get("preferences"), n_obj, "preferences", rows=tiles)
        if (preferences < 0).any() or not np.allclose(preferences.sum(axis=1), 1.0, atol=1e-6):
            raise ParetoscopeError("preferences: expected non-negative weights summing to 1")
        returns = _matrix(data.get("returns"), n_obj, "returns", rows=tiles)
        embedding = _matrix(data.get("embedding"), 2, "embedding", rows=tiles)
        names = data.get("names")
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise ParetoscopeError("names: expected a list of strings")
        labels = data.get("labels")
        if (
            not isinstance(labels, list)
            or len(labels) != tiles
            or not all(type(label) is int and 0 <= label < len(names) for label in labels)
        ):
            raise ParetoscopeError(f"labels: expected {tiles} cluster numbers below {len(names)}")
        return cls(
            fingerprint,
            front,
            np.asarray(rows, dtype=np.int64),
            preferences,
            returns,
            tuple(labels),
            tuple(names),
            embedding,
        )


def _matrix(value: object, columns: int, name: str, rows: int | None = None) -> np.ndarray:
    """`value` (lists of JSON numbers) as a finite float array of `columns` columns (and `rows`
    rows when given)."""
    expected = f"{'N' if rows is None else rows} × {columns} numbers"
    if (
        not isinstance(value, list)
        or (rows is not None and len(value) != rows)
        or not all(isinstance(row, list) and len(row) == columns for row in value)
    ):
        raise ParetoscopeError(f"{name}: expected {expected}")
    if not all(type(number) in (int, float) for row in value for number in row):
        raise ParetoscopeError(f"{name}: expected numbers only")
    try:
        array = np.asarray(value, dtype=np.float64).reshape(len(value), columns)
    except OverflowError:  # an integer past a double's range
        raise ParetoscopeError(f"{name}: a number out of range") from None
    if not len(array) or not np.isfinite(array).all():
        raise ParetoscopeError(f"{name}: expected {expected}, all finite")
    return array


def layout_key(
    agent_digest: str,
    env_id: str,
    sweep: Mapping[str, Any],
    tiles: int,
    seed: int,
    horizon: int,
) -> str:
    """The key of the layout of `tiles` tiles of the agent whose files' digest is
    `agent_digest` in `env_id`: its front is the sweep `sweep` (its plan's dict), its clusters
    come from episodes of `seed` and `horizon` steps. This code's versions (the layout's,
    paretoscope's and the networks' arithmetic's) are part of it, as they decide the tiles and
    the agent's fingerprint."""
    canonical = json.dumps(
        [
            LAYOUT_VERSION,
            __version__,
            ARITHMETIC_VERSION,
            agent_digest,
            env_id,
            sweep,
            int(tiles),
            int(seed),
            int(horizon),
        ],
        sort_keys=True,
        separators=(",", ":"),
    )
    return "gallery-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


class GalleryLayouts:
    """Layouts by key in folders: the read-only `read_dirs` first, then `write_dir`, which
    `put` writes (a folder that cannot be written only logs: the page works without)."""

    def __init__(self, read_dirs: Sequence[Path], write_dir: Path | None) -> None:
        self.read_dirs = list(read_dirs)
        self.write_dir = write_dir

    def get(self, key: str, n_obj: int, most_tiles: int) -> GalleryLayout | None:
        """The layout saved under `key` for an env of `n_obj` objectives and at most
        `most_tiles` tiles; None when there is none that reads as one."""
        for folder in [*self.read_dirs, *([self.write_dir] if self.write_dir else [])]:
            path = folder / GALLERIES_SUBDIR / f"{key}.json"
            try:
                if not path.is_file():
                    continue
                if path.stat().st_size > MOST_LAYOUT_BYTES:
                    raise ParetoscopeError(f"larger than {MOST_LAYOUT_BYTES} bytes")
                return GalleryLayout.from_dict(loads(path.read_bytes(), path), n_obj, most_tiles)
            except (OSError, ParetoscopeError) as error:
                log.warning("gallery layout %s skipped: %s", path, error)
        return None

    def put(self, key: str, layout: GalleryLayout) -> None:
        if self.write_dir is None:
            return
        folder = self.write_dir / GALLERIES_SUBDIR
        try:
            folder.mkdir(parents=True, exist_ok=True)
            payload = json.dumps(layout.to_dict(), allow_nan=False).encode("utf-8")
            write_bytes_atomically(folder / f"{key}.json", payload)
        except (OSError, ValueError) as error:
            log.warning("gallery layout %s not saved: %s", key, error)
