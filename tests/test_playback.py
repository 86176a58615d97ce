"""How fast an episode's video plays: every step of a discrete env, a 3-second minimum, MuJoCo
in real time, and the speed said in words. Durations and frame counts are read back from the
files by ffmpeg; rates and speeds are worked out by hand from the envs' time steps."""

from __future__ import annotations

from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest

from paretoscope.recordings import Recording
from paretoscope.render.playback import (
    MAX_FPS,
    MIN_SECONDS,
    default_every,
    playback_fps,
    playback_speed,
    speed_words,
)
from paretoscope.video import Mp4Encoder, encode_gif, lasting_fps


def frames_and_seconds(path: Path) -> tuple[int, float]:
    return imageio_ffmpeg.count_frames_and_secs(str(path))


def moving_frames(count: int) -> list[np.ndarray]:
    return [np.full((16, 16, 3), 8 * index % 256, np.uint8) for index in range(count)]


@pytest.mark.parametrize(
    "env_id, every, fps, words",
    [
        # MuJoCo keeps real time: HalfCheetah dt 0.05 s -> every step at 20 fps; Hopper v5
        # dt 0.008 s -> every 5th step (1 / (0.008 * 5) = 25 fps); v2 dt 0.01 s -> every 4th.
        ("MO-HalfCheetah-v2", 1, 20.0, "real time"),
        ("mo-hopper-v5", 5, 25.0, "real time"),
        ("MO-Hopper-v2", 4, 25.0, "real time"),
        # Discrete actions: every step. Deep-sea-treasure declares 4 steps/s: real time.
        ("deep-sea-treasure-v0", 1, 4.0, "real time"),
        # Minecart declares 180 steps/s: 30 fps is 30/180 = 1/6 of real time.
        ("minecart-v0", 1, 30.0, "played at 1/6 speed"),
        # Lunar lander 50 steps/s: 30/50 = 0.6.
        ("mo-lunar-lander-v3", 1, 30.0, "played at 0.6x speed"),
    ],
)
def test_stride_rate_and_speed_per_env(env_id: str, every: int, fps: float, words: str) -> None:
    assert default_every(env_id) == every
    assert playback_fps(env_id, every) == pytest.approx(fps)
    assert speed_words(playback_speed(env_id, every, fps)) == words


@pytest.mark.parametrize(
    "speed, words",
    [
        (1.0, "real time"),
        (1 / 6, "played at 1/6 speed"),
        (13 / 180, "played at 1/14 speed"),  # 180/13 = 13.85: within 2% of 14
        (0.3, "played at about 1/3 speed"),  # 1/0.3 = 3.33: 10% off 3
        (0.6, "played at 0.6x speed"),
        (2.0, "played at 2x speed"),
        (1.5, "played at 1.5x speed"),
    ],
)
def test_speed_in_words(speed: float, words: str) -> None:
    assert speed_words(speed) == words


@pytest.mark.parametrize(
    "count, fps, seconds",
    [
        (10, 30.0, 3.0),  # 10 frames would last 0.33 s: slowed to 10/3 fps
        (90, 30.0, 3.0),  # exactly 3 s: as asked
        (120, 30.0, 4.0),  # longer: as asked
    ],
)
def test_mp4_lasts_at_least_the_minimum(
    tmp_path: Path, count: int, fps: float, seconds: float
) -> None:
    path = tmp_path / "clip.mp4"
    with Mp4Encoder(fps, path, min_seconds=MIN_SECONDS) as encoder:
        for frame in moving_frames(count):
            encoder.add(frame)
        encoder.finish()
        assert encoder.fps == pytest.approx(count / seconds)
    assert lasting_fps(fps, count, MIN_SECONDS) == pytest.approx(count / seconds)
    frames, duration = frames_and_seconds(path)
    assert frames == count  # every frame kept, none repeated
    assert duration == pytest.approx(seconds, abs=0.05)


def test_without_a_minimum_a_short_mp4_plays_as_asked(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    with Mp4Encoder(30.0, path) as encoder:
        for frame in moving_frames(10):
            encoder.add(frame)
        encoder.finish()
        assert encoder.fps == 30.0
    assert frames_and_seconds(path) == (10, pytest.approx(1 / 3, abs=0.05))


def test_a_short_gif_is_slowed_down_not_padded(tmp_path: Path) -> None:
    import imageio.v3 as iio

    path = tmp_path / "clip.gif"
    encode_gif(moving_frames(6), 30.0, path, min_seconds=MIN_SECONDS)
    frames = iio.imread(path, index=None, extension=".gif")
    assert len(frames) == 6
    durations = [iio.immeta(path, index=index)["duration"] for index in range(6)]
    assert sum(durations) == pytest.approx(3000, abs=60)  # ms: 6 frames of 0.5 s


def test_minecart_shows_every_step_for_at_least_the_minimum(tmp_path: Path) -> None:
    """The issue's case: `paretoscope render random --env minecart-v0 --seed 1`."""
    from paretoscope.agents.builtin import load_agent
    from paretoscope.recordings import render_video_file
    from paretoscope.settings import RecordingSettings

    agent = load_agent("random", "minecart-v0")
    settings = RecordingSettings(seed=1, size=(96, 96))
    video = render_video_file(agent, "minecart-v0", [1 / 3] * 3, None, settings, tmp_path / "m.mp4")
    frames, duration = frames_and_seconds(video.path)
    assert frames == video.frames == video.steps  # one frame per step
    assert duration >= MIN_SECONDS - 0.05
    # Hand-computed: at most 30 fps, slowed so that the steps last 3 s when they would not.
    fps = min(MAX_FPS, video.steps / MIN_SECONDS)
    assert video.fps == pytest.approx(fps)
    assert video.speed == pytest.approx(fps / 180)
    assert duration == pytest.approx(video.steps / fps, abs=0.05)
    if video.steps == 39:  # the episode the issue reproduced: 39 / 3 = 13 fps, 13/180 = 1/13.8
        assert video.speed_text == "played at 1/14 speed"


def test_a_recording_says_its_speed() -> None:
    recording = Recording(
        video=b"mp4",
        fps=13.0,
        lanes=("random",),
        rewards=np.zeros((1, 39, 3)),
        frame_steps=np.arange(1, 40)[None, :],
        meta={"env": "minecart-v0", "every": 1},
    )
    assert recording.speed == pytest.approx(13 / 180)
    assert recording.speed_text == "played at 1/14 speed"
    without_video = Recording(b"", 1.0, ("a",), np.zeros((1, 2, 3)), np.ones((1, 2)), meta={})
    assert without_video.speed is None and without_video.speed_text is None
