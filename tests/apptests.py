"""Driving the dashboard with Streamlit's AppTest: the app, opened with a link's values, and
the check every page test makes that nothing failed."""

from __future__ import annotations

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


def count_episode_recordings(monkeypatch) -> list[tuple[float, ...]]:  # noqa: ANN001
    """The preference of every single-episode recording made from now on (paced live ones and
    others alike), in order."""
    from core.recordings import EpisodeRequest

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
