"""Screenshot every page of the dashboard on the bundled demo, on a desktop and a phone screen.

Starts `paretoscope dashboard` on the bundled assets (a fresh cache, a free port, the same
server the browser tests and benchmarks start), opens each page `dashboard/app.py` registers
at 1440x900 and at 390x844, waits for that page's own content (an element: its chart, video or
table) and for the app to finish its run, and writes the first screen as
``docs/images/page-<page>-<width>x<height>.png``. Needs Debian's chromium (/usr/bin/chromium,
never a downloaded browser) and Playwright (the test extra):

    python scripts/page_screenshots.py [--out docs/images] [--page training ...]
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import (  # noqa: E402 - the repository's own server and browser helpers
    CHROMIUM,
    CHROMIUM_ARGS,
    EPISODE_VIDEO,
    serving,
    start_cli_server,
)

VIEWPORTS = ((1440, 900), (390, 844))
# A page's content can take minutes on a busy machine (an episode rendered, a sweep read).
CONTENT_TIMEOUT_MS = 600_000
SETTLE_TIMEOUT_MS = 300_000


def chart(key: str) -> str:
    """A Plotly chart the page drew with `key` (Streamlit marks a keyed element st-key-KEY)."""
    return f".st-key-{key} .js-plotly-plot"


@dataclass(frozen=True)
class PageShot:
    """One page: its url path (as app.py registers it), the link's values that show it with
    content on the bundled demo, and the element that says its content is there."""

    name: str  # the file's part: page-<name>-<w>x<h>.png
    url_path: str
    query: str
    ready: str  # a CSS selector, or a JavaScript function returning true when ready


# A finished episode's player, ready to show a picture (Explore's episode, Presentation's tour).
VIDEO_READY = (
    f"() => {{ const v = document.querySelector('{EPISODE_VIDEO}');"
    " return !!v && v.readyState >= 2; }"
)
# Choose's question: both finished episodes of its pair ready to show a picture.
PAIR_READY = (
    f"() => {{ const videos = [...document.querySelectorAll('{EPISODE_VIDEO}')]"
    ".filter((video) => !video.closest('[data-stale=\"true\"]'));"
    " return videos.length === 2 && videos.every((video) => video.readyState >= 2); }"
)
# The gallery drawn once every tile is recorded, coloured by behaviour cluster (the page names
# the clusters under it then), its tiles 8 s into their episodes: the gaits have parted.
GALLERY_CLUSTERED = """() => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
  .some((caption) => caption.textContent.includes('Behaviour clusters'))
  && [...document.querySelectorAll('iframe')].some((frame) => {
    const gallery = frame.contentWindow && frame.contentWindow.__gallery;
    return !!gallery && gallery.allPlayingAt !== null && gallery.playhead() > 8;
  })"""
# Nothing on the page is still a placeholder: no skeleton (a widget or element Streamlit has
# not drawn yet), and every component's frame has drawn its chart where it draws one.
SETTLED = """() => !document.querySelector('[data-testid^="stSkeleton"]')
  && [...document.querySelectorAll('iframe')].every((frame) => {
    const inner = frame.contentDocument;
    if (!inner || inner.readyState !== 'complete') return false;
    return !inner.querySelector('.js-plotly-plot') || !!inner.querySelector('.main-svg');
  })"""

# Every page of app.py; `registered_pages` checks that none is missing.
PAGES = (
    PageShot("explore", "", "", VIDEO_READY),
    PageShot("compare", "compare", "", chart("compare_front")),
    # Many objectives: the three-objective Hopper, its linked views (a component's frame).
    PageShot("decide", "decide", "env=MO-Hopper-v3", ".st-key-decide_views iframe"),
    PageShot("rtg", "rtg", "", chart("hv_figure")),
    PageShot("training", "training", "agent=halfcheetah-morvs-run", chart("train_front")),
    PageShot("dataset", "dataset", "", chart("dataset_coverage")),
    # Its tour, made at the first visit (about half a minute), then kept.
    PageShot("presentation", "tour", "", VIDEO_READY),
    # Nine HalfCheetah policies along MORvS's front: their gaits differ (about a minute).
    PageShot("gallery", "gallery", "", GALLERY_CLUSTERED),
    PageShot("choose", "choose", "", PAIR_READY),
)

# Streamlit shows its status widget while a script run is going on.
RUNNING = '[data-testid="stStatusWidget"]'


def registered_pages() -> set[str]:
    """The url paths of the `st.Page`s `dashboard/app.py` registers ("" for one without)."""
    tree = ast.parse((ROOT / "dashboard" / "app.py").read_text(encoding="utf-8"))
    paths = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "Page"
        ):
            named = {keyword.arg: keyword.value for keyword in node.keywords}
            url_path = named.get("url_path")
            paths.add(str(url_path.value) if isinstance(url_path, ast.Constant) else "")
    return paths


def wait_for_content(page, shot: PageShot) -> None:  # noqa: ANN001 - a Playwright page
    """The page's own element, then the end of the app's run (its status widget gone) and of
    its drawing (`SETTLED`)."""
    if shot.ready.startswith("()"):
        page.wait_for_function(shot.ready, timeout=CONTENT_TIMEOUT_MS)
    else:
        page.wait_for_selector(shot.ready, state="visible", timeout=CONTENT_TIMEOUT_MS)
    page.wait_for_selector(RUNNING, state="detached", timeout=SETTLE_TIMEOUT_MS)
    page.wait_for_function(SETTLED, timeout=SETTLE_TIMEOUT_MS)
    exceptions = page.locator('[data-testid="stException"]')
    if exceptions.count():
        raise RuntimeError(
            f"{shot.name}: the page shows an exception: {exceptions.first.inner_text()}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument(
        "--page",
        action="append",
        choices=[shot.name for shot in PAGES],
        help="only this page (repeatable; default: every page)",
    )
    args = parser.parse_args()
    missing = registered_pages() - {shot.url_path for shot in PAGES}
    if missing:
        parser.error(f"dashboard/app.py registers pages this script does not know: {missing}")
    chosen = [shot for shot in PAGES if args.page is None or shot.name in args.page]
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as cache,
        serving(start_cli_server(ROOT / "assets", Path(cache))) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        for width, height in VIEWPORTS:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            for shot in chosen:
                page.goto(f"{url}/{shot.url_path}?{shot.query}", timeout=CONTENT_TIMEOUT_MS)
                wait_for_content(page, shot)
                path = args.out / f"page-{shot.name}-{width}x{height}.png"
                page.screenshot(path=str(path))
                print(f"wrote {path}", flush=True)
            context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
