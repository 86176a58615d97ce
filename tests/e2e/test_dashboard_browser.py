"""The dashboard in a real browser: load, move the slider, watch frames stream and the video
play, click a point on the front, switch to Compare. Screenshots go to test-artifacts/e2e/."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest

from paretoscope.dashboard.widgets.episode_video import PLAYER_SCRIPT
from paretoscope.text import number
from tests.conftest import FIXTURES_DIR
from tests.e2e.conftest import (
    EPISODE_VIDEO,
    FEED_FRAME,
    FRAME_AT_TOP,
    PARALLEL_PLOT_AREA,
    STREAMED_FRAME,
    screenshot,
    serving,
    start_cli_server,
)

TIMEOUT_MS = 90_000

# The src of a new video once it plays: decoded (readyState >= 2) and its clock moved since an
# earlier look at the same video (a loop wraps it), in view (as a viewer watches it: a browser may
# pause a muted video that is scrolled out of sight); else null.
VIDEO_PLAYING = """
(previousSource) => {
  const video = document.querySelector('EPISODE_VIDEO');
  if (video) video.scrollIntoView({block: 'nearest'});
  if (!video || video.readyState < 2 || (previousSource && video.currentSrc === previousSource)) {
    return null;
  }
  const seen = window.__videoClock;
  if (!seen || seen.src !== video.currentSrc) {
    window.__videoClock = {src: video.currentSrc, time: video.currentTime};
    return null;
  }
  return video.currentTime !== seen.time ? video.currentSrc : null;
}
""".replace("EPISODE_VIDEO", EPISODE_VIDEO)
# The player's last try to start its video by itself: a timer this many milliseconds after it
# is drawn (`paretoscope.dashboard.widgets.episode_video`).
PLAYER_START_MS = int(re.search(r"setTimeout\(start, (\d+)\)", PLAYER_SCRIPT).group(1))

# For a failure's message: each video's state (what it loads, how far, any media error) and
# what the page says (alerts, exceptions, captions; stale ones marked).
PAGE_STATE = """
() => ({
  videos: [...document.querySelectorAll('video')].map((video) => ({
    src: video.currentSrc, readyState: video.readyState, networkState: video.networkState,
    paused: video.paused, currentTime: video.currentTime, error: video.error && video.error.code,
    autoplay: video.autoplay, loop: video.loop, muted: video.muted, duration: video.duration,
    stale: !!video.closest('[data-stale="true"]'), top: video.getBoundingClientRect().top,
    hidden: document.hidden})),
  notes: [...document.querySelectorAll(
    '[data-testid="stAlert"], [data-testid="stException"], [data-testid="stCaptionContainer"]'
  )].map((note) => (note.closest('[data-stale="true"]') ? 'stale: ' : '')
    + note.textContent.trim().slice(0, 200)),
})
"""

# Counts the streamed frames seen since it was installed, and those painted from the server's
# feed (`paretoscope.dashboard.frame_feed`: a real server serves its route). Counted in the mutation
# callbacks themselves: a short episode (the random agent's minecart runs ~80 steps, a frame
# every 6) can show a frame and replace it by the video before a later look would find it.
WATCH_FRAMES = """
() => {
  window.__framesSeen = 0;
  window.__feedFramesSeen = 0;
  const count = () => {
    if (document.querySelector('STREAMED_FRAME')) window.__framesSeen += 1;
    if (document.querySelector('FEED_FRAME')) window.__feedFramesSeen += 1;
  };
  new MutationObserver(count).observe(document.body, {subtree: true, childList: true,
                                                     attributes: true});
}
""".replace("STREAMED_FRAME", STREAMED_FRAME).replace("FEED_FRAME", FEED_FRAME)


# Inside the front chart's frame: the centres of the points of the trace whose legend entry is
# `name`, in the frame's own coordinates (null before the front is drawn).
POINTS_OF_TRACE = """
(name) => {
  const chart = document.getElementById('front');
  const names = [...chart.querySelectorAll('.legend .traces .legendtext')].map(
    (element) => element.textContent);
  const index = names.indexOf(name);
  if (index < 0) return null;
  const trace = chart.querySelectorAll('.scatterlayer .trace')[index];
  return [...trace.querySelectorAll('.point')].map((point) => {
    const box = point.getBoundingClientRect();
    return [box.x + box.width / 2, box.y + box.height / 2];
  });
}
"""


def front_frame(page):  # noqa: ANN001, ANN201 - Playwright's page and frame
    """The Explore page's front chart (a component in its own frame), once it has drawn."""
    element = page.locator('iframe[title*="front_chart"]').first
    element.wait_for(timeout=TIMEOUT_MS)
    frame = element.element_handle().content_frame()
    frame.wait_for_function(
        "() => window.__frontChart && window.__frontChart.drawn > 0", timeout=TIMEOUT_MS
    )
    return frame


def front_legend(page) -> list[str]:  # noqa: ANN001
    return front_frame(page).evaluate(
        "() => [...document.querySelectorAll('.legendtext')].map((element) => element.textContent)"
    )


def wait_for_playing_video(page, previous_source: str | None = None) -> str:  # noqa: ANN001
    """The src of a video that plays (a new one when `previous_source` is given)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("() => { window.__videoClock = null; }")  # its clock seen from now on
    try:
        playing = page.wait_for_function(
            VIDEO_PLAYING, arg=previous_source, timeout=TIMEOUT_MS, polling=200
        )
    except PlaywrightTimeout:
        raise AssertionError(
            f"no playing video appeared; the page: {page.evaluate(PAGE_STATE)}"
        ) from None
    return playing.json_value()


def slider_value(page) -> float:  # noqa: ANN001
    return float(page.locator('[data-testid="stSlider"] input[type="range"]').first.input_value())


def url_preference(page) -> str:  # noqa: ANN001
    return parse_qs(urlparse(page.url).query).get("pref", [""])[0]


def test_explore_slider_stream_video_and_click_replay(server: str, page) -> None:  # noqa: ANN001
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{server}/?size=240", timeout=TIMEOUT_MS)
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    slider.wait_for(state="attached", timeout=TIMEOUT_MS)
    # The slider's code was preloaded once the page loaded (`paretoscope.dashboard.page_preload`),
    # and the
    # slider drawn from that one fetch.
    slider_code = [url for url in requested if re.search(r"/static/js/Slider\.[\w-]+\.js$", url)]
    preloaded = page.evaluate(
        "() => [...document.querySelectorAll('link[rel=modulepreload]')].map((link) => link.href)"
    )
    assert len(slider_code) == 1 and slider_code[0] in preloaded, (slider_code, preloaded)
    first_video = wait_for_playing_video(page)
    screenshot(page, "01-explore-loaded")
    assert slider_value(page) == 0.5 and url_preference(page) == "0.5,0.5"
    # The player starts itself once; a viewer who pauses it is not overruled.
    page.evaluate("(selector) => document.querySelector(selector).pause()", EPISODE_VIDEO)
    # A timer set now with the player's delay runs after the player's own (timers run in the
    # order they are due): once it has run, the player has made its last try.
    page.evaluate(f"() => new Promise((resolve) => setTimeout(resolve, {PLAYER_START_MS}))")
    assert page.evaluate("(selector) => document.querySelector(selector).paused", EPISODE_VIDEO)

    # Move the slider one step: frames stream in, then the finished MP4 plays.
    page.evaluate(WATCH_FRAMES)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__framesSeen > 0", timeout=TIMEOUT_MS)
    screenshot(page, "02-explore-streaming")
    assert page.evaluate("() => window.__feedFramesSeen") > 0  # painted from the server's feed
    second_video = wait_for_playing_video(page, first_video)
    assert slider_value(page) == 0.55
    page.wait_for_function(
        "() => location.search.includes('pref=0.45%2C0.55')"
        " || location.search.includes('pref=0.45,0.55')",
        timeout=TIMEOUT_MS,
    )
    screenshot(page, "03-explore-new-video")

    # Click the rightmost undominated point of the agent's front: its episode replays.
    frame = front_frame(page)
    frame.frame_element().scroll_into_view_if_needed()
    centres = frame.evaluate(POINTS_OF_TRACE, "MORvS (untrained)")
    assert centres, "no front points found"
    offset = frame.frame_element().bounding_box()
    x, y = max(centres)  # the rightmost: the most of the first objective
    x, y = x + offset["x"], y + offset["y"]
    page.mouse.move(x, y)
    page.mouse.click(x, y)
    page.wait_for_function(
        "(old) => !location.search.includes(old)",
        arg="pref=0.45%2C0.55",
        timeout=TIMEOUT_MS,
    )
    wait_for_playing_video(page, second_video)
    assert slider_value(page) != 0.55
    assert re.fullmatch(r"[0-9.]+,[0-9.]+", url_preference(page))
    screenshot(page, "04-explore-clicked-point")

    # Compare: both agents' fronts, the metrics table, and their rollouts side by side.
    page.get_by_role("link", name="Compare").click()
    page.wait_for_url(re.compile(r".*/compare.*"), timeout=TIMEOUT_MS)
    page.get_by_text("best per column highlighted").wait_for(timeout=TIMEOUT_MS)
    wait_for_playing_video(page)
    size = page.evaluate(
        "(selector) => { const v = document.querySelector(selector);"
        " return [v.videoWidth, v.videoHeight]; }",
        EPISODE_VIDEO,
    )
    assert size[1] == 240 and size[0] >= 2 * 240, size  # two agents in one synchronised video
    # The metrics table (a canvas grid: checked for presence; its numbers by the AppTests).
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "05-compare")


HOSTILE_LINK = (
    "agent=%5BClick%20to%20re-login%5D(https%3Aevil.example)"
    "&dataset=https%3A%2F%2Fevil.example%20**bold**%20%3Amaterial%2Fwarning%3A"
)


def test_a_hostile_link_shows_its_values_as_text(server: str, page) -> None:  # noqa: ANN001
    page.goto(f"{server}/?size=240&{HOSTILE_LINK}", timeout=TIMEOUT_MS)
    warning = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').first
    warning.wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("Click to re-login").first.wait_for(timeout=TIMEOUT_MS)
    text = warning.inner_text()
    assert "[Click to re-login](https:evil.example)" in text, text
    assert "**bold**" in text, text
    screenshot(page, "06-hostile-link")
    # Nothing in the page links out, and the warning holds no markup but code spans.
    outside = page.evaluate(
        "() => Array.from(document.querySelectorAll('a[href]')).map((a) => a.href)"
        ".filter((href) => !href.startsWith(location.origin))"
    )
    assert not [href for href in outside if "evil" in href], outside
    markup = warning.evaluate(
        "(el) => Array.from(el.querySelectorAll("
        "'a, strong, em, img, .katex, [data-testid=\"stIconMaterial\"]'"
        ")).map((node) => node.outerHTML)"
    )
    assert not markup, markup


LONG_MINECART_SEED = 17

# True once the caption under the video names a first weight of `expected` (as the page writes
# numbers: `paretoscope.text.number`) and is
# not stale: the page shows that preference's finished episode. (The random agent ignores the
# preference, so its videos at two preferences can be byte-identical: the source is no signal.)
CAPTION_SHOWS = """
(expected) => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')].some(
  (caption) => caption.textContent.trim().startsWith(`Preference ore_1 ${expected},`)
    && !caption.closest('[data-stale="true"]'))
"""


def test_minecart_with_the_random_agent_slider_frames_video(server: str, page) -> None:  # noqa: ANN001
    # An env the assets folder has nothing for: opened by link, with the built-in agent. Seed
    # 17's episode is long (529 steps, ~90 frames; the median is ~120 steps): its frames
    # stream for a while. A short episode can finish before its first frame reaches the page,
    # which then shows the video at once (Streamlit drops unsent deltas when the page reruns).
    page.goto(
        f"{server}/?size=240&env=minecart-v0&agent=random&seed={LONG_MINECART_SEED}",
        timeout=TIMEOUT_MS,
    )
    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    slider.wait_for(state="attached", timeout=TIMEOUT_MS)
    wait_for_playing_video(page)
    start = slider_value(page)
    page.wait_for_function(CAPTION_SHOWS, arg=number(start), timeout=TIMEOUT_MS)
    assert "known front (approximate)" in front_legend(page)
    screenshot(page, "07-minecart-loaded")

    # One step of the first weight: frames of the new episode stream in, then its video plays.
    page.evaluate(WATCH_FRAMES)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__framesSeen > 0", timeout=TIMEOUT_MS)
    screenshot(page, "08-minecart-streaming")
    moved = round(start + 0.1, 2)
    page.wait_for_function(CAPTION_SHOWS, arg=number(moved), timeout=TIMEOUT_MS)
    wait_for_playing_video(page)
    assert slider_value(page) == moved
    assert url_preference(page).startswith(f"{moved:g},")
    screenshot(page, "09-minecart-new-video")


PLUGIN = "py:tests.plugin_examples:surface_then_dive"
FRUIT_PLUGIN = "py:tests.plugin_examples:fruit_picker"
DST = "deep-sea-treasure-v0"
ENVELOPE = FIXTURES_DIR / "morl-baselines" / "envelope" / DST / "Envelope.tar"

SIDEBAR_AGENT_BOX = '[data-testid="stSidebar"] [data-testid="stSelectbox"]'


@pytest.fixture(scope="module")
def plugin_server(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[str]:
    """`paretoscope dashboard --agent py:tests.plugin_examples:surface_then_dive` (and the
    fruit-tree plug-in) on an assets folder named after deep-sea-treasure whose agents/ holds
    a MORL-Baselines Envelope file (its env read from the folder's name, imported when
    chosen)."""
    assets = tmp_path_factory.mktemp("plugin-assets") / DST
    (assets / "agents").mkdir(parents=True)
    shutil.copy(ENVELOPE, assets / "agents" / ENVELOPE.name)
    flags = ("--agent", PLUGIN, "--agent", FRUIT_PLUGIN)
    cache = tmp_path_factory.mktemp("plugin-cache")
    with serving(start_cli_server(assets, cache, *flags)) as url:
        yield url


def test_a_plug_in_from_the_command_line_plays_beside_imported_and_random(
    plugin_server: str,
    page,  # noqa: ANN001
) -> None:
    page.goto(
        f"{plugin_server}/?size=240&env={DST}&agent={quote(PLUGIN, safe='')}", timeout=TIMEOUT_MS
    )
    first_video = wait_for_playing_video(page)
    agent_box = page.locator(SIDEBAR_AGENT_BOX).filter(has_text="Agent").first
    shown = agent_box.evaluate(
        "(box) => [box.textContent, ...[...box.querySelectorAll('input')].map((i) => i.value)]"
        ".join(' | ')"
    )
    # The list's entry is short; what it leaves out is the caption under it.
    assert PLUGIN in shown, shown
    assert (
        page.locator('[data-testid="stSidebar"] [data-testid="stCaptionContainer"]')
        .filter(has_text=re.compile(r"^plug-in$"))
        .count()
    )
    assert f"{PLUGIN} (plug-in)" in front_legend(page)
    # The plug-in sails to the last column and dives: the deepest treasure in 19 steps.
    page.get_by_text(re.compile(r"return treasure 23\.7, time -19(?![.\d])")).first.wait_for(
        timeout=TIMEOUT_MS
    )
    assert not page.locator('[data-testid="stAlert"]').filter(has_text="plug-in").count()
    screenshot(page, "10-plugin-dst")

    # The agent list: the folder's MORL-Baselines file, the built-in random agent, the plug-in.
    agent_box.click()
    options = page.locator('[role="option"]')
    options.first.wait_for(timeout=TIMEOUT_MS)
    assert options.all_inner_texts() == [
        "Envelope",
        "random (uniform baseline)",
        PLUGIN,
    ]
    options.filter(has_text="Envelope").click()
    page.wait_for_function("() => location.search.includes('agent=Envelope')", timeout=TIMEOUT_MS)
    wait_for_playing_video(page, first_video)
    screenshot(page, "11-morl-baselines-envelope-dst")


def test_many_objectives_brush_in_parallel_coordinates_links_and_replays(
    plugin_server: str,
    page,  # noqa: ANN001
) -> None:
    """fruit-tree (six objectives): brushing the top half of the first axis in parallel
    coordinates highlights those policies in both views, the page counts them, and the first of
    them plays."""
    page.set_viewport_size({"width": 1400, "height": 1700})
    page.goto(
        f"{plugin_server}/decide?size=240&env=fruit-tree-v0&agent={quote(FRUIT_PLUGIN, safe='')}",
        timeout=TIMEOUT_MS,
    )
    page.get_by_text("126 preferences").first.wait_for(timeout=TIMEOUT_MS)
    # Nothing is selected yet: the aspiration pick plays.
    page.get_by_text("Nothing selected: the aspiration pick plays").first.wait_for(
        timeout=TIMEOUT_MS
    )
    first_video = wait_for_playing_video(page)
    frame_element = page.locator('iframe[title*="linked_views"]')
    frame = frame_element.element_handle().content_frame()
    frame.wait_for_function(PARALLEL_PLOT_AREA, timeout=TIMEOUT_MS)
    screenshot(page, "12-many-objectives")

    offset = frame_element.evaluate(FRAME_AT_TOP)
    area = frame.evaluate(PARALLEL_PLOT_AREA)
    assert area["names"][0] == "protein", area["names"]
    low, high = area["range"]
    y_low, y_high = area["yrange"]
    axis_x = offset[0] + area["x"] + (0.0 - low) / (high - low) * area["width"]

    def screen_y(value: float) -> float:  # the scaled axis value (0 bottom, 1 top) on screen
        return offset[1] + area["y"] + (y_high - value) / (y_high - y_low) * area["height"]

    # A box from above the axis' top down to its middle, narrow around the first axis.
    page.mouse.move(axis_x - 12, screen_y(1.1))
    page.mouse.down()
    page.mouse.move(axis_x + 12, screen_y(0.5), steps=12)
    page.mouse.up()

    # The browser highlights the brushed policies in both views...
    frame.wait_for_function(
        "() => window.__linkedViews.drawn.some((d) => d.source === 'parallel' && d.count > 0)",
        timeout=TIMEOUT_MS,
    )
    drawn = frame.evaluate("() => window.__linkedViews.drawn.at(-1)")
    count = drawn["count"]
    assert 0 < count < 126
    # ...and the page, told which, counts the same ones and replays the first of them.
    page.get_by_text(re.compile(rf"^{count} of 126 policies selected")).first.wait_for(
        timeout=TIMEOUT_MS
    )
    replay = page.get_by_text(re.compile(r"^Policy \d+'s mean return protein")).first
    replay.wait_for(timeout=TIMEOUT_MS)
    text = replay.inner_text()
    assert not text.startswith("Nothing selected"), text
    # The replayed policy was brushed: its protein return is in the top half of the axis.
    protein = float(re.search(r"protein (-?[\d.]+)", text).group(1))
    top, bottom = area["ends"]  # the first axis' high and low values, written at its ends
    assert protein >= bottom + 0.45 * (top - bottom), (protein, bottom, top)
    wait_for_playing_video(page, first_video)
    screenshot(page, "13-many-objectives-brushed")
