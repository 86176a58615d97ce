"""The dashboard says how fast an episode's video plays (issue 48: a short or fast episode is
slowed down, and the page must say so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paretoscope.render.playback import speed_words
from tests.apptests import captions, episode_chart, episode_videos, open_app, page_ok
from tests.test_dashboard_app import DST, ENVELOPE, _assets_with

pytestmark = pytest.mark.slow


def test_explore_says_how_fast_the_video_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assets = _assets_with(tmp_path / DST, ENVELOPE)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app()
    page_ok(at)
    assert episode_videos(at)
    steps, _ = episode_chart(at)
    frames = len(steps)  # deep-sea-treasure shows every step
    # It declares 4 steps a second; a video lasts at least 3 s: min(4, frames / 3) fps, each
    # frame a quarter of a second of the env's time.
    speed = min(4.0, frames / 3.0) * 0.25
    assert f"Video: {speed_words(speed)}" in captions(at)
    if frames >= 12:
        assert "Video: real time" in captions(at)
