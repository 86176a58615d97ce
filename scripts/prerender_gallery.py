"""Record the bundled demo's default gallery into assets/rollouts/, so that a fresh install's
Gallery page plays its tiles at once instead of recording them first, and without loading the
agent first (its saved layout: `paretoscope.behaviour.saved_layout`).

It starts `paretoscope dashboard` on the assets (a fresh video cache, idle pre-rendering off),
opens the Gallery page with the default env and agent in Debian's Chromium, as a viewer does,
waits until every tile is recorded and its behaviour clusters are named, and copies what the
page wrote into the cache (each recording it made, ``<key>.mp4`` and ``<key>.json``, and the
layout, ``galleries/<key>.json``, in place of the layouts shipped before) into the assets'
``rollouts/``, the folder the recording library reads before its cache. A page that found
everything shipped writes nothing, and nothing is copied. Recordings shipped before stay (their
keys name what they are): remove the old ones by hand after a change of agent. The keys are the
page's own: nothing here recomputes which episodes the page asks for. Needs the test extra
(Playwright) and /usr/bin/chromium:

    python scripts/prerender_gallery.py [--assets assets]

Run it again after the default agent, its sweep, the recording code or the layout's
(`LAYOUT_VERSION`) changes: a key that no longer matches is never read (and
`tests/test_dashboard_gallery.py` says so).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_gallery import open_gallery  # noqa: E402
from benchmarks.server import dashboard_server  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

TILES = 9  # the Gallery page's default
TIMEOUT = 1800.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=ROOT / "assets")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from paretoscope.behaviour.saved_layout import GALLERIES_SUBDIR
    from paretoscope.cache import RECORDINGS_SUBDIR
    from paretoscope.catalog import ROLLOUTS_DIR

    os.environ["PARETOSCOPE_PRERENDER"] = "0"  # only what the page itself records
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        with dashboard_server(args.assets, cache) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            seconds, _ = open_gallery(page, server.url, TILES, TIMEOUT)
            print(f"the gallery's {TILES} tiles played after {seconds:.1f} s", flush=True)
            page.get_by_text("Behaviour clusters (k-means").wait_for(timeout=TIMEOUT * 1000)
            browser.close()
        written = cache / RECORDINGS_SUBDIR
        layouts = sorted((written / GALLERIES_SUBDIR).glob("*.json"))
        if not layouts:
            print("the page drew the shipped layout and recorded nothing: nothing to copy")
            return 0
        (layout,) = layouts
        target = args.assets / ROLLOUTS_DIR
        (target / GALLERIES_SUBDIR).mkdir(parents=True, exist_ok=True)
        for stale in (target / GALLERIES_SUBDIR).glob("*.json"):
            stale.unlink()  # the page would not read it: another agent, version or setting
            print(f"removed  {stale}")
        parts = [layout]
        for video in sorted(written.glob("*.mp4")):
            parts += [video, video.with_suffix(".json")]
        for part in parts:
            copied = target / part.relative_to(written)
            shutil.copy2(part, copied)
            print(f"{part.stat().st_size:>9}  {copied}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
