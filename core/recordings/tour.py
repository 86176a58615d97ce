"""A tour: the preference swept from one extreme to the other, each stop's episode beside its
point moving on the front, as one video for a slide."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings.lanes import FrameCallback, RecordingWriter, expect_agents
from paretoscope.recordings.recording import Recording, recording_key

if TYPE_CHECKING:
    from paretoscope.rollout import StepRecord


@dataclass(frozen=True, eq=False)
class TourRequest:
    """A tour of one agent: `stops` (preferences, in order), `steps_per_stop` steps of each
    stop's episode, beside a panel of objectives `axes`.

    The panel's data (each stop's full-episode return, where its point glides to; the front
    behind them; the dataset's returns as a cloud) are known only after sweeps, so they are not
    part of the key: `panel_source` names where they come from (e.g. the sweep plan and the
    dataset) and `with_panel` adds them before recording."""

    fingerprint: str
    label: str
    env_id: str
    stops: np.ndarray
    seed: int
    size: int
    steps_per_stop: int
    every: int
    panel_source: str
    axes: tuple[int, int] = (0, 1)
    stop_returns: np.ndarray | None = field(default=None, repr=False)
    front: np.ndarray | None = field(default=None, repr=False)
    cloud: np.ndarray | None = field(default=None, repr=False)

    video_only = True  # a tour is its video

    def with_panel(
        self, stop_returns: np.ndarray, front: np.ndarray, cloud: np.ndarray | None = None
    ) -> TourRequest:
        """This tour with the panel's data (one return per stop)."""
        if len(stop_returns) != len(self.stops):
            raise ParetoscopeError(
                f"tour: expected one return per stop, got {len(self.stops)} stops and "
                f"{len(stop_returns)} returns"
            )
        return replace(self, stop_returns=stop_returns, front=front, cloud=cloud)

    def key(self) -> str:
        return recording_key(
            "tour",
            fingerprint=self.fingerprint,
            label=self.label,
            env=self.env_id,
            stops=np.asarray(self.stops, dtype=np.float64),
            panel_source=self.panel_source,
            seed=int(self.seed),
            size=int(self.size),
            steps_per_stop=int(self.steps_per_stop),
            every=int(self.every),
            axes=[int(axis) for axis in self.axes],
        )

    @property
    def frame_count(self) -> int:
        """Frames the tour will have (for a progress bar)."""
        return len(self.stops) * max(1, -(-self.steps_per_stop // self.every))

    def record(
        self, agents: Sequence[Agent], on_frame: FrameCallback | None = None, render: bool = True
    ) -> Recording:
        """The tour; each stop is a lane holding the rewards of the steps the video shows.
        Raises `RenderingUnavailable` when nothing renders (a tour is its video)."""
        from paretoscope.render import RenderingUnavailable
        from paretoscope.render.front_panel import FrontPanel
        from paretoscope.render.playback import playback_fps
        from paretoscope.render.tour import stop_label, tour_frames

        if not render:
            raise RenderingUnavailable("a tour is a video, and rendering was turned off")
        (agent,) = expect_agents(agents, 1, "a tour")
        if self.stop_returns is None or self.front is None:
            raise ParetoscopeError(
                "tour: the panel's data are missing (see TourRequest.with_panel)"
            )
        spec = get_spec(self.env_id)
        stops = np.asarray(self.stops, dtype=np.float64)
        stop_returns = np.asarray(self.stop_returns, dtype=np.float64)
        panel = FrontPanel(
            spec.objective_names,
            np.vstack(
                [np.asarray(self.front, dtype=np.float64).reshape(-1, spec.n_obj), stop_returns]
            ),
            self.size,
            axes=self.axes,
            cloud=self.cloud,
            title=self.label,
        )
        lanes = tuple(
            stop_label(index, len(stops), stop, spec.objective_names)
            for index, stop in enumerate(stops)
        )
        records: list[StepRecord | None] = [None] * len(stops)
        fps = playback_fps(self.env_id, self.every)
        with RecordingWriter(lanes, spec.n_obj, fps, on_frame) as writer:
            frames = tour_frames(
                agent,
                self.env_id,
                stops,
                stop_returns,
                panel,
                self.seed,
                self.size,
                self.steps_per_stop,
                self.every,
            )
            try:
                for index, frame, image in frames:
                    records[index] = frame.record
                    writer.add(image, records)
            finally:
                frames.close()
            return writer.finish(
                {
                    "kind": "tour",
                    "agent": self.label,
                    "env": self.env_id,
                    "stops": stops.tolist(),
                    "stop_returns": stop_returns.tolist(),
                    "seed": int(self.seed),
                    "every": int(self.every),
                }
            )
