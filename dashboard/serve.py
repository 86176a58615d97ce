"""Serve the dashboard: Streamlit's own command line, with the imports warmed around it.

``python -m paretoscope.dashboard.serve run dashboard/app.py [streamlit flags] -- --assets DIR`` is
``python -m streamlit run ...`` that, in a thread once Streamlit's server listens, chooses the
OpenGL backend and imports what the first page run needs before its first widget (pandas,
plotly, the UI modules), then the rest (torch, the agents, evaluation, rendering) if no page
starts within seconds: `paretoscope.dashboard.warmup` says why nothing heavy runs while a browser
loads the
page. It also adds the route that sends live streams' frames (`paretoscope.dashboard.frame_feed`),
and has
the page it sends fetch the first page's widget code early (`paretoscope.dashboard.page_preload`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any


def main(argv: Sequence[str] | None = None) -> None:
    from streamlit.web import cli

    from paretoscope.dashboard import frame_feed, memory, page_preload, warmup

    skip_direct_run_warning()
    frame_feed.install()
    page_preload.install()
    warmup.start(after_listening=on_server_start(warmup.server_listening))
    memory.start_log_from_env()

    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


def on_server_start(callback: Callable[[], None]) -> bool:
    """Call `callback` once the Streamlit server this process starts listens (after
    Streamlit's own ``bootstrap._on_server_start``). False, and nothing is called, where this
    Streamlit has no such step."""
    from streamlit.web import bootstrap

    streamlit_step = getattr(bootstrap, "_on_server_start", None)
    if streamlit_step is None:
        return False

    def started(server: Any) -> None:
        try:
            streamlit_step(server)
        finally:
            callback()

    bootstrap._on_server_start = started
    return True


def skip_direct_run_warning() -> None:
    """Streamlit's first element in a process checks whether the app was run without
    ``streamlit run``, through `inspect.stack()` on the script thread, which maps the file of
    every imported module (2,500 here): 0.3-0.9 s before the first page's first widget. This
    command always serves with ``streamlit run``, so the warning never applies."""
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True


if __name__ == "__main__":
    main()
