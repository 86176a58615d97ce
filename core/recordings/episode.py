"""A single episode: one agent at one preference (and target), rendered as it runs."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.pacing.scheduler import Kind
from paretoscope.recordings.lanes import (
    FrameCallback,
    RecordingWriter,
    episode_lane,
    expect_agents,
    playback_rate,
)
from paretoscope.recordings.recording import Recording, recording_key

if TYPE_CHECKING:
    from paretoscope.pacing.gate import FrameGate
    from paretoscope.pacing.share import CoreShare


@dataclass(frozen=True)
class EpisodeRequest:
    """One episode: which agent (by fingerprint), where, at which preference, target and seed,
    how big and how long; a frame every `every` steps."""

    fingerprint: str
    env_id: str
    preference: tuple[float, ...]
    target: tuple[float, ...] | None
    seed: int
    size: int
    horizon: int
    every: int
    label: str = field(default="agent", compare=False)  # the lane's name; not in the key

    video_only = False  # without rendering, the returns are still recorded

    def key(self) -> str:
        return recording_key(
            "episode",
            fingerprint=self.fingerprint,
            env=self.env_id,
            preference=list(self.preference),
            target=None if self.target is None else list(self.target),
            seed=int(self.seed),
            size=int(self.size),
            horizon=int(self.horizon),
            every=int(self.every),
        )

    def meta(self) -> dict[str, Any]:
        return {
            "kind": "episode",
            "agent": self.label,
            "env": self.env_id,
            "preference": list(self.preference),
            "target": None if self.target is None else list(self.target),
            "seed": int(self.seed),
            "every": int(self.every),
        }

    def record(
        self, agents: Sequence[Agent], on_frame: FrameCallback | None = None, render: bool = True
    ) -> Recording:
        """The episode, frame by frame through `on_frame`; without `render`, every step and no
        video. Raises `RenderingUnavailable` (before the first step) when nothing renders."""
        (agent,) = expect_agents(agents, 1, "an episode")
        return record_one_lane(
            agent,
            self.env_id,
            self.label,
            np.asarray(self.preference, dtype=np.float64),
            None if self.target is None else np.asarray(self.target, dtype=np.float64),
            self.seed,
            self.size,
            self.horizon,
            self.every,
            self.meta(),
            on_frame,
            render,
        )

    def record_live(
        self,
        agents: Sequence[Agent],
        gate: FrameGate,
        on_frame: FrameCallback | None,
        check: Callable[[], None],
        kind: Kind = Kind.LIVE,
        share: CoreShare | None = None,
        smooth: bool | None = None,
        first: int = 0,
    ) -> Recording:
        """The same episode paced to its viewer: each frame drawn when `gate` grants it
        (`paretoscope.recordings.paced`); `check` raises once nobody watches. `Kind.IDLE`: every
        frame, whenever nothing else wants a worker. `share`: the core share its simulation
        ahead runs within (None: the process's). `smooth`: anti-aliased frames or not (None:
        `record_paced` chooses). `first`: the first frame drawn (a stream resumed there; the
        video holds its picture over the frames before it)."""
        from paretoscope.recordings.paced import record_paced

        (agent,) = expect_agents(agents, 1, "an episode")
        return record_paced(self, agent, gate, on_frame, check, kind, share, smooth, first)


def record_one_lane(
    agent: Agent,
    env_id: str,
    label: str,
    preference: np.ndarray,
    target: np.ndarray | None,
    seed: int,
    size: int,
    horizon: int,
    every: int,
    meta: dict[str, Any],
    on_frame: FrameCallback | None,
    render: bool,
) -> Recording:
    """One agent's episode as a one-lane recording (a single episode, a replayed trajectory)."""
    fps = playback_rate(env_id, every, render)
    with RecordingWriter((label,), get_spec(env_id).n_obj, fps, on_frame) as writer:
        lane = episode_lane(agent, env_id, preference, seed, target, every, size, horizon, render)
        with contextlib.closing(lane):
            for record, frame in lane:
                writer.add(None if frame is None else frame.frame, (record,))
        return writer.finish({**meta, "every": every if render else 1})
