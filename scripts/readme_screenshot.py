"""Take the README's screenshot: the Explore page on the bundled demo, as a first visitor sees it.

Starts `paretoscope dashboard` on the bundled assets (a fresh cache, a free port), opens the
page without a link's values (so it shows the manifest's default agent and preference), waits
until the episode's MP4 is ready and the front is drawn, and writes the page's top as
docs/images/dashboard-explore.png. Needs Debian's chromium and Playwright (the test extra):

    python scripts/readme_screenshot.py [--out docs/images/dashboard-explore.png]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
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

VIEWPORT = {"width": 1400, "height": 900}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "images" / "dashboard-explore.png"
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as cache,
        serving(start_cli_server(ROOT / "assets", Path(cache))) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        page.wait_for_function(
            f"() => {{ const v = document.querySelector('{EPISODE_VIDEO}');"
            " return v && v.readyState >= 2; }",
            timeout=300_000,
        )
        page.wait_for_selector('[data-testid="stException"]', state="detached", timeout=1_000)
        page.wait_for_timeout(3_000)  # the front chart's last redraw
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
        browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
