"""Serve the dashboard: Streamlit's own command line, with the imports warmed around it.

``python -m dashboard.serve run dashboard/app.py [streamlit flags] -- --assets DIR`` is
``python -m streamlit run ...`` that, in a thread while Streamlit starts, chooses the
OpenGL backend and imports what the first page run needs before its first widget (pandas,
plotly, the UI modules), then the rest (torch, the agents, evaluation, rendering) if no page
starts within seconds: `dashboard.warmup` says why nothing heavy runs while a browser loads the
page. It also adds the route that sends live streams' frames (`dashboard.frame_feed`), and has
the page it sends fetch the first page's widget code early (`dashboard.page_preload`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    from streamlit.web import cli

    from dashboard import frame_feed, memory, page_preload, warmup

    skip_direct_run_warning()
    frame_feed.install()
    page_preload.install()
    warmup.start()
    memory.start_log_from_env()

    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


def skip_direct_run_warning() -> None:
    """Streamlit's first element in a process checks whether the app was run without
    ``streamlit run``, through `inspect.stack()` on the script thread, which maps the file of
    every imported module (2,500 here): 0.3-0.9 s before the first page's first widget. This
    command always serves with ``streamlit run``, so the warning never applies."""
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True


if __name__ == "__main__":
    main()
