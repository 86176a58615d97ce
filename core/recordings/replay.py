"""A dataset trajectory replayed: its stored actions played open loop from the env's reset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.agents.replay import ReplayAgent
from paretoscope.recordings.episode import record_one_lane
from paretoscope.recordings.lanes import FrameCallback, expect_agents
from paretoscope.recordings.recording import Recording, array_digest, recording_key


@dataclass(frozen=True, eq=False)
class ReplayRequest:
    """Trajectory `trajectory` of `dataset` (any stable name of it, e.g. its path), replayed
    from the reset of `seed` (the one its collection used, when known)."""

    dataset: str
    trajectory: int
    env_id: str
    actions: np.ndarray = field(repr=False)
    preference: tuple[float, ...]
    seed: int
    size: int
    every: int
    label: str = "trajectory"

    video_only = False

    @property
    def horizon(self) -> int:
        return int(len(self.actions))

    def key(self) -> str:
        return recording_key(
            "replay",
            dataset=self.dataset,
            trajectory=int(self.trajectory),
            actions=array_digest(self.actions),
            env=self.env_id,
            seed=int(self.seed),
            size=int(self.size),
            every=int(self.every),
        )

    def record(
        self,
        agents: Sequence[Agent] = (),
        on_frame: FrameCallback | None = None,
        render: bool = True,
    ) -> Recording:
        """The replay (it needs no agent: the stored actions act)."""
        expect_agents(agents, 0, "a replay")
        return record_one_lane(
            ReplayAgent(self.env_id, self.actions),
            self.env_id,
            self.label,
            np.asarray(self.preference, dtype=np.float64),
            None,
            self.seed,
            self.size,
            self.horizon,
            self.every,
            {
                "kind": "replay",
                "dataset": self.dataset,
                "trajectory": int(self.trajectory),
                "env": self.env_id,
                "seed": int(self.seed),
            },
            on_frame,
            render,
        )
