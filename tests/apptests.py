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
