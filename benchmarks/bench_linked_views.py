"""Linked many-objective views after a brush, on a 2,000-point sweep, in a real browser.

    python benchmarks/bench_linked_views.py [--granularity 9] [--brushes 12]

Starts `paretoscope dashboard` with a fruit-tree-v0 plug-in (six objectives; each preference
walks to its best fruit: tests/plugin_examples.py), opens the Many objectives page with the
preference grid at 1/G (G = 9: 2,002 policies), then brushes the parallel coordinates again and
again, each time over another axis and half, and measures from the mouse's release to both
views painted with the new selection (the browser links them: `window.__linkedViews` in the
views' frame records it), and on to the page's caption counting it (the server's run that
updates the table and the replay). Also times in-process what the server does once per sweep
or aspiration (decision marks, both figures and their JSON).
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

from benchmarks.server import cli_server  # noqa: E402
from tests.e2e.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    FRAME_AT_TOP,
    PARALLEL_PLOT_AREA,
)

PLUGIN = "py:tests.plugin_examples:fruit_picker"
ENV = "fruit-tree-v0"

# True once the scatter matrix in the frame holds `total` policies.
POLICIES_DRAWN = """
(total) => {
  const plot = document.getElementById('matrix');
  if (!plot || !plot.data) return false;
  return plot.data.reduce((sum, trace) => sum + (trace.customdata || []).length, 0) === total;
}
"""
# The selections drawn for brushes (not those the server sent), and the last of them.
BRUSHES = "() => window.__linkedViews.drawn.filter((d) => d.source !== 'server')"
# The page's caption counting the selection the server holds (the table and replay follow it).
SERVER_CAUGHT_UP = """
(expected) => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')].some(
  (c) => !c.closest('[data-stale="true"]') && c.textContent.trim().startsWith(expected))
"""


def server_share(granularity: int, repeats: int = 7) -> dict[str, float]:
    """Seconds the server spends on the linked views for one brush (medians), in-process."""

    from paretoscope.agents.builtin import load_agent
    from paretoscope.decision import aspiration_pick, decision_marks
    from paretoscope.evaluate import sweep
    from paretoscope.figures.objectives import (
        ViewPoints,
        parallel_coordinates_figure,
        scatter_matrix_figure,
    )
    from paretoscope.metrics import non_dominated
    from paretoscope.settings import SweepSettings
    from paretoscope.sweeps import mean_per_preference

    settings = SweepSettings(granularity=granularity, seeds=[0])
    table = sweep(load_agent(PLUGIN, ENV), ENV, settings, progress=False)
    returns = mean_per_preference(table, ENV)["returns"]
    names = [f"objective {i}" for i in range(returns.shape[1])]
    timings: dict[str, list[float]] = {"marks": [], "figures + JSON": [], "pick": []}
    for _ in range(repeats):
        started = time.perf_counter()
        marks = decision_marks(returns)
        timings["marks"].append(time.perf_counter() - started)
        started = time.perf_counter()
        pick = aspiration_pick(returns, returns.mean(axis=0))
        timings["pick"].append(time.perf_counter() - started)
        started = time.perf_counter()
        points = ViewPoints(
            names,
            returns,
            ~non_dominated(returns),
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


def browser_brushes(granularity: int, brushes: int) -> tuple[list[float], list[float]]:
    """Per brush: seconds until both views show it (in the browser), and until the page's
    caption counts it (the server's run that updates the table and the replay)."""
    from playwright.sync_api import sync_playwright

    total = comb(granularity + 5, 5)
    root = Path(tempfile.mkdtemp(prefix="bench-linked-"))
    (root / "assets").mkdir()
    seconds: list[float] = []
    server: list[float] = []
    with cli_server(root / "assets", root / "cache", "--agent", PLUGIN) as running:
        url = running.url
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1700})
            page.goto(f"{url}/decide?size=240&env={ENV}&agent={quote(PLUGIN, safe='')}")
            grid = page.get_by_role("spinbutton", name="Preference grid: multiples of 1/g")
            grid.wait_for(timeout=120_000)
            grid.fill(str(granularity))
            grid.press("Enter")
            page.get_by_text(f"{total} preferences").first.wait_for(timeout=300_000)
            time.sleep(2)
            frame_element = page.locator('iframe[title*="linked_views"]')
            frame_element.wait_for(timeout=120_000)
            frame = frame_element.element_handle().content_frame()
            frame.wait_for_function(PARALLEL_PLOT_AREA, timeout=120_000)
            frame.wait_for_function(POLICIES_DRAWN, arg=total, timeout=120_000)
            time.sleep(2)
            for brush in range(brushes):
                offset = frame_element.evaluate(FRAME_AT_TOP)
                area = frame.evaluate(PARALLEL_PLOT_AREA)
                low, high = area["range"]
                bottom, top = area["yrange"]
                axis = brush % 6
                x = offset[0] + area["x"] + (axis - low) / (high - low) * area["width"]

                def screen_y(value: float, area: dict = area, offset: list = offset) -> float:
                    bottom, top = area["yrange"]
                    return offset[1] + area["y"] + (top - value) / (top - bottom) * area["height"]

                top_half = brush % 2 == 0
                before = len(frame.evaluate(BRUSHES))
                page.mouse.move(x - 12, screen_y(1.1 if top_half else 0.5))
                page.mouse.down()
                page.mouse.move(x + 12, screen_y(0.5 if top_half else -0.1), steps=8)
                page.mouse.up()
                released = time.perf_counter()
                frame.wait_for_function(f"() => ({BRUSHES})().length > {before}")
                drawn = frame.evaluate(BRUSHES)[-1]
                seconds.append(drawn["sinceRelease"] / 1000)
                expected = f"{drawn['count'] or 'No'} of {total} policies selected"
                page.wait_for_function(SERVER_CAUGHT_UP, arg=expected, timeout=120_000)
                server.append(time.perf_counter() - released)
                print(
                    f"  brush {brush}: {drawn['count']} selected; views {seconds[-1]:.3f} s, "
                    f"table and replay caption {server[-1]:.3f} s"
                )
                time.sleep(1.0)  # let the replay's first frames go by, as a user would look
            browser.close()
    return seconds, server


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
        + " (all once per sweep or aspiration, none per brush)"
    )
    seconds, server = browser_brushes(args.granularity, args.brushes)
    print(f"load average after: {os.getloadavg()}")
    print(
        f"brush -> both linked views updated (mouse release to painted, in Chromium): median "
        f"{statistics.median(seconds):.3f} s, max {max(seconds):.3f} s over {len(seconds)} brushes"
    )
    print(
        f"brush -> the server's table and replay caption updated: median "
        f"{statistics.median(server):.3f} s, max {max(server):.3f} s"
    )


if __name__ == "__main__":
    main()
