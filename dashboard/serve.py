"""Serve the dashboard: Streamlit's own command line, with the imports warmed around it.

``python -m paretoscope.dashboard.serve run dashboard/app.py [streamlit flags] -- --assets DIR`` is
``python -m streamlit run ...`` that first checks the Streamlit internals the dashboard uses
(`paretoscope.dashboard.streamlit_internals`: one warning in the log for each one missing, whose
slower path the dashboard then takes), then, in a thread once Streamlit's server listens,
chooses the OpenGL backend and imports what the first page run needs before its first widget
(pandas, plotly, the UI modules), then the rest (torch, the agents, evaluation, rendering) if
no page starts within seconds: `paretoscope.dashboard.warmup` says why nothing heavy runs while
a browser loads the page. It also adds the route that sends live streams' frames
(`paretoscope.dashboard.frame_feed`), bounds the time a connection takes to send a request's
head (`paretoscope.dashboard.request_heads`), has the page it sends fetch the first page's
widget code early (`paretoscope.dashboard.page_preload`), and skips Streamlit's check for a run
without ``streamlit run`` (`streamlit_internals.skip_direct_run_check`), and has software OpenGL
draw in the threads that ask (`paretoscope.pacing.priority.draw_in_calling_threads`).
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    from paretoscope.dashboard import frame_feed, memory, page_preload, request_heads, warmup
    from paretoscope.dashboard import streamlit_internals as internals
    from paretoscope.pacing.priority import draw_in_calling_threads

    draw_in_calling_threads()  # before warmup makes the first OpenGL context

    internals.check_all()
    internals.skip_direct_run_check()
    frame_feed.install()
    request_heads.install()
    page_preload.install()
    warmup.start(after_listening=internals.on_server_start(warmup.server_listening))
    memory.start_log_from_env()

    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    runpy.run_module("streamlit", run_name="__main__")  # ``python -m streamlit``


if __name__ == "__main__":
    main()
