"""The Training page in a real browser: Play moves the step scrubber through a run, the front's
figure and the link follow it, then playback stops at the last step and its agent plays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import screenshot, serving, start_server
from tests.e2e.test_dashboard_browser import TIMEOUT_MS, wait_for_playing_video
from tests.run_fixtures import envelope_run

DST = "deep-sea-treasure-v0"
STEPS = (100, 200, 300)

# The title of the front's figure ("Front at step N"), or null before it is drawn.
FRONT_TITLE = """
() => {
  for (const title of document.querySelectorAll('[data-testid="stPlotlyChart"] .gtitle')) {
    if (title.textContent.startsWith('Front at step')) return title.textContent;
  }
  return null;
}
"""

# Records each title the front's figure shows, in turn, as the page draws it (window.__titles).
WATCH_TITLES = """
() => {
  window.__titles = [];
  const look = () => {
    const title = (FRONT_TITLE)();
    if (title && window.__titles.at(-1) !== title) window.__titles.push(title);
  };
  look();
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
                                                     characterData: true});
}
""".replace("FRONT_TITLE", FRONT_TITLE.strip())

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run_server(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[str]:
    assets = tmp_path_factory.mktemp("run-assets")
    envelope_run(assets / "agents", steps=STEPS)
    with serving(start_server(assets, tmp_path_factory.mktemp("run-cache"))) as url:
        yield url


def url_step(page) -> str:  # noqa: ANN001
    return parse_qs(urlparse(page.url).query).get("step", [""])[0]


def test_play_moves_the_scrubber_and_the_front(run_server: str, page) -> None:  # noqa: ANN001
    page.goto(f"{run_server}/training?size=240&env={DST}&step=100", timeout=TIMEOUT_MS)
    page.wait_for_function(
        f"() => ({FRONT_TITLE})() === 'Front at step 100'", timeout=TIMEOUT_MS, polling=200
    )
    wait_for_playing_video(page)  # the agent of step 100
    screenshot(page, "training-01-step-100")
    # The step scrubber is the page's first slider (the preference's is below, by the video).
    scrubber = page.locator('[data-testid="stSliderThumbValue"]').first
    assert scrubber.inner_text() == "100"

    page.evaluate(WATCH_TITLES)
    page.get_by_role("button", name="Play").click()
    # Every step is drawn in turn, each by a timed rerun of the charts alone; then playing stops.
    page.wait_for_function(
        "() => window.__titles.at(-1) === 'Front at step 300'", timeout=60_000, polling=100
    )
    page.get_by_role("button", name="Play").wait_for(timeout=60_000)
    seen = page.evaluate("() => window.__titles")
    assert seen == [f"Front at step {step}" for step in STEPS], seen
    assert scrubber.inner_text() == "300"
    assert url_step(page) == "300"
    # Stopped at the last step: its agent plays.
    wait_for_playing_video(page)
    screenshot(page, "training-02-played-to-300")
