"""The page asks no host but its own server, on every page: it works offline and tells no one
what its users look at (a Material icon as the tab's icon made the browser fetch its picture
from fonts.gstatic.com on every page). And no request to the server itself goes unanswered
(Streamlit's frontend, opened at a page's link, looked for its server under that path first)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

TIMEOUT_MS = 120_000
# Every page of the app by its link (app.py's `st.navigation`).
PAGES = ("", "compare", "decide", "choose", "rtg", "training", "dataset", "tour")


@pytest.mark.slow
def test_every_page_asks_only_its_own_server(server: str, browser) -> None:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    requested: list[str] = []
    failed: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    context.on(
        "response",
        lambda response: (
            failed.append(f"{response.status} {response.url}") if response.status >= 400 else None
        ),
    )
    page = context.new_page()
    page.on("websocket", lambda socket: requested.append(socket.url))
    own = urlparse(server).netloc
    try:
        for name in PAGES:
            page.goto(f"{server}/{name}?size=240", timeout=TIMEOUT_MS)
            page.wait_for_selector("h1", timeout=TIMEOUT_MS)
            # The run is over (Streamlit's "Running…" widget gone) and the document loaded (its
            # icons and fonts asked for). Not "networkidle": a page's live feed is one long
            # response, and a page streaming an episode (Presentation's first tour) is never idle.
            page.wait_for_selector(
                '[data-testid="stStatusWidget"]', state="detached", timeout=TIMEOUT_MS
            )
            page.wait_for_load_state("load", timeout=TIMEOUT_MS)
        # The pages' own links still lead there (the frontend is told its server's base URL).
        page.get_by_role("link", name="Compare").click(timeout=TIMEOUT_MS)
        page.get_by_role("heading", name="Compare").wait_for(timeout=TIMEOUT_MS)
        page.wait_for_load_state("load", timeout=TIMEOUT_MS)
        assert urlparse(page.url).path == "/compare"
    finally:
        context.close()
    assert any(urlparse(url).netloc == own for url in requested)  # the record works
    elsewhere = sorted(
        {
            url
            for url in requested
            if urlparse(url).scheme not in ("data", "blob", "about") and urlparse(url).netloc != own
        }
    )
    assert not elsewhere, elsewhere
    assert not failed, "\n".join(failed)
