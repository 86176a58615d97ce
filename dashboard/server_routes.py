"""Changes to the routes of the Streamlit server this process will start.

Streamlit (1.53 and later) builds its server's routes in
``starlette_app.create_streamlit_routes``; `edit_routes` chains an edit onto what it returns,
so that each of the dashboard's additions (`paretoscope.dashboard.frame_feed`,
`paretoscope.dashboard.page_preload`)
is one function of its own, whatever the others do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

RouteEdit = Callable[[list[Any]], list[Any]]


def edit_routes(edit: RouteEdit) -> bool:
    """Pass the routes of the server this process starts through `edit` (a new list). False,
    and nothing changes, where this Streamlit builds its routes some other way."""
    try:
        from streamlit.web.server.starlette import starlette_app
    except ImportError:
        return False
    streamlit_routes = getattr(starlette_app, "create_streamlit_routes", None)
    if streamlit_routes is None:
        return False

    def edited(runtime: Any) -> list[Any]:
        return edit(list(streamlit_routes(runtime)))

    starlette_app.create_streamlit_routes = edited
    return True
