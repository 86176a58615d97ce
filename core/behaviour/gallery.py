"""The gallery: a few policies spread along an agent's front, and all of them as one labelled
video grid (`paretoscope render --gallery N`).

The front comes from one episode per preference of a grid (`paretoscope.rollout`), or from
returns the caller already has (a stored sweep); `spread_selection` picks the tiles and they
are shown in order along the front (by the first objective).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.behaviour.spread import spread_selection
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import RecordingSettings

DEFAULT_TILES = 9
MAX_TILES = 16
# Preferences tried per tile when the front has to be found first.
CANDIDATES_PER_TILE = 2
MIN_CANDIDATES = 21


def check_tile_count(count: object, option: str = "tiles") -> int:
    """`count` when it is a whole number from 1 to `MAX_TILES`, else a clear error."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise ParetoscopeError(f"{option}: expected a whole number from 1 to {MAX_TILES}")
    if not 1 <= int(count) <= MAX_TILES:
        raise ParetoscopeError(f"{option}: expected 1 to {MAX_TILES} tiles, got {count}")
    return int(count)


@dataclass(frozen=True)
class GalleryTiles:
    """The chosen policies, in order along the front."""

    preferences: np.ndarray  # (N, n_obj)
    returns: np.ndarray  # (N, n_obj)
    rows: np.ndarray  # (N,) rows of the candidates they came from


def pick_tiles(preferences: object, returns: object, count: int) -> GalleryTiles:
    """`count` of the candidate (preference, returns) rows spread along their front, ordered
    by the first objective (then the next ones)."""
    count = check_tile_count(count)
    prefs = np.asarray(preferences, dtype=np.float64)
    points = np.asarray(returns, dtype=np.float64)
    if prefs.ndim != 2 or prefs.shape != points.shape:
        raise ParetoscopeError(
            f"gallery: expected preferences and returns of one shape (N, objectives), got "
            f"{prefs.shape} and {points.shape}"
        )
    rows = spread_selection(points, count)
    rows = rows[np.lexsort(points[rows].T[::-1])]
    return GalleryTiles(prefs[rows], points[rows], rows)


def candidate_preferences(n_obj: int, count: int) -> np.ndarray:
    """A preference grid with at least `CANDIDATES_PER_TILE` rows per tile."""
    from paretoscope.metrics.preferences import preference_grid

    wanted = max(MIN_CANDIDATES, CANDIDATES_PER_TILE * count)
    granularity = 1
    while math.comb(granularity + n_obj - 1, n_obj - 1) < wanted:
        granularity += 1
    return preference_grid(n_obj, granularity)


def front_tiles(
    agent: Agent, env_id: str, count: int, seed: int = 0, horizon: int | None = None
) -> GalleryTiles:
    """Roll `agent` out once per candidate preference (seed `seed`) and pick the tiles."""
    from paretoscope.envs import get_spec
    from paretoscope.rollout import rollout_batch

    preferences = candidate_preferences(get_spec(env_id).n_obj, check_tile_count(count))
    seeds = np.full(len(preferences), int(seed))
    rollout = rollout_batch(agent, env_id, preferences, seeds, horizon=horizon)
    return pick_tiles(preferences, rollout.returns, count)


def tile_caption(
    preference: Sequence[float], returns: Sequence[float], names: Sequence[str]
) -> tuple[str, ...]:
    """A tile's two lines: its preference and its returns."""
    weights = ", ".join(f"{value:.2f}" for value in preference)
    values = ", ".join(f"{name} {value:.0f}" for name, value in zip(names, returns, strict=True))
    return (f"w ({weights})", values)


@dataclass(frozen=True)
class GalleryVideo:
    path: Path
    tiles: GalleryTiles  # the returns the rendered episodes collected
    grid: tuple[int, int]  # (rows, columns)
    fps: float


def render_gallery_file(
    agent: Agent,
    env_id: str,
    count: int,
    settings: RecordingSettings,
    out: str | Path,
    progress: bool = True,
) -> GalleryVideo:
    """Pick `count` tiles along `agent`'s front, render each episode (`settings`: seed, tile
    size, stride, horizon) and write them as one labelled grid video `out` (.mp4)."""
    from tqdm import tqdm

    from paretoscope.envs import get_spec
    from paretoscope.recordings.video_file import render_video_file
    from paretoscope.video import (
        LabelledFrame,
        decoded_frames,
        encode_mp4,
        grid_shape,
        tile_videos,
    )

    path = Path(out)
    if path.suffix.lower() != ".mp4":
        raise ParetoscopeError(f"out: a gallery is written as an .mp4 file, got {path}")
    spec = get_spec(env_id)
    tiles = front_tiles(agent, env_id, count, settings.seed, settings.horizon)
    with tempfile.TemporaryDirectory(prefix="paretoscope-gallery-") as folder:
        videos = []
        bar = tqdm(total=len(tiles.rows), unit="tile", desc="gallery", disable=not progress)
        with bar:
            for index, preference in enumerate(tiles.preferences):
                tile = Path(folder) / f"tile{index}.mp4"
                videos.append(
                    render_video_file(agent, env_id, preference, None, settings, tile, False)
                )
                bar.update(1)
        returns = np.stack([video.returns for video in videos])
        shown = GalleryTiles(tiles.preferences, returns, tiles.rows)
        labelled = [
            (
                LabelledFrame(frame, tile_caption(preference, values, spec.objective_names))
                for frame in decoded_frames(video.path)
            )
            for video, preference, values in zip(videos, tiles.preferences, returns, strict=True)
        ]
        fps = min(video.fps for video in videos)
        encode_mp4(tile_videos(labelled), fps, path)
    return GalleryVideo(path, shown, grid_shape(len(videos)), fps)
