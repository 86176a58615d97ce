"""Choose page speed in a real browser (Playwright + Debian's Chromium), one viewer, as they feel
it: from an answer to both of the next question's videos playing.

    python benchmarks/bench_choose.py [--answers 20] [--size 320] [--assets DIR]

A dashboard server on the bundled demo (HalfCheetah, its MORvS agent) with a fresh video cache
and idle pre-rendering on (the page prepares the next pairs' episodes while the viewer
watches: that is what is measured). The viewer opens the Choose page (the level set to 0.999,
so that the session is not done before the last answer), waits for the first pair to play, and
then, `--answers` times: watches the pair through once (both videos end), answers (A and B in
turn), and the time to both new videos playing (decoded, their clocks moving) is taken. Prints
the median, the 95th percentile and every figure, where the time went (the server's trace,
`paretoscope.dashboard.trace`, and the browser's own clock: click -> the page's run starts ->
the pair's videos are sent; click -> the videos are on the page -> decoded -> playing), and the
load averages before and after (the machine may be shared: compare figures taken at a similar
load).
"""

from __future__ import annotations

import argparse
import json
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


# From the click on: when the pair's new videos are on the page, when both have a decoded frame
# and when both clocks move (the browser's clock, a check per animation frame).
WATCH_PAIR = """
(previous) => {
  const mark = {clicked: performance.now()};
  window.__pairMarks = mark;
  const step = () => {
    const videos = Array.from(document.querySelectorAll('EPISODE_VIDEO'))
      .filter((video) => !video.closest('[data-stale="true"]'));
    const sources = videos.map((video) => video.currentSrc || video.src);
    if (videos.length === 2 && sources.join(' ') !== previous.join(' ')) {
      mark.seen ??= performance.now();
      if (videos.every((video) => video.readyState >= 2)) mark.ready ??= performance.now();
      if (videos.every((video) => video.currentTime > 0 && !video.paused)) {
        mark.playing ??= performance.now();
      }
    }
    if (mark.playing === undefined) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
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


def split_delays(
    clicks: list[float],
    timings: list[float],
    trace: Path,
    browser_marks: list[dict[str, float]],
) -> dict[str, list[float]]:
    """Each answer's delay in parts: from the server's trace (the first page run that starts
    after the click, and its "pair sent" mark) and from the browser's marks (`WATCH_PAIR`)."""
    lines = trace.read_text().splitlines() if trace.is_file() else []
    events = [json.loads(line) for line in lines]
    parts: dict[str, list[float]] = {
        name: []
        for name in (
            "click -> run starts",
            "run starts -> pair sent",
            "click -> videos on page",
            "on page -> decoded",
            "decoded -> playing",
        )
    }
    for clicked, delay, marks in zip(clicks, timings, browser_marks, strict=True):
        shown = clicked + delay
        start = next(
            (
                event["t"]
                for event in events
                if event["event"] == "start" and clicked <= event["t"] <= shown
            ),
            None,
        )
        sent = next(
            (
                event["t"]
                for event in events
                if event["event"] == "pair sent" and (start or clicked) <= event["t"] <= shown
            ),
            None,
        )
        if start is not None:
            parts["click -> run starts"].append(start - clicked)
            if sent is not None:
                parts["run starts -> pair sent"].append(sent - start)
        if {"seen", "ready", "playing"} <= marks.keys():
            parts["click -> videos on page"].append((marks["seen"] - marks["clicked"]) / 1000)
            parts["on page -> decoded"].append((marks["ready"] - marks["seen"]) / 1000)
            parts["decoded -> playing"].append((marks["playing"] - marks["ready"]) / 1000)
    return parts


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
    trace = cache / "trace.jsonl"
    os.environ["PARETOSCOPE_TRACE"] = str(trace)
    timings: list[float] = []
    clicks: list[float] = []
    browser_marks: list[dict[str, float]] = []
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
                page.evaluate(WATCH_PAIR, sources)
                started = time.monotonic()
                clicks.append(started)
                page.get_by_role("button", name=label, exact=True).click()
                shown = page.wait_for_function(
                    PAIR_PLAYING, arg=sources, timeout=600_000, polling=50
                )
                timings.append(time.monotonic() - started)
                sources = shown.json_value()
                browser_marks.append(page.evaluate("window.__pairMarks"))
                print(f"answer {number + 1}: {timings[-1]:.2f} s", flush=True)
            browser.close()
        parts = split_delays(clicks, timings, trace, browser_marks)
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
    print("where the time went (median, p95, s):")
    for part, values in parts.items():
        if values:
            print(
                f"  {part:<26} {statistics.median(values):.2f}  {percentile(values, 0.95):.2f}"
                f"  ({len(values)} answers)"
            )
    print(f"load averages (1, 5, 15 min): before {load_before}; after {load_after}")


if __name__ == "__main__":
    main()
