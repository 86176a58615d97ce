"""Driving the dashboard with Streamlit's AppTest: the app, opened with a link's values, and
the check every page test makes that nothing failed."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import REPO_DIR

APP = str(REPO_DIR / "dashboard" / "app.py")
TIMEOUT = 120


def open_app(query: dict[str, str] | None = None, timeout: float = TIMEOUT):  # noqa: ANN201 - an AppTest
    """The app run once with `query` as the link's values (240-pixel videos by default)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update({"size": "240", **(query or {})})
    return at.run()


def page_ok(at) -> None:  # noqa: ANN001 - an AppTest
    """No exception and no error message on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def component_arguments(at, name: str) -> list[dict[str, Any]]:  # noqa: ANN001 - an AppTest
    """The arguments of every custom component on the page whose arguments include `name`
    (the Explore page's front chart has ``front``)."""
    from tests.page_markup import walk

    found = []
    for node in walk(at._tree):
        if getattr(node, "type", "") == "component_instance":
            arguments = json.loads(node.proto.json_args)
            if name in arguments:
                found.append(arguments)
    return found


def front_chart_figure(at) -> dict[str, Any]:  # noqa: ANN001 - an AppTest
    """The figure the page's front chart draws (its front, then its marker traces), as JSON."""
    (arguments,) = component_arguments(at, "front")
    figure = json.loads(arguments["front"])
    figure["data"] = figure["data"] + arguments["moving"]
    figure["layout"]["annotations"] = arguments["annotations"]
    return figure


def count_episode_recordings(monkeypatch) -> list[tuple[float, ...]]:  # noqa: ANN001
    """The preference of every single-episode recording made from now on (paced live ones and
    others alike), in order."""
    from paretoscope.recordings import EpisodeRequest

    calls: list[tuple[float, ...]] = []
    record, record_live = EpisodeRequest.record, EpisodeRequest.record_live

    def counting(self, agents, on_frame=None, render=True):  # noqa: ANN001, ANN202
        calls.append(self.preference)
        return record(self, agents, on_frame, render)

    def counting_live(self, agents, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(self.preference)
        return record_live(self, agents, *args, **kwargs)

    monkeypatch.setattr(EpisodeRequest, "record", counting)
    monkeypatch.setattr(EpisodeRequest, "record_live", counting_live)
    return calls


def episode_videos(at) -> list[str]:  # noqa: ANN001 - an AppTest
    """The `<video>` markup of every episode player on the page (`widgets.episode_video`)."""
    from paretoscope.dashboard.widgets.episode_video import TEST_ID

    bodies = [html.proto.body for html in at.get("html")]
    return [body for body in bodies if f'data-testid="{TEST_ID}"' in body]
