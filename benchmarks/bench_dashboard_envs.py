"""Any MO-Gymnasium env in the browser: slider -> first frame on minecart-v0 with the built-in
random agent (Playwright + Debian's Chromium), as a user feels it.

    python benchmarks/bench_dashboard_envs.py [--env minecart-v0] [--seed 17] [--size 320]
                                               [--repeats 5]

A fresh server on an empty assets folder (nothing but the registry and the built-in agent) and
a fresh video cache; the page is opened by link (``?env=minecart-v0&agent=random``). Then, per
repeat, one step of the first preference slider (a preference never seen: a new episode) and:
- slider -> first frame: the first streamed frame of the new episode, or its finished video
  ready to play when that comes first (a short episode can end before a frame is sent);
- slider -> video playable: the new episode's MP4 (readyState >= 2) under its caption.
The default seed's episode is long (529 steps, ~90 frames), so frames do stream. Prints the
median and every run of each figure, which of the two the first frame was, and the load.
"""

from __future__ import annotations

import argparse
import os
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

# Browser-side timers (performance.now(), milliseconds from the key press): the first streamed
# frame (an st.image added or changed), and the video for the expected first weight (its
# caption names it and is not stale) ready to play.
ARM = """
([name, expected]) => {
  const bench = {start: performance.now(), frame: null, video: null, streamed: false};
  window.__bench = bench;
  const frame = '[data-testid="stImage"]';
  const showsExpected = () => {
    for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
      const text = caption.textContent.trim();
      if (text.startsWith(`Preference ${name} ${expected}`) &&
          !caption.closest('[data-stale="true"]')) return true;
    }
    return false;
  };
  const videoReady = () => {
    const video = document.querySelector('EPISODE_VIDEO');
    return video && video.readyState >= 2 && showsExpected();
  };
  const isFrame = (node) => node.nodeType === 1 &&
    (node.matches(frame) || node.matches(`${frame} img`) || node.querySelector(frame) !== null);
  const observer = new MutationObserver((records) => {
    if (bench.frame === null && (records.some((r) => [...r.addedNodes].some(isFrame)) ||
                                 document.querySelector(`${frame} img`))) {
      bench.frame = performance.now();
      bench.streamed = true;
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  const check = () => {
    const now = performance.now();
    if (bench.video === null && videoReady()) {
      bench.video = now;
      if (bench.frame === null) bench.frame = now;
      observer.disconnect();
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}
""".replace("EPISODE_VIDEO", EPISODE_VIDEO)
READ = "() => window.__bench"
SLIDER = '[data-testid="stSlider"] input[type="range"]'


def wait_bench(page, key: str, timeout: float = 180.0) -> float:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.evaluate(READ)
        if state and state.get(key) is not None:
            return (state[key] - state["start"]) / 1000.0
        time.sleep(0.02)
    raise TimeoutError(f"no {key} within {timeout} s")


def load_average() -> str:
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="minecart-v0")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    from paretoscope.envs import get_spec

    first_objective = get_spec(args.env).objective_names[0]
    assets = Path(tempfile.mkdtemp(prefix="bench-envs-assets-"))
    cache = Path(tempfile.mkdtemp(prefix="bench-envs-cache-"))
    load_before = load_average()
    to_frame: list[float] = []
    to_video: list[float] = []
    streamed: list[bool] = []
    with dashboard_server(assets, cache) as server:
        started, url = server.launched, server.url
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(
                f"{url}/?size={args.size}&env={args.env}&agent=random&seed={args.seed}",
                timeout=180_000,
            )
            slider = page.locator(SLIDER).first
            slider.wait_for(state="attached", timeout=180_000)
            page.wait_for_function(
                "() => { const v = document.querySelector('video'); "
                "return v && v.readyState >= 2; }",
                timeout=300_000,
            )
            ready = time.monotonic() - started
            for _ in range(args.repeats):
                value = float(slider.get_attribute("aria-valuenow") or slider.input_value())
                step = float(slider.get_attribute("step") or 0.1)
                if value + step > 1.0 + 1e-9:
                    break
                expected = f"{value + step:.2f}"
                page.evaluate(ARM, [first_objective, expected])
                slider.focus()
                page.keyboard.press("ArrowRight")
                to_frame.append(wait_bench(page, "frame"))
                to_video.append(wait_bench(page, "video", timeout=300))
                streamed.append(bool(page.evaluate(READ)["streamed"]))
            browser.close()

    def line(name: str, values: list[float]) -> str:
        runs = ", ".join(f"{value:.2f}" for value in values)
        return f"{name:<46} median {statistics.median(values):6.2f} s   ({runs})"

    print(f"{args.env}, random agent, seed {args.seed}, video {args.size}x{args.size}")
    print(f"launch -> first video playable: {ready:.1f} s (server start, sweep, first episode)")
    print(line("slider -> first frame (new preference)", to_frame))
    print(line("slider -> video playable (new preference)", to_video))
    print(f"first frame was a streamed frame in {sum(streamed)} of {len(streamed)} moves")
    print(f"load average (1, 5, 15 min): before {load_before}; after {load_average()}")


if __name__ == "__main__":
    main()
