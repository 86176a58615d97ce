"""The episodes a report shows as videos: which ones (each agent's extremes and knee by
default) and their recording through `paretoscope render`'s path
(`paretoscope.recordings.render_video_file`)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paretoscope.decision import knee_point
from paretoscope.metrics import non_dominated
from paretoscope.recordings import render_video_file
from paretoscope.render.playback import default_every
from paretoscope.report.content import Findings
from paretoscope.settings import RecordingSettings

# The report's videos: small frames, at most 10 per second of real time (`default_every`),
# and x264's smaller files for a little more time: twelve HalfCheetah episodes of 500 steps
# then take ~5 MB (about 0.4 MB each). Edges are not anti-aliased: at this size and
# compression the difference hardly shows, and a MuJoCo frame costs a third of the CPU.
VIDEO_SIZE = (320, 240)
VIDEO_FPS = 10.0
VIDEO_PRESET = "superfast"
VIDEO_CRF = 32
VIDEO_SMOOTH = False


@dataclass(frozen=True)
class EpisodeChoice:
    """One front point of an agent to show: why (`role`: "best <objective>", "knee", "front
    point"), its preference, its target when the sweep set one, and the seed."""

    findings: Findings
    row: int
    role: str
    preference: tuple[float, ...]
    target: tuple[float, ...] | None
    seed: int


@dataclass(frozen=True)
class EpisodeVideo:
    """A recorded episode: the MP4's bytes, its steps, undiscounted return and speed in words."""

    choice: EpisodeChoice
    mp4: bytes
    steps: int
    returns: np.ndarray
    speed_text: str


def choose_episodes(
    findings: Findings, objective_names: Sequence[str], count: int | None = None
) -> list[EpisodeChoice]:
    """The front points of `findings` to record: the best point in each objective and the knee
    (`paretoscope.decision.knee_point`), or with `count` the knee, the extremes, then the
    other non-dominated points in order of the first objective, `count` in all."""
    front = findings.front
    returns = front["returns"]
    if len(returns) == 0 or count == 0:
        return []
    undominated = np.flatnonzero(non_dominated(returns))
    roles: dict[int, str] = {}
    knee = int(undominated[knee_point(returns[undominated])])
    extremes = {
        int(undominated[np.argmax(returns[undominated, index])]): f"best {name}"
        for index, name in reversed(list(enumerate(objective_names)))
    }
    if count is None:
        roles.update(dict(sorted(extremes.items())))
        roles.setdefault(knee, "knee")
        if knee in extremes:
            roles[knee] = f"knee, {extremes[knee]}"
    else:
        roles[knee] = "knee"
        for row, role in extremes.items():
            roles.setdefault(row, role)
        order = undominated[np.argsort(returns[undominated, 0], kind="stable")]
        for row in order.tolist():
            roles.setdefault(int(row), "front point")
        roles = dict(list(roles.items())[:count])
    explicit = front["explicit"]
    return [
        EpisodeChoice(
            findings,
            row,
            role,
            tuple(float(value) for value in front["preferences"][row]),
            tuple(float(value) for value in front["targets"][row]) if explicit[row] else None,
            int(front["seeds"][row]),
        )
        for row, role in sorted(roles.items(), key=lambda item: -returns[item[0], 0])
    ]


def record_episodes(
    env_id: str,
    choices: Sequence[EpisodeChoice],
    size: tuple[int, int] = VIDEO_SIZE,
    on_video: Callable[[int, int], None] | None = None,
) -> list[EpisodeVideo]:
    """Each chosen episode rolled out again by its agent and encoded as an MP4, as
    `paretoscope render` does (same seed, the sweep's horizon). `on_video(done, total)` is
    told after each video. Choices whose agent was not loaded are skipped. One at a time: an
    episode already keeps two cores busy (rollout, drawing, encoding)."""
    ready = [choice for choice in choices if choice.findings.agent.agent is not None]
    videos = []
    with tempfile.TemporaryDirectory(prefix="paretoscope-report-") as folder:
        for index, choice in enumerate(ready):
            videos.append(_recorded(env_id, choice, size, Path(folder) / f"episode-{index}.mp4"))
            if on_video is not None:
                on_video(index + 1, len(ready))
    return videos


def _recorded(
    env_id: str, choice: EpisodeChoice, size: tuple[int, int], path: Path
) -> EpisodeVideo:
    agent = choice.findings.agent.agent
    assert agent is not None  # only loaded agents are recorded
    settings = RecordingSettings(
        seed=choice.seed,
        size=size,
        horizon=choice.findings.horizon,
        every=default_every(env_id, VIDEO_FPS),
    )
    video = render_video_file(
        agent,
        env_id,
        choice.preference,
        choice.target,
        settings,
        path,
        progress=False,
        preset=VIDEO_PRESET,
        crf=VIDEO_CRF,
        smooth=VIDEO_SMOOTH,
    )
    return EpisodeVideo(choice, path.read_bytes(), video.steps, video.returns, video.speed_text)
