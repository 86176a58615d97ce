"""A report opened from its file with the network blocked: every figure draws, every video
plays, the console stays clean and the page asks for nothing outside the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from paretoscope.cli import main
from tests.demo_fixture import CHEETAH

TIMEOUT_MS = 120_000
# Every plotly figure's div has drawn its SVG (plotly's .main-svg).
FIGURES_DRAWN = """
() => {
  const figures = [...document.querySelectorAll('.plotly-graph-div')];
  return figures.length > 0 && figures.every((figure) => figure.querySelector('.main-svg'));
}
"""
# Every video has data to play and its playback position has moved on.
VIDEOS_PLAYED = """
() => {
  const videos = [...document.querySelectorAll('video')];
  videos.forEach((video) => { if (video.paused) video.play().catch(() => {}); });
  return videos.length > 0
    && videos.every((video) => video.readyState >= 2 && video.currentTime > 0);
}
"""


@pytest.mark.slow
def test_report_works_offline(e2e_assets: Path, browser, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "report.html"
    assert main(["report", str(e2e_assets), "--env", CHEETAH, "--out", str(out), "--quiet"]) == 0
    url = out.resolve().as_uri()
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    requested: list[str] = []
    blocked: list[str] = []

    def only_the_file(route) -> None:  # noqa: ANN001
        if route.request.url in (url,) or route.request.url.startswith("data:"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_file)
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(url, timeout=TIMEOUT_MS)
        page.wait_for_function(FIGURES_DRAWN, timeout=TIMEOUT_MS)
        figures = page.locator(".plotly-graph-div").count()
        # The fronts and, for the return-conditioned MORvS, its two RTG panels.
        assert figures == 3
        assert page.locator(".plotly-graph-div .main-svg").first.is_visible()
        # Each agent's extremes and knee (two objectives: up to three videos each).
        videos = page.locator("video").count()
        assert 2 <= videos <= 6
        page.wait_for_function(VIDEOS_PLAYED, timeout=TIMEOUT_MS)
        # plotly's script is inlined once, in the head.
        assert page.locator("script:not([type='application/json']):not([src])").count() >= 1
        assert page.locator("script[src]").count() == 0
    finally:
        context.close()
    assert not errors, errors
    assert not blocked, blocked
    outside = [
        address for address in requested if address != url and not address.startswith("data:")
    ]
    assert not outside, outside
