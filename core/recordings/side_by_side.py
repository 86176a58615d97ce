"""Several agents side by side at one preference: their episodes in lockstep in one video,
each tile labelled, each agent's returns kept in its own lane."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings.lanes import (
    FrameCallback,
    RecordingWriter,
    episode_lane,
    expect_agents,
    playback_rate,
)
from paretoscope.recordings.recording import Recording, recording_key

if TYPE_CHECKING:
    from paretoscope.render.frames import FrameRecord
    from paretoscope.rollout import StepRecord


@dataclass(frozen=True)
class SideBySideRequest:
    """Agents (fingerprints, with the labels their tiles show) at one preference and seed."""

    fingerprints: tuple[str, ...]
    labels: tuple[str, ...]
    env_id: str
    preference: tuple[float, ...]
    seed: int
    size: int
    horizon: int
    every: int
    columns: int | None = None

    video_only = False

    def __post_init__(self) -> None:
        if len(self.fingerprints) != len(self.labels):
            raise ParetoscopeError(
                f"side by side: {len(self.fingerprints)} agents but {len(self.labels)} labels"
            )
        if len(self.fingerprints) < 1:
            raise ParetoscopeError("side by side: expected at least one agent")

    def key(self) -> str:
        return recording_key(
            "side_by_side",
            fingerprints=list(self.fingerprints),
            labels=list(self.labels),
            env=self.env_id,
            preference=list(self.preference),
            seed=int(self.seed),
            size=int(self.size),
            horizon=int(self.horizon),
            every=int(self.every),
            columns=self.columns,
        )

    def record(
        self, agents: Sequence[Agent], on_frame: FrameCallback | None = None, render: bool = True
    ) -> Recording:
        """The agents' episodes in lockstep (an episode that ends holds its last frame and
        return); without `render`, every step and no video."""
        expect_agents(agents, len(self.fingerprints), "this side-by-side video")
        preference = np.asarray(self.preference, dtype=np.float64)
        fps = playback_rate(self.env_id, self.every, render)
        n_obj = get_spec(self.env_id).n_obj
        latest: list[StepRecord | None] = [None] * len(agents)
        lanes = [
            episode_lane(
                agent,
                self.env_id,
                preference,
                self.seed,
                None,
                self.every,
                self.size,
                self.horizon,
                render,
            )
            for agent in agents
        ]

        def tracked(index: int) -> Generator[FrameRecord | None, None, None]:
            for record, frame in lanes[index]:
                latest[index] = record
                yield frame

        def rendered(index: int) -> Generator[FrameRecord, None, None]:
            for frame in tracked(index):
                assert frame is not None  # the lanes render
                yield frame

        meta = {
            "kind": "side_by_side",
            "env": self.env_id,
            "preference": list(self.preference),
            "seed": int(self.seed),
            "every": int(self.every) if render else 1,
        }
        with (
            RecordingWriter(self.labels, n_obj, fps, on_frame) as writer,
            contextlib.ExitStack() as stack,
        ):
            for lane in lanes:
                stack.callback(lane.close)
            if render:
                from paretoscope.render.frames import side_by_side

                tiles = side_by_side(
                    [rendered(index) for index in range(len(lanes))],
                    list(self.labels),
                    self.env_id,
                    columns=self.columns,
                )
                with contextlib.closing(tiles):
                    for image in tiles:
                        writer.add(image, tuple(latest))
            else:
                streams = [tracked(index) for index in range(len(lanes))]
                running = [True] * len(streams)
                while True:
                    for index, stream in enumerate(streams):
                        if running[index] and next(stream, StopIteration) is StopIteration:
                            running[index] = False
                    if not any(running):
                        break
                    writer.add(None, tuple(latest))
            return writer.finish(meta)
