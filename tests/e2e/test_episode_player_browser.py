"""The episode player's script (`paretoscope.dashboard.widgets.episode_video`) in Chromium: its
controls
show while the pointer is over it or while it has the keyboard's focus, and go otherwise."""

from __future__ import annotations

from typing import Any

from paretoscope.dashboard.widgets.episode_video import player_markup

CONTROLS = "() => document.querySelector('video').controls"


def test_controls_show_on_hover_and_on_focus_only(page: Any) -> None:
    markup = player_markup("/no-such.mp4", "Episode x")
    page.set_content(
        "<!doctype html><html><body><button id='before'>before</button>"
        f"<div style='width:320px;height:240px'>{markup}</div>"
        "<p style='height:400px'>elsewhere</p></body></html>"
    )
    assert page.evaluate(CONTROLS) is False
    page.hover("video")
    assert page.evaluate(CONTROLS) is True
    page.mouse.move(5, 600)
    assert page.evaluate(CONTROLS) is False
    page.focus("#before")
    page.keyboard.press("Tab")  # the player takes the focus in turn
    assert page.evaluate("() => document.activeElement.tagName") == "VIDEO"
    assert page.evaluate(CONTROLS) is True
    page.mouse.move(5, 600)  # the pointer leaving does not hide a focused player's controls
    assert page.evaluate(CONTROLS) is True
    page.focus("#before")
    assert page.evaluate(CONTROLS) is False
