"""Memory after a burst: does the dashboard server give back what a burst of slider moves took?

    python benchmarks/bench_memory.py [--pages explore,compare] [--moves 60] [--idle 60]
                                      [--every 0.3 1.0] [--assets DIR] [--size 320]

Starts `paretoscope dashboard` (fresh video cache) on the bundled demo (assets/), opens one
headless Chromium page per name in --pages (explore: `/`, compare: `/compare`), lets each load
and play its first video, and measures the RSS of the server's process group (Python and the
ffmpeg encoders): "pre-burst". Then every page moves its preference slider --moves times, one
move every --every seconds (a seeded random walk, not waiting for the episodes), and waits for
its last preference's video. Then the server idles --idle seconds twice: with the pages still
open (a viewer looking at the result), then after closing them (the viewers left). Prints
pre-burst, peak and post-idle RSS with the ratio post / pre, and a breakdown at each stage: the
Python process against its children (ffmpeg), the server's own sizes
(`paretoscope.dashboard.memory`,
logged through ``$PARETOSCOPE_MEMORY_LOG``: recording library, job board, glibc heap in use and
free) and Streamlit's (``/_stcore/metrics``: caches, session states, media files). Exits
non-zero when either post-idle RSS is above 1.2 × pre-burst, or a page shows an error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.bench_load import READ, sample_memory  # noqa: E402
from benchmarks.procfs import processes  # noqa: E402
from benchmarks.server import dashboard_server  # noqa: E402
from benchmarks.verdict import verdict  # noqa: E402
from paretoscope.dashboard.memory import MEMORY_LOG_ENV_VAR  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, EPISODE_VIDEO  # noqa: E402

TOLERANCE = 1.2
PATHS = {"explore": "/", "compare": "/compare"}
# The page's own preference slider (the sidebar has none, Compare's is its only one).
SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'
# A playable video under a caption naming `expected` as the second objective's weight, or
# (Compare, no caption) any playable video once the page is no longer stale.
PLAYING = """
(expected) => {
  if (document.querySelector('[data-stale="true"]')) return false;
  const video = document.querySelector('EPISODE_VIDEO');
  if (!video || video.readyState < 2) return false;
  if (expected === null) return true;
  return Array.from(document.querySelectorAll('[data-testid="stCaptionContainer"]')).some(
    (c) => {
      const m = /^Preference \\S+ ([\\d.]+), \\S+ ([\\d.]+)/.exec(c.textContent.trim());
      return m && Math.abs(parseFloat(m[2]) - expected) < 1e-6;
    });
}
""".replace("EPISODE_VIDEO", EPISODE_VIDEO)
MB = 2**20


def group_processes(group: int) -> list[tuple[int, str, int]]:
    """(pid, command name, RSS bytes) of every process in the process group `group`."""
    return [
        (process.pid, process.name, process.rss())
        for process in processes()
        if process.group == group
    ]


def anonymous_rss(pid: int) -> int:
    """Bytes of `pid`'s resident memory that is anonymous (heaps, arenas; not mapped files)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Anonymous:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def streamlit_sizes(url: str) -> dict[str, float]:
    """Bytes Streamlit reports on /_stcore/metrics, summed per family and cache type."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10) as reply:
            text = reply.read().decode()
    except OSError:
        return {}
    sums: dict[str, float] = defaultdict(float)
    for line in text.splitlines():
        match = re.match(r"^(\w+?)(?:_bytes)?(\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if not match or not line.split("{")[0].split(" ")[0].endswith("_bytes"):
            continue
        family, labels, value = match.groups()
        kind = re.search(r'cache_type="(\w+)"', labels or "")
        sums[family + (f"[{kind.group(1)}]" if kind else "")] += float(value)
    return dict(sums)


def last_snapshot(log: Path) -> dict[str, Any]:
    try:
        lines = log.read_text().splitlines()
        return json.loads(lines[-1]) if lines else {}
    except (OSError, ValueError):
        return {}


def breakdown(stage: str, group: int, url: str, log: Path) -> dict[str, Any]:
    """Print and return what the server holds at `stage`."""
    found = group_processes(group)
    python = sum(rss for pid, _, rss in found if pid == group)
    children = [(name, rss) for pid, name, rss in found if pid != group]
    ffmpeg = [rss for name, rss in children if "ffmpeg" in name]
    server = last_snapshot(log)
    sizes = streamlit_sizes(url)
    total = python + sum(rss for _, rss in children)
    print(
        f"[{stage}] group {total / MB:.0f} MB: python {python / MB:.0f} MB "
        f"({anonymous_rss(group) / MB:.0f} MB anonymous), "
        f"{len(children)} children {sum(r for _, r in children) / MB:.0f} MB "
        f"({len(ffmpeg)} ffmpeg)",
        flush=True,
    )
    if server:
        malloc = server.get("malloc", {})
        print(
            f"  server: library {server['library_entries']} entries "
            f"{server['library_bytes'] / MB:.1f} MB; jobs {server['jobs']} "
            f"({server['job_history_frames']} frames of history); pool {server['pool_running']} "
            f"running {server['pool_waiting']} waiting; {server['threads']} threads; "
            f"{server['python_objects']} Python objects; malloc in use "
            f"{malloc.get('in_use', 0) / MB:.0f} MB, free kept "
            f"{malloc.get('free_kept', 0) / MB:.0f} MB, mmapped "
            f"{malloc.get('mmapped', 0) / MB:.0f} MB"
        )
    if sizes:
        print(
            "  streamlit: "
            + ", ".join(f"{name} {value / MB:.1f} MB" for name, value in sorted(sizes.items()))
        )
    return {"total": total, "python": python, "server": server, "streamlit": sizes}


def settle(page: Any, expected: float | None, timeout: float = 180.0) -> None:
    """Wait until `page` plays the video of its current preference."""
    try:
        page.wait_for_function(PLAYING, arg=expected, timeout=timeout * 1000)
    except Exception:
        shot = REPO / "test-artifacts" / "bench-memory-timeout.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        seen = page.evaluate(
            "() => ({stale: document.querySelectorAll('[data-stale=\"true\"]').length, "
            "videos: Array.from(document.querySelectorAll('video')).map((v) => v.readyState), "
            "captions: Array.from(document.querySelectorAll("
            "'[data-testid=\"stCaptionContainer\"]')).map((c) => c.textContent.slice(0, 80))})"
        )
        print(f"no video for {expected} after {timeout:.0f} s ({seen}): see {shot}", flush=True)
        raise


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=Path, default=REPO / "assets")
    parser.add_argument(
        "--pages", default="explore,compare", help="comma-separated: explore, compare"
    )
    parser.add_argument("--moves", type=int, default=60, help="slider moves per page")
    parser.add_argument("--every", type=float, nargs=2, default=(0.3, 1.0), metavar=("MIN", "MAX"))
    parser.add_argument("--idle", type=float, default=60.0, help="idle seconds after the burst")
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--workers", type=int, default=None, help="rollout workers (cores)")
    args = parser.parse_args()
    names = [name.strip() for name in args.pages.split(",") if name.strip()]
    if not names or any(name not in PATHS for name in names):
        sys.exit(f"--pages: expected names among {sorted(PATHS)}, got {args.pages!r}")
    if not CHROMIUM.is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    if not (args.assets / "manifest.json").is_file():
        sys.exit(f"{args.assets}: no manifest.json (build the demo, or name --assets)")
    if args.workers:
        os.environ["PARETOSCOPE_WORKERS"] = str(args.workers)
    from playwright.sync_api import sync_playwright

    cache = Path(tempfile.mkdtemp(prefix="bench-memory-cache-"))
    log = cache / "memory.jsonl"
    os.environ[MEMORY_LOG_ENV_VAR] = str(log)
    memory: list[int] = []
    stop_sampling = threading.Event()
    errors: set[str] = set()
    stages: dict[str, dict[str, Any]] = {}
    peak_children = 0
    with dashboard_server(args.assets, cache) as server:
        group, url = server.process.pid, server.url
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
                )
                contexts, pages = [], []
                for name in names:
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    page = context.new_page()
                    page.goto(f"{url}{PATHS[name]}?size={args.size}")
                    contexts.append(context)
                    pages.append(page)
                values, steps = [], []
                for page in pages:
                    slider = page.locator(SLIDER).first
                    slider.wait_for(state="attached", timeout=180_000)
                    values.append(float(slider.input_value() or 0.5))
                    steps.append(float(slider.get_attribute("step") or 0.05))
                for page, name, value in zip(pages, names, values, strict=True):
                    settle(page, value if name == "explore" else None)
                time.sleep(3.0)  # the runs that follow a finished video
                stages["pre-burst"] = breakdown("pre-burst", group, url, log)
                sampler = threading.Thread(
                    target=sample_memory, args=(group, stop_sampling, memory), daemon=True
                )
                sampler.start()

                # The burst: every page moves its slider, one page after the other, quickly.
                rng = random.Random(0)
                due = [time.monotonic() + rng.uniform(*args.every) for _ in pages]
                moves = [0] * len(pages)
                started = time.monotonic()
                while min(moves) < args.moves:
                    index = min(range(len(pages)), key=lambda i: due[i])
                    if moves[index] >= args.moves:
                        due[index] = float("inf")
                        continue
                    time.sleep(max(0.0, due[index] - time.monotonic()))
                    page = pages[index]
                    direction = rng.choice((-1, 1))
                    if not -1e-9 <= values[index] + direction * steps[index] <= 1 + 1e-9:
                        direction = -direction
                    values[index] = round(values[index] + direction * steps[index], 6)
                    page.locator(SLIDER).first.focus()
                    page.keyboard.press("ArrowRight" if direction > 0 else "ArrowLeft")
                    moves[index] += 1
                    due[index] = time.monotonic() + rng.uniform(*args.every)
                    children = len(group_processes(group)) - 1
                    peak_children = max(peak_children, children)
                print(
                    f"burst: {sum(moves)} moves in {time.monotonic() - started:.0f} s "
                    f"(peak {peak_children} children seen)",
                    flush=True,
                )
                stages["burst"] = breakdown("end of burst", group, url, log)
                time.sleep(2.0)  # the last moves' reruns start
                for page, name in zip(pages, names, strict=True):
                    # Where the slider is now (a key press during a rerun may have been lost).
                    value = float(page.locator(SLIDER).first.input_value())
                    settle(page, round(value, 2) if name == "explore" else None)
                    errors.update(page.evaluate(READ)["errors"])
                print(f"last videos playing after {time.monotonic() - started:.0f} s", flush=True)
                stages["settled"] = breakdown("settled", group, url, log)

                time.sleep(args.idle)
                stages["idle, pages open"] = breakdown("idle, pages open", group, url, log)
                for page in pages:
                    errors.update(page.evaluate(READ)["errors"])
                for context in contexts:
                    context.close()
                browser.close()
            time.sleep(args.idle)
            stages["idle, pages closed"] = breakdown("idle, pages closed", group, url, log)
        finally:
            stop_sampling.set()

    pre = stages["pre-burst"]["total"]
    peak = max([*memory, pre])
    failures = [f"a page shows an error: {error}" for error in sorted(errors)]
    workers = os.environ.get("PARETOSCOPE_WORKERS") or os.cpu_count()
    print(
        f"assets: {args.assets}; pages {','.join(names)}, {args.moves} moves each every "
        f"{args.every[0]}-{args.every[1]} s, idle {args.idle:.0f} s, video "
        f"{args.size}x{args.size}, workers {workers}"
    )
    print(f"server RSS (process group): pre-burst {pre / MB:.0f} MB, peak {peak / MB:.0f} MB")
    for stage in ("idle, pages open", "idle, pages closed"):
        post = stages[stage]["total"]
        ratio = post / pre if pre else float("nan")
        print(
            f"  after the burst and {args.idle:.0f} s idle, {stage[6:]}: {post / MB:.0f} MB "
            f"= {ratio:.2f} x pre-burst"
        )
        if post > TOLERANCE * pre:
            failures.append(f"{stage}: {post / MB:.0f} MB > {TOLERANCE} x {pre / MB:.0f} MB")
    return verdict(failures, load=False)


if __name__ == "__main__":
    sys.exit(main())
