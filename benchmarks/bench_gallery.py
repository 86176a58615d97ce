"""The Gallery page on the bundled demo's default agent, in a real browser.

    python benchmarks/bench_gallery.py [--tiles 9] [--samples 20]

Starts `paretoscope dashboard` on the bundled demo (an empty video cache), opens the Gallery
page with the default env and agent and measures the seconds from the navigation to every tile
playing (`window.__gallery.allPlayingAt` in the gallery's frame): first as the fresh server's
first viewer (the demo ships its default gallery's recordings and layout in assets/rollouts/,
made by scripts/prerender_gallery.py; without them the tiles are recorded first), then again in
a new page, as the next viewer. While they play it samples every tile's
`currentTime` at once and prints the largest difference between two tiles, against one frame.
Prints the machine's load too.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.server import dashboard_server  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.e2e.test_gallery_browser import TILE_TIMES, playing_frame  # noqa: E402


def open_gallery(page, url: str, tiles: int, timeout: float) -> tuple[float, object]:  # noqa: ANN001
    """Seconds from navigation to all `tiles` playing, and the gallery's frame."""
    started = time.monotonic()
    page.goto(f"{url}/gallery", timeout=timeout * 1000)
    frame = playing_frame(page, tiles, timeout)
    return time.monotonic() - started, frame


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiles", type=int, default=9)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from paretoscope.catalog import bundled_assets_dir

    print(f"load average before: {os.getloadavg()}")
    with (
        tempfile.TemporaryDirectory() as cache,
        dashboard_server(bundled_assets_dir(), Path(cache)) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        for what in ("the fresh server's first viewer", "the next viewer"):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            seconds, frame = open_gallery(page, server.url, args.tiles, args.timeout)
            print(f"opening to all {args.tiles} tiles playing ({what}): {seconds:.2f} s")
            # A gallery drawn without its clusters is drawn once more with them (a new frame):
            # the samples are taken in the frame that shows the named clusters.
            page.get_by_text("Behaviour clusters (k-means").wait_for(timeout=args.timeout * 1000)
            frame = playing_frame(page, args.tiles, args.timeout)
            worst, one_frame = 0.0, 0.0
            for _ in range(args.samples):
                sample = frame.evaluate(TILE_TIMES)
                times = [t for t in sample["times"] if t is not None]
                worst = max(worst, max(times) - min(times))
                one_frame = sample["frame"]
                page.wait_for_timeout(100)
            print(
                f"  tiles' largest time difference over {args.samples} samples: "
                f"{worst * 1000:.1f} ms (one frame: {one_frame * 1000:.1f} ms)"
            )
            page.close()
        browser.close()
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
