"""Linked many-objective views after a brush, on a 2,000-point sweep, in a real browser.

    python benchmarks/bench_linked_views.py [--granularity 9] [--brushes 12]

Starts `paretoscope dashboard` with a fruit-tree-v0 plug-in (six objectives; each preference
walks to its best fruit: tests/plugin_examples.py), opens the Many objectives page with the
preference grid at 1/G (G = 9: 2,002 policies), then brushes the parallel coordinates again and
again, each time over another axis and half, and measures in Chromium from the mouse's release
to the page showing the new selection everywhere: the caption's count, fresh, and the scatter
matrix's legend naming the same count. Also times the server's share in-process: decision
marks, both figures with their JSON, and the table, for the same points.
Prints medians and maxima, and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from math import comb
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    start_cli_server,
    stop_server,
    wait_healthy,
)

PLUGIN = "py:tests.plugin_examples:fruit_picker"
ENV = "fruit-tree-v0"

# The parallel-coordinates plot (one subplot, axes named by objectives), scrolled into view.
PARALLEL = """
() => {
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const plot = chart.querySelector('.js-plotly-plot');
    if (!plot || !plot.layout || !plot.layout.xaxis || !plot.layout.xaxis.ticktext) continue;
    if (plot.querySelectorAll('.subplot.xy').length !== 1) continue;
    plot.scrollIntoView({block: 'center'});
    const box = plot.querySelector('.nsewdrag').getBoundingClientRect();
    return {x: box.x, y: box.y, width: box.width, height: box.height,
            range: plot.layout.xaxis.range, yrange: plot.layout.yaxis.range};
  }
  return null;
}
"""

# Armed before a brush: the time from the mouse's release until a fresh caption counts a
# selection other than `previous` and the scatter matrix's legend shows the same count.
ARM = """
(args) => {
  const [previous, total] = args;
  window.__brush = {released: null, shown: null, count: null};
  window.addEventListener('mouseup', () => { window.__brush.released = performance.now(); },
                          {capture: true, once: true});
  const pattern = new RegExp('^(\\\\d+) of ' + total + ' policies selected');
  const check = () => {
    if (window.__brush.released !== null) {
      for (const caption of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
        if (caption.closest('[data-stale="true"]')) continue;
        const match = pattern.exec(caption.textContent.trim());
        if (!match || Number(match[1]) === previous) continue;
        const legends = [...document.querySelectorAll(
          '[data-testid="stPlotlyChart"] .legendtext')].map((e) => e.textContent);
        if (legends.includes('selected (' + match[1] + ')')) {
          window.__brush.shown = performance.now();
          window.__brush.count = Number(match[1]);
          return;
        }
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}
"""
READ = "() => window.__brush"


def server_share(granularity: int, repeats: int = 7) -> dict[str, float]:
    """Seconds the server spends on the linked views for one brush (medians), in-process."""
    import numpy as np

    from core.agents.builtin import load_agent
    from core.decision import aspiration_pick, decision_marks
    from core.evaluate import sweep
    from core.metrics import non_dominated
    from core.sweeps import mean_per_preference
    from dashboard.objective_views import (
        ViewPoints,
        parallel_coordinates_figure,
        scatter_matrix_figure,
    )

    table = sweep(load_agent(PLUGIN, ENV), ENV, granularity=granularity, seeds=[0], progress=False)
    returns = mean_per_preference(table, ENV)["returns"]
    names = [f"objective {i}" for i in range(returns.shape[1])]
    timings: dict[str, list[float]] = {"marks": [], "figures + JSON": [], "pick": []}
    rng = np.random.default_rng(0)
    for _ in range(repeats):
        started = time.perf_counter()
        marks = decision_marks(returns)
        timings["marks"].append(time.perf_counter() - started)
        started = time.perf_counter()
        pick = aspiration_pick(returns, returns.mean(axis=0))
        timings["pick"].append(time.perf_counter() - started)
        selected = rng.random(len(returns)) < 0.2
        started = time.perf_counter()
        points = ViewPoints(
            names,
            returns,
            ~non_dominated(returns),
            selected,
            {
                "knee": marks.knees,
                "compromise": [marks.compromise],
                "aspiration pick": [pick.index],
            },
            returns.mean(axis=0),
        )
        scatter_matrix_figure(points).to_json()
        parallel_coordinates_figure(points).to_json()
        timings["figures + JSON"].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in timings.items()}


def browser_brushes(granularity: int, brushes: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    total = comb(granularity + 5, 5)
    root = Path(tempfile.mkdtemp(prefix="bench-linked-"))
    (root / "assets").mkdir()
    process, url = start_cli_server(root / "assets", root / "cache", "--agent", PLUGIN)
    seconds: list[float] = []
    try:
        wait_healthy(url, process)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/decide?size=240&env={ENV}&agent={quote(PLUGIN, safe='')}")
            grid = page.get_by_role("spinbutton", name="Preference grid: multiples of 1/g")
            grid.wait_for(timeout=120_000)
            grid.fill(str(granularity))
            grid.press("Enter")
            page.get_by_text(f"{total} preferences").first.wait_for(timeout=300_000)
            page.wait_for_function(PARALLEL, timeout=120_000)
            time.sleep(2)
            previous = 0
            for brush in range(brushes):
                area = page.evaluate(PARALLEL)
                low, high = area["range"]
                axis = brush % 6
                x = area["x"] + (axis - low) / (high - low) * area["width"]

                def screen_y(value: float, area: dict = area) -> float:
                    bottom, top = area["yrange"]
                    return area["y"] + (top - value) / (top - bottom) * area["height"]

                top_half = brush % 2 == 0
                page.evaluate(ARM, [previous, total])
                page.mouse.move(x - 12, screen_y(1.1 if top_half else 0.5))
                page.mouse.down()
                page.mouse.move(x + 12, screen_y(0.5 if top_half else -0.1), steps=8)
                page.mouse.up()
                deadline = time.monotonic() + 60
                result = page.evaluate(READ)
                while result["shown"] is None and time.monotonic() < deadline:
                    time.sleep(0.02)
                    result = page.evaluate(READ)
                if result["shown"] is None:
                    print(f"  brush {brush}: no update within 60 s (same count as before?)")
                    continue
                seconds.append((result["shown"] - result["released"]) / 1000)
                previous = result["count"]
                print(f"  brush {brush}: {result['count']} selected, {seconds[-1]:.3f} s")
                time.sleep(1.0)  # let the replay's first frames go by, as a user would look
            browser.close()
    finally:
        stop_server(process)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--granularity", type=int, default=9)
    parser.add_argument("--brushes", type=int, default=12)
    args = parser.parse_args()
    total = comb(args.granularity + 5, 5)
    print(f"load average before: {os.getloadavg()}")
    print(f"{ENV}, six objectives, grid 1/{args.granularity}: {total} policies")
    share = server_share(args.granularity)
    print(
        "server share per brush (in-process medians): "
        + ", ".join(f"{name} {value * 1000:.0f} ms" for name, value in share.items())
        + " (the marks are cached per sweep: computed once, not per brush)"
    )
    seconds = browser_brushes(args.granularity, args.brushes)
    print(f"load average after: {os.getloadavg()}")
    if seconds:
        print(
            f"brush -> linked views updated in Chromium: median {statistics.median(seconds):.3f} s,"
            f" max {max(seconds):.3f} s over {len(seconds)} brushes"
        )


if __name__ == "__main__":
    main()
