"""Serve the dashboard: Streamlit's own command line, with the heavy imports warmed meanwhile.

``python -m dashboard.serve run dashboard/app.py [streamlit flags] -- --assets DIR`` is
``python -m streamlit run ...`` plus one background thread (`dashboard.warmup`) that, while the
server starts and the browser loads the page, chooses the OpenGL backend and imports what the
first page run needs (pandas, plotly, torch, the agents, evaluation, rendering).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    # Streamlit first: importing it builds plotly objects, which must not meet a half-imported
    # pandas from the warm-up thread.
    from streamlit.web import cli

    from dashboard import memory, warmup

    skip_direct_run_warning()
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
