"""`record`: one episode of an agent at a preference, as an MP4 a notebook plays inline.

The episode is rolled out, drawn and encoded by `paretoscope.recordings.video_file`
(`render_video_file`), exactly as ``paretoscope render`` writes its file: the same frames, frame
rate and returns for the same agent, env, preference, target, seed and size.
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paretoscope.api.agents import AgentSource, resolve_agent
from paretoscope.api.arguments import integer
from paretoscope.errors import ParetoscopeError
from paretoscope.text import numbers

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent

__all__ = ["Recording", "record"]


@dataclass(frozen=True, eq=False)
class Recording:
    """One recorded episode: its video and what it collected.

    Attributes
    ----------
    env : str
        The environment id.
    agent : str
        The agent's name (a path's last part, or its kind).
    preference : tuple of float
        The weights per objective the agent acted on.
    target : tuple of float or None
        The initial return-to-go target asked for (None: the agent's own).
    seed : int
        The episode seed.
    returns : numpy.ndarray
        The episode's return per objective (undiscounted), shape (n_obj,).
    length : int
        The env steps the episode took.
    fps : float
        The video's frame rate (a short episode is slowed down to last a few seconds).
    frames : int
        The frames in the video: every drawn step (every K-th step of a fast MuJoCo task).
    mp4 : bytes
        The H.264 MP4 file.
    """

    env: str
    agent: str
    preference: tuple[float, ...]
    target: tuple[float, ...] | None
    seed: int
    returns: np.ndarray
    length: int
    fps: float
    frames: int
    mp4: bytes

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the video to `path` (an ``.mp4`` file, replaced atomically); returns the path.

        Raises
        ------
        ParetoscopeError
            When `path` does not end in ``.mp4``.
        """
        from paretoscope.atomic import write_bytes_atomically

        location = Path(path)
        if location.suffix.lower() != ".mp4":
            raise ParetoscopeError(f"path: expected an .mp4 file name, got {location}")
        write_bytes_atomically(location, self.mp4)
        return location

    def __repr__(self) -> str:
        return (
            f"Recording(env={self.env!r}, agent={self.agent!r}, "
            f"preference=({numbers(self.preference)}), seed={self.seed}, length={self.length}, "
            f"returns=({numbers(self.returns)}), mp4={len(self.mp4)} bytes)"
        )

    def _repr_html_(self) -> str:
        """A playable video, the MP4 inline as a data URL (nothing fetched from elsewhere)."""
        data = base64.b64encode(self.mp4).decode("ascii")
        caption = html.escape(
            f"{self.agent} on {self.env} at preference ({numbers(self.preference)}), seed "
            f"{self.seed}: {self.length} steps, return ({numbers(self.returns)})"
        )
        return (
            f"<figure style='margin:0'><video controls loop playsinline "
            f"src='data:video/mp4;base64,{data}'></video>"
            f"<figcaption>{caption}</figcaption></figure>"
        )


def record(
    agent: Agent | AgentSource,
    env: str | None,
    preference: Sequence[float] | np.ndarray,
    target: Sequence[float] | np.ndarray | None = None,
    seed: int = 0,
    size: tuple[int, int] = (320, 320),
    *,
    progress: bool = False,
) -> Recording:
    """Roll an agent out once at a preference and record the episode as a video.

    Parameters
    ----------
    agent : Agent, str or path
        An agent object, or anything `paretoscope.load_agent` accepts.
    env : str or None
        The environment id; None for the agent's own.
    preference : sequence of float
        One weight per objective, non-negative, summing to 1 (e.g. ``[0.3, 0.7]``).
    target : sequence of float, optional
        The initial return-to-go target per objective, for return-conditioned agents
        (``paretoscope render --target``); default the agent's own for the preference.
    seed : int, default 0
        The episode seed.
    size : (int, int), default (320, 320)
        Frame width and height in pixels (an env that draws itself keeps its picture's aspect
        ratio at about that area).
    progress : bool, default False
        Show a progress bar while the episode is drawn and encoded.

    Returns
    -------
    Recording
        ``.returns``, ``.length``, ``.mp4`` and ``.save(path)``; shown in Jupyter as a video.

    Raises
    ------
    ParetoscopeError
        For an unknown env, an agent that does not fit it, a preference that is not one
        non-negative weight per objective summing to 1, a target that is not one finite
        number per objective, or a bad size or seed.
    """
    from paretoscope.envs import get_spec
    from paretoscope.metrics.preferences import check_preference, check_vector
    from paretoscope.render.size import check_size
    from paretoscope.settings import RecordingSettings

    if env is not None and get_spec(env).camera is not None:
        # Choose the GL backend before anything imports mujoco, as `paretoscope render` does.
        from paretoscope.render import ensure_gl_backend

        ensure_gl_backend()
    loaded, env_id, name = resolve_agent(agent, env)
    spec = get_spec(env_id)
    weights = check_preference(preference, spec.n_obj, "preference")
    goal = None if target is None else check_vector(target, spec.n_obj, "target")
    settings = RecordingSettings(seed=integer("seed", seed), size=check_size(size))
    from paretoscope.recordings.video_file import render_video_file

    with tempfile.TemporaryDirectory(prefix="paretoscope-record-") as folder:
        video = render_video_file(
            loaded,
            env_id,
            weights,
            goal,
            settings,
            Path(folder) / "episode.mp4",
            progress=progress,
        )
        mp4 = video.path.read_bytes()
    return Recording(
        env=env_id,
        agent=name or str(loaded.spec.kind),
        preference=tuple(weights),
        target=None if goal is None else tuple(goal),
        seed=settings.seed,
        returns=np.asarray(video.returns, dtype=np.float64),
        length=video.steps,
        fps=video.fps,
        frames=video.frames,
        mp4=mp4,
    )
