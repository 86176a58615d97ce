"""A gallery's layout, saved beside its recordings: which agent it shows (the fingerprint), the
front, the tiles' preferences and returns and their behaviour clusters. With it a page draws a
recorded gallery at once, without loading the agent (torch) or reading its sweep first.

A layout is found by `layout_key`: the agent files' content digest and every setting the layout
depends on, so an agent file that changed is never shown another one's layout. Layouts live in
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
            "preferences": self.preferences.tolist(),
            "returns": self.returns.tolist(),
            "labels": list(self.labels),
            "names": list(self.names),
            "embedding": self.embedding.tolist(),
        }

    @classmethod
    def from_dict(cls, data: object, n_obj: int) -> GalleryLayout:
        """The layout in `data`, checked (shapes, finite numbers, labels naming a cluster);
        a `ParetoscopeError` saying what is wrong otherwise."""
        if not isinstance(data, Mapping):
            raise ParetoscopeError("not a JSON object")
        if data.get("format") != LAYOUT_FORMAT or data.get("version") != LAYOUT_VERSION:
            raise ParetoscopeError(f"not a {LAYOUT_FORMAT} of version {LAYOUT_VERSION}")
        fingerprint = data.get("fingerprint")
        if not isinstance(fingerprint, str) or not fingerprint:
            raise ParetoscopeError("fingerprint: expected a non-empty string")
        front = _matrix(data.get("front"), n_obj, "front")
        preferences = _matrix(data.get("preferences"), n_obj, "preferences")
        tiles = len(preferences)
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
        if not len(front) or not tiles:
            raise ParetoscopeError("an empty front or no tiles")
        return cls(fingerprint, front, preferences, returns, tuple(labels), tuple(names), embedding)


def _matrix(value: object, columns: int, name: str, rows: int | None = None) -> np.ndarray:
    """`value` as a finite float array of `columns` columns (and `rows` rows when given)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"{name}: expected a table of numbers") from None
    if array.ndim != 2 or array.shape[1] != columns or (rows is not None and len(array) != rows):
        expected = f"{'N' if rows is None else rows} × {columns}"
        raise ParetoscopeError(f"{name}: expected {expected} numbers, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ParetoscopeError(f"{name}: not every number is finite")
    return array


def layout_key(
    agent_digest: str,
    env_id: str,
    sweep: Mapping[str, Any] | None,
    tiles: int,
    seed: int,
    horizon: int,
) -> str:
    """The key of the layout of `tiles` tiles of the agent whose files' digest is
    `agent_digest` in `env_id`: its front is the sweep `sweep` (a plan's dict; None: the
    default), its clusters come from episodes of `seed` and `horizon` steps. The networks'
    arithmetic is part of it as it is of the agent's fingerprint: a layout never names a
    fingerprint the agent's files no longer have."""
    canonical = json.dumps(
        [
            LAYOUT_VERSION,
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

    def get(self, key: str, n_obj: int) -> GalleryLayout | None:
        for folder in [*self.read_dirs, *([self.write_dir] if self.write_dir else [])]:
            path = folder / GALLERIES_SUBDIR / f"{key}.json"
            try:
                if not path.is_file():
                    continue
                if path.stat().st_size > MOST_LAYOUT_BYTES:
                    raise ParetoscopeError(f"larger than {MOST_LAYOUT_BYTES} bytes")
                return GalleryLayout.from_dict(loads(path.read_bytes(), path), n_obj)
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
