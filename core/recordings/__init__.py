"""Recordings: a request (agent(s), env, preference, target, seed, size) -> a key -> frames
and step records streamed through a callback -> a `Recording` (video + each lane's rewards).

Kinds, one module each: `EpisodeRequest` (one agent), `SideBySideRequest` (several agents at
one preference), `TourRequest` (a path of preferences beside the front), `ReplayRequest` (a
dataset trajectory's actions). Each has ``key()`` and ``record(agents, on_frame, render)``.
`RecordingLibrary` keeps finished recordings (memory, byte-bounded, then folders).
`render_video_file` writes one episode straight into a video file with `RecordingSettings`
(`paretoscope render`). Nothing here imports Streamlit; mujoco and the encoder load when a
recording is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from paretoscope.agents.base import Agent
from paretoscope.recordings.episode import EpisodeRequest
from paretoscope.recordings.lanes import (
    FrameCallback,
    LiveFrame,
    RecordingWriter,
    divergence_message,
)
from paretoscope.recordings.library import RecordingLibrary
from paretoscope.recordings.recording import (
    RECORDING_VERSION,
    Recording,
    read_recording,
    recording_key,
    write_recording,
)
from paretoscope.recordings.replay import ReplayRequest
from paretoscope.recordings.side_by_side import SideBySideRequest
from paretoscope.recordings.tour import TourRequest
from paretoscope.recordings.video_file import VideoFile, render_video_file


class RecordingRequest(Protocol):
    """What every kind of request offers. The requests are frozen: their fields are read,
    never set, so the protocol declares them as read-only properties."""

    @property
    def env_id(self) -> str: ...
    @property
    def video_only(self) -> bool: ...

    def key(self) -> str: ...

    def record(
        self, agents: Sequence[Agent], on_frame: FrameCallback | None = None, render: bool = True
    ) -> Recording: ...


__all__ = [
    "RECORDING_VERSION",
    "EpisodeRequest",
    "FrameCallback",
    "LiveFrame",
    "Recording",
    "RecordingLibrary",
    "RecordingRequest",
    "RecordingWriter",
    "ReplayRequest",
    "SideBySideRequest",
    "TourRequest",
    "VideoFile",
    "divergence_message",
    "read_recording",
    "recording_key",
    "render_video_file",
    "write_recording",
]
