"""The Choose page in a real browser: a viewer answers a few questions and, after each, both
of the next question's videos play, side by side."""

from __future__ import annotations

from tests.e2e.conftest import EPISODE_VIDEO, screenshot
from tests.e2e.test_dashboard_browser import TIMEOUT_MS

# The test assets' three-objective agent: its front has nine policies (HalfCheetah's two).
HOPPER3 = "MO-Hopper-v3"
AGENT = "hopper3-modt"

# The sources of the pair's two videos once both play: not the `previous` pair's, decoded, in
# view, and each one's clock moved since an earlier look at it; else null.
PAIR_PLAYING = """
(previous) => {
  const videos = Array.from(document.querySelectorAll('EPISODE_VIDEO'))
    .filter((video) => !video.closest('[data-stale="true"]'));
  if (videos.length !== 2) return null;
  videos[0].scrollIntoView({block: 'nearest'});
  const sources = videos.map((video) => video.currentSrc);
  if (previous && sources.join(' ') === previous.join(' ')) return null;
  if (videos.some((video) => video.readyState < 2)) return null;
  const seen = window.__pairClock;
  const times = videos.map((video) => video.currentTime);
  if (!seen || seen.sources.join(' ') !== sources.join(' ')) {
    window.__pairClock = {sources, times};
    return null;
  }
  return times.every((time, index) => time !== seen.times[index]) ? sources : null;
}
""".replace("EPISODE_VIDEO", EPISODE_VIDEO)


def pair_playing(page, previous: list[str] | None, timeout_ms: int = TIMEOUT_MS) -> list[str]:  # noqa: ANN001 - Playwright's page
    """Wait until the page's pair of videos (not `previous`) both play; their sources."""
    handle = page.wait_for_function(PAIR_PLAYING, arg=previous, timeout=timeout_ms, polling=100)
    return list(handle.json_value())


def answer(page, label: str) -> None:  # noqa: ANN001 - Playwright's page
    page.get_by_role("button", name=label, exact=True).click()


def test_answering_plays_both_videos_of_the_next_question(server: str, page) -> None:  # noqa: ANN001
    # The highest level: a small front may otherwise be settled after an answer or two.
    link = f"{server}/choose?env={HOPPER3}&agent={AGENT}&size=240&pbest=0.999"
    page.goto(link, timeout=TIMEOUT_MS)
    shown = pair_playing(page, None)
    for number, label in enumerate(("A", "B", "About the same"), start=1):
        answer(page, label)
        following = pair_playing(page, shown)
        assert set(following) != set(shown)
        page.wait_for_function(
            "(count) => new URLSearchParams(location.search).get('ans')?.split('.').length"
            " === count",
            arg=number,
            timeout=TIMEOUT_MS,
        )
        shown = following
    screenshot(page, "choose-after-three-answers")
    assert "Questions answered" in page.content()
