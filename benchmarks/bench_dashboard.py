"""Dashboard speed in a real browser (Playwright + Debian's Chromium), as a user feels it.

    python benchmarks/bench_dashboard.py [--assets DIR] [--size 320] [--repeats 5] [--floor]

Measures, with a fresh video cache:
- cold start: from launching `paretoscope dashboard` to an interactive page (the preference
  slider usable), and on to the first frame and the first playing video;
- slider change to the first streamed frame (a preference never seen before);
- a previously seen preference: slider change to its video ready to play (readyState >= 2).
The server runs with idle pre-rendering off ($PARETOSCOPE_PRERENDER=0): with it on, the
"new" preferences next to the default one would be played from the cache (a seen preference).
Defaults to the bundled demo (assets/ with a manifest), else tiny generated assets with
full-length episodes. Prints medians (and all runs) of each figure, and the load averages
before and after (the machine is shared: compare figures taken at a similar load).

--floor measures the same cold start and seen-preference figures on `floor_app.py`, a bare
Streamlit page with the same flags, slider, caption and two of the run's MP4s: what Streamlit
and Chromium alone cost on this machine now, the bound under the dashboard's figures.
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

from benchmarks.server import dashboard_server, floor_server  # noqa: E402
from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    EPISODE_VIDEO,
    FRAME_NAME,
    STREAMED_FRAME,
)

# Browser-side timers: each returns milliseconds measured with performance.now(). The page is
# ready for a preference when the caption under the video names it (neighbouring preferences of
# a policy set can give byte-identical videos, so a changed video source is no signal) and the
# video can play.
ARM = """
(expected) => {
  const FRAME = 'STREAMED_FRAME';
  const name = FRAME_NAME;
  const frames = () => Array.from(document.querySelectorAll(FRAME));
  // New: a frame not on the page at the move, not of an episode the live picture (kept across
  // runs) showed then, not left over from the run before; or drawn at full strength while
  // Streamlit still marks it stale (it does so for about half a second, then fades it).
  const seen = new Set(frames().map(name));
  const before = new Set(frames().map((frame) => frame.dataset.episode).filter(Boolean));
  const shown = (frame) => {
    if (!name(frame) || seen.has(name(frame))) return false;
    if (frame.dataset.episode && before.has(frame.dataset.episode)) return false;
    const stale = frame.closest('[data-stale="true"]');
    return !stale || (frame.dataset.episode !== undefined &&
                      parseFloat(getComputedStyle(stale).opacity) >= 0.9);
  };
  const newFrame = () => frames().some(shown);
  window.__bench = {start: performance.now(), frame: null, video: null};
  const pattern = /^Preference \\S+ ([\\d.]+), \\S+ ([\\d.]+)/;
  const showsExpected = () => {
    for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
      const match = pattern.exec(caption.textContent.trim());
      if (match && Math.abs(parseFloat(match[2]) - expected) < 1e-6 &&
          !caption.closest('[data-stale="true"]')) return true;
    }
    return false;
  };
  const check = () => {
    const now = performance.now();
    if (window.__bench.frame === null && newFrame()) window.__bench.frame = now;
    const video = document.querySelector('EPISODE_VIDEO');
    if (window.__bench.video === null && video && video.readyState >= 2 && showsExpected())
      window.__bench.video = now;
    if (window.__bench.video === null) requestAnimationFrame(check);
  };
  new MutationObserver(() => {
    if (window.__bench.frame === null && newFrame()) window.__bench.frame = performance.now();
  }).observe(document.body, {subtree: true, childList: true, attributes: true,
                             attributeFilter: ['data-frame', 'src']});
  requestAnimationFrame(check);
}
"""
ARM = (
    ARM.replace("STREAMED_FRAME", STREAMED_FRAME)
    .replace("EPISODE_VIDEO", EPISODE_VIDEO)
    .replace("FRAME_NAME", FRAME_NAME)
)
READ = "() => window.__bench"
SLIDER = '[data-testid="stSlider"] input[type="range"]'


def default_assets(size_note: list[str]) -> Path:
    bundled = REPO / "assets"
    if (bundled / "manifest.json").is_file():
        size_note.append("the bundled demo (assets/)")
        return bundled
    from tests.demo_fixture import build_tiny_assets

    folder = Path(tempfile.mkdtemp(prefix="bench-assets-"))
    size_note.append("tiny generated assets, 500-step episodes (the bundled demo is not built)")
    return build_tiny_assets(folder, horizon=500)


def wait_bench(page, key: str, timeout: float = 120.0) -> float:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.evaluate(READ)
        if state and state.get(key) is not None:
            return (state[key] - state["start"]) / 1000.0
        time.sleep(0.02)
    raise TimeoutError(f"no {key} within {timeout} s")


def move(page, key: str) -> None:  # noqa: ANN001
    """Press `key` on the preference slider, timing from the key press."""
    slider = page.locator(SLIDER).first
    value = float(slider.get_attribute("aria-valuenow") or slider.input_value())
    step = float(slider.get_attribute("step") or 0.05)
    expected = min(1.0, value + step) if key == "ArrowRight" else max(0.0, value - step)
    page.evaluate(ARM, round(expected, 2))
    slider.focus()
    page.keyboard.press(key)


def load_averages() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def measure_floor(browser, videos: list[Path], runs: int, repeats: int) -> dict[str, list[float]]:  # noqa: ANN001
    """Cold starts of the floor page (launch -> answers, -> slider), then `repeats` moves each
    way (slider -> the other MP4 playable)."""
    figures: dict[str, list[float]] = {"healthy": [], "cold": [], "seen": []}
    for run in range(runs):
        with floor_server([str(video) for video in videos]) as server:
            figures["healthy"].append(server.healthy)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url)
            page.locator(SLIDER).first.wait_for(state="attached", timeout=120_000)
            figures["cold"].append(time.monotonic() - server.launched)
            page.wait_for_function(
                "() => { const v = document.querySelector('video'); "
                "return v && v.readyState >= 2; }",
                timeout=120_000,
            )
            if run == 0:
                for key in ["ArrowRight"] * repeats + ["ArrowLeft"] * repeats:
                    move(page, key)
                    figures["seen"].append(wait_bench(page, "video"))
            page.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=None)
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--floor", action="store_true", help="also measure a bare Streamlit page (floor_app.py)"
    )
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    os.environ["PARETOSCOPE_PRERENDER"] = "0"  # the servers started below inherit it
    note: list[str] = []
    assets = args.assets or default_assets(note)
    from playwright.sync_api import sync_playwright

    cold, to_frame, to_video, new_frames, new_videos, seen = [], [], [], [], [], []
    healthy: list[float] = []
    floor: dict[str, list[float]] = {}
    caches: list[Path] = []
    load_before = load_averages()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        for run in range(max(1, args.repeats // 2)):
            cache = Path(tempfile.mkdtemp(prefix="bench-cache-"))
            caches.append(cache)
            with dashboard_server(assets, cache) as server:
                started = server.launched
                healthy.append(server.healthy)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{server.url}/?size={args.size}")
                page.locator(SLIDER).first.wait_for(state="attached", timeout=120_000)
                cold.append(time.monotonic() - started)
                page.wait_for_selector(f"{STREAMED_FRAME}, video", timeout=120_000)
                to_frame.append(time.monotonic() - started)
                page.wait_for_function(
                    "() => { const v = document.querySelector('video'); "
                    "return v && v.readyState >= 2; }",
                    timeout=300_000,
                )
                to_video.append(time.monotonic() - started)
                if run == 0:
                    # New preferences: right, one step at a time (each streams a new episode).
                    for _ in range(args.repeats):
                        move(page, "ArrowRight")
                        new_frames.append(wait_bench(page, "frame"))
                        new_videos.append(wait_bench(page, "video", timeout=300))
                    # Seen preferences: back left over the same steps.
                    for _ in range(args.repeats):
                        move(page, "ArrowLeft")
                        seen.append(wait_bench(page, "video"))
                page.close()
        videos = sorted((caches[0] / "rollouts").glob("*.mp4"))[:2]
        if args.floor and len(videos) == 2:
            floor = measure_floor(browser, videos, max(1, args.repeats // 2), args.repeats)
        browser.close()
    load_after = load_averages()
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)

    def line(name: str, values: list[float]) -> str:
        runs = ", ".join(f"{value:.2f}" for value in values)
        return f"{name:<52} median {statistics.median(values):6.2f} s   ({runs})"

    print(f"assets: {note[0] if note else assets}; video {args.size}x{args.size}")
    print(line("cold start -> server answers", healthy))
    print(line("cold start -> interactive page (slider)", cold))
    print(line("cold start -> first frame or video", to_frame))
    print(line("cold start -> first video playable", to_video))
    print(line("slider -> first streamed frame (new preference)", new_frames))
    print(line("slider -> finished video playable (new preference)", new_videos))
    print(line("slider -> video playable (seen preference)", seen))
    if floor:
        print("floor: a bare Streamlit page, same flags, slider, caption and two of these MP4s")
        print(line("  cold start -> server answers", floor["healthy"]))
        print(line("  cold start -> interactive page (slider)", floor["cold"]))
        print(line("  slider -> other video playable", floor["seen"]))
    elif args.floor:
        print("floor: not measured (the first run made fewer than two videos)")
    print(f"load averages (1, 5, 15 min): before {load_before}; after {load_after}")


if __name__ == "__main__":
    main()
