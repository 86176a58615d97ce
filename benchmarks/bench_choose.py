"""Choose page speed in a real browser (Playwright + Debian's Chromium), one viewer, as they feel
it: from an answer to both of the next question's videos playing.

    python benchmarks/bench_choose.py [--answers 20] [--size 320] [--assets DIR]

A dashboard server on the bundled demo (HalfCheetah, its MORvS agent) with a fresh video cache
and idle pre-rendering on (the page prepares the next pairs' episodes while the viewer
watches: that is what is measured). The viewer opens the Choose page (the level set to 0.999,
so that the session is not done before the last answer), waits for the first pair to play, and
then, `--answers` times: watches the pair through once (both videos end), answers (A and B in
turn), and the time to both new videos playing (decoded, their clocks moving) is taken. Prints
the median, the 95th percentile and every figure, and the load averages before and after (the
machine may be shared: compare figures taken at a similar load).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.server import dashboard_server  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, EPISODE_VIDEO  # noqa: E402
from tests.e2e.test_choose_browser import PAIR_PLAYING  # noqa: E402

ENV = "MO-HalfCheetah-v2"
AGENT = "halfcheetah-morvs"
TARGET_SECONDS = 1.0

# Counts the ends of the pair's videos from now on (the pair restarts once both ended).
COUNT_ENDS = """
() => {
  window.__pairEnds = 0;
  document.querySelectorAll('EPISODE_VIDEO').forEach((video) => {
    video.addEventListener('ended', () => { window.__pairEnds += 1; });
  });
}
""".replace("EPISODE_VIDEO", EPISODE_VIDEO)


def load_averages() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile (0 to 1) of `values`, interpolated between order statistics."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=None, help="default: the bundled demo")
    parser.add_argument("--answers", type=int, default=20)
    parser.add_argument("--size", type=int, default=320)
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    from paretoscope.catalog import bundled_assets_dir

    os.environ.pop("PARETOSCOPE_PRERENDER", None)  # on: the next pairs are prepared
    assets = args.assets or bundled_assets_dir()
    cache = Path(tempfile.mkdtemp(prefix="bench-choose-cache-"))
    timings: list[float] = []
    load_before = load_averages()
    try:
        with sync_playwright() as playwright, dashboard_server(assets, cache) as server:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(
                f"{server.url}/choose?env={ENV}&agent={AGENT}&size={args.size}&pbest=0.999",
                timeout=300_000,
            )
            shown = page.wait_for_function(PAIR_PLAYING, arg=None, timeout=600_000, polling=50)
            sources = shown.json_value()
            for number in range(args.answers):
                page.evaluate(COUNT_ENDS)
                page.wait_for_function("() => window.__pairEnds >= 2", timeout=600_000)
                label = "A" if number % 2 == 0 else "B"
                started = time.monotonic()
                page.get_by_role("button", name=label, exact=True).click()
                shown = page.wait_for_function(
                    PAIR_PLAYING, arg=sources, timeout=600_000, polling=50
                )
                timings.append(time.monotonic() - started)
                sources = shown.json_value()
                print(f"answer {number + 1}: {timings[-1]:.2f} s", flush=True)
            browser.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    load_after = load_averages()
    print(f"assets: {assets}; {AGENT} on {ENV}; video {args.size}x{args.size}")
    print(
        f"answer -> both next videos playing: median {statistics.median(timings):.2f} s, "
        f"p95 {percentile(timings, 0.95):.2f} s over {len(timings)} answers "
        f"(target p95 <= {TARGET_SECONDS:g} s)"
    )
    print("all: " + ", ".join(f"{value:.2f}" for value in timings))
    print(f"load averages (1, 5, 15 min): before {load_before}; after {load_after}")


if __name__ == "__main__":
    main()
