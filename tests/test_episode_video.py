"""The episode player: a plain `<video>` that autoplays, muted and looping, serving the very
file Streamlit's own player would serve for the same bytes."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from tests.apptests import episode_videos


def _page() -> None:  # AppTest runs the body alone: everything it needs is inside
    import streamlit as st

    from paretoscope.dashboard.widgets.episode_video import episode_video

    MP4 = b"\x00\x00\x00\x18ftypmp42 not really a video"  # noqa: N806
    episode_video(MP4, label='seed 3 "fast" <gait>', coordinates="paretoscope:video")
    st.video(MP4, format="video/mp4")  # Streamlit's own player, for its URL


def _attributes(markup: str) -> dict[str, str]:
    return dict(re.findall(r'([\w-]+)(?:="([^"]*)")?', markup.removeprefix("<video ")))


def test_the_player_autoplays_muted_in_a_loop_and_takes_the_focus() -> None:
    """Its controls come on hover or focus (`tests/e2e/test_episode_player_browser.py`)."""
    at = AppTest.from_function(_page).run()
    assert not at.exception
    (markup,) = episode_videos(at)
    attributes = _attributes(markup.split(">")[0])
    assert {"autoplay", "muted", "loop", "playsinline"} <= attributes.keys()
    assert attributes["tabindex"] == "0" and "controls" not in attributes
    # The label is text, never markup.
    assert attributes["aria-label"] == "seed 3 &quot;fast&quot; &lt;gait&gt;"


def test_the_player_serves_the_file_streamlit_would() -> None:
    at = AppTest.from_function(_page).run()
    (markup,) = episode_videos(at)
    (own_player,) = at.get("video")
    assert re.search(r'src="([^"]+)"', markup).group(1) == own_player.proto.url  # type: ignore[union-attr]
    assert own_player.proto.url.endswith(".mp4")


def _hostile_page() -> None:
    from paretoscope.dashboard.widgets.episode_video import episode_video

    hostile = '"><img src=x onerror=alert(1)><video autoplay x="'  # an agent's name, say
    episode_video(b"\x00\x00\x00\x18ftypmp42", label=hostile, coordinates="paretoscope:video")


def test_a_hostile_label_adds_no_tag_or_attribute() -> None:
    from tests.page_markup import html_tags

    (plain,) = episode_videos(AppTest.from_function(_page).run())
    (hostile,) = episode_videos(AppTest.from_function(_hostile_page).run())
    assert html_tags(hostile) == html_tags(plain)
    assert ("html tag", "img onerror src") not in html_tags(hostile)
