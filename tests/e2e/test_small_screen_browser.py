"""The Explore page by keyboard and on a phone: Tab reaches the preference slider, whose focus
ring is plain to see, and then the front, whose points the arrow keys visit and Enter picks
(a replay, as a click); on a 390x844 screen the front comes right under the slider."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

TIMEOUT_MS = 120_000
FRONT_FRAME = 'iframe[title*="front_chart"]'
# What has the keyboard's focus: its tag, type and title, its outline (a slider's: its thumb's,
# the element around its hidden range input), and, inside the front's frame, the element
# focused there.
FOCUSED = """() => {
  const active = document.activeElement;
  const range = active.tagName === 'INPUT' && active.type === 'range';
  const style = getComputedStyle(range ? active.parentElement.parentElement : active);
  let inner = null;
  if (active.tagName === 'IFRAME') {
    const own = active.contentDocument && active.contentDocument.activeElement;
    inner = own ? own.id : null;
  }
  return {role: range ? 'slider' : active.getAttribute('role'), tag: active.tagName,
          title: active.getAttribute('title') || '',
          outline: [style.outlineStyle, parseFloat(style.outlineWidth)], inner: inner};
}"""


def _front_drawn(page) -> object:  # noqa: ANN001
    element = page.locator(FRONT_FRAME).first
    element.wait_for(timeout=TIMEOUT_MS)
    frame = element.element_handle().content_frame()
    frame.wait_for_function(
        "() => window.__frontChart && window.__frontChart.drawn > 0", timeout=TIMEOUT_MS
    )
    return frame


def _preference(page) -> str:  # noqa: ANN001
    return parse_qs(urlparse(page.url).query).get("pref", [""])[0]


@pytest.mark.slow
def test_tab_reaches_the_slider_with_a_clear_ring_then_the_front_whose_points_keys_pick(
    server: str,
    browser,  # noqa: ANN001
) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{server}/?size=240", timeout=TIMEOUT_MS)
        frame = _front_drawn(page)
        seen = []
        slider_ring = None
        for _ in range(80):
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUSED)
            seen.append(focused)
            if focused["role"] == "slider" and slider_ring is None:
                slider_ring = focused["outline"]
            if focused["tag"] == "IFRAME" and "front_chart" in focused["title"]:
                if focused["inner"] == "front":
                    break
                continue
        else:
            raise AssertionError(f"Tab never reached the front: {seen}")
        assert slider_ring is not None and slider_ring[0] == "solid" and slider_ring[1] >= 3, [
            (f["tag"], f["role"], f["title"][:30], f["outline"]) for f in seen
        ]
        assert (
            frame.evaluate("() => getComputedStyle(document.getElementById('front')).outlineStyle")
            == "solid"
        )
        before = _preference(page)
        page.keyboard.press("ArrowRight")
        frame.wait_for_function(
            "() => document.getElementById('spoken').textContent.length > 0", timeout=TIMEOUT_MS
        )
        spoken = frame.evaluate("() => document.getElementById('spoken').textContent")
        assert "preference" in spoken, spoken
        page.keyboard.press("Enter")  # picks the point: its preference becomes the page's
        page.wait_for_function(
            "(old) => new URLSearchParams(location.search).get('pref') !== old",
            arg=before,
            timeout=TIMEOUT_MS,
        )
        assert _preference(page) != before
    finally:
        context.close()


@pytest.mark.slow
def test_on_a_phone_the_front_comes_right_under_the_slider(server: str, browser) -> None:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{server}/?size=240", timeout=TIMEOUT_MS)
        _front_drawn(page)
        page.wait_for_function(
            """() => [...document.querySelectorAll('[data-testid="stColumn"] canvas, video')]
                       .some((element) => element.getBoundingClientRect().height > 0)""",
            timeout=TIMEOUT_MS,
        )
        places = page.evaluate(
            """(selector) => {
              const top = (element) => element.getBoundingClientRect().top + window.scrollY;
              const sliders = [...document.querySelectorAll('[data-testid="stSlider"]')];
              const slider = sliders[sliders.length - 1];
              // The episode's picture: the live canvas or the video, whichever is shown.
              const video = [...document.querySelectorAll('[data-testid="stColumn"] canvas, video')]
                .find((element) => element.getBoundingClientRect().height > 0);
              return {slider: slider.getBoundingClientRect().bottom + window.scrollY,
                      front: top(document.querySelector(selector)),
                      video: video ? top(video) : null};
            }""",
            FRONT_FRAME,
        )
    finally:
        context.close()
    assert places["front"] > places["slider"], places
    assert places["front"] - places["slider"] < 844 / 2, places  # in the same screen
    assert places["video"] > places["front"], places  # the episode's picture after it
