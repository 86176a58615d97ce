"""paretoscope's dashboard, served by ``paretoscope dashboard [--assets DIR]``.

One page per view (Explore, Compare, Gallery, Many objectives, Choose, RTG & metrics, Training,
Dataset, Presentation) under `st.navigation`; the sidebar holds the shared choices, mirrored in
the URL.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

# Served by `paretoscope.dashboard.serve`: wait for its first imports; this run imports the rest
# itself.
from paretoscope.dashboard import warmup

warmup.page_started()

# The grid worlds draw with pygame: a server has no window or sound card, so SDL gets its dummy
# drivers unless told otherwise (else every env it opens logs audio errors).
from paretoscope.envs.dependencies import headless_pygame  # noqa: E402

headless_pygame()

# Choose the OpenGL backend before anything imports mujoco (sets MUJOCO_GL when unset).
from paretoscope.render.backend import RenderingUnavailable, ensure_gl_backend  # noqa: E402

with contextlib.suppress(RenderingUnavailable):
    ensure_gl_backend()  # pages that need video say when it fails; everything else works

import streamlit as st  # noqa: E402

from paretoscope.dashboard import sidebar, trace  # noqa: E402
from paretoscope.dashboard.messages import guard, show_problem  # noqa: E402
from paretoscope.dashboard.page_icon import page_icon  # noqa: E402
from paretoscope.dashboard.page_style import apply_page_style  # noqa: E402
from paretoscope.dashboard.plugins import register_plugins  # noqa: E402

_VIEWS = Path(__file__).resolve().parent / "views"

# The run began (the page's own "run" mark follows its sidebar and slider).
trace.mark("start", scope="app")

st.set_page_config(page_title="paretoscope", page_icon=page_icon(), layout="wide")
apply_page_style()
page = st.navigation(
    [
        st.Page(
            _VIEWS / "explore.py",
            title="Explore",
            icon=":material/tune:",
            default=True,
        ),
        st.Page(
            _VIEWS / "compare.py", title="Compare", icon=":material/compare:", url_path="compare"
        ),
        st.Page(
            _VIEWS / "gallery.py",
            title="Gallery",
            icon=":material/grid_view:",
            url_path="gallery",
        ),
        st.Page(
            _VIEWS / "decide.py",
            title="Many objectives",
            icon=":material/scatter_plot:",
            url_path="decide",
        ),
        st.Page(
            _VIEWS / "choose.py",
            title="Choose",
            icon=":material/thumbs_up_down:",
            url_path="choose",
        ),
        st.Page(_VIEWS / "rtg.py", title="RTG & metrics", icon=":material/target:", url_path="rtg"),
        st.Page(
            _VIEWS / "training.py",
            title="Training",
            icon=":material/timeline:",
            url_path="training",
        ),
        st.Page(
            _VIEWS / "dataset.py", title="Dataset", icon=":material/dataset:", url_path="dataset"
        ),
        st.Page(
            _VIEWS / "presentation.py",
            title="Presentation",
            icon=":material/movie:",
            url_path="tour",
        ),
    ]
)
st.session_state.pop("_context", None)
# The server's plug-in agents (its --agent flags, installed entry points), once per process and
# before the sidebar lists agents; one that cannot be imported is an error here, not a crash.
with guard("plug-ins"):
    for what, why in register_plugins():
        show_problem("error", what, why)
with guard("sidebar"):
    sidebar.sidebar()
page.run()
