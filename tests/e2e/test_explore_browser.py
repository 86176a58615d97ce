"""`paretoscope.explore` in a real browser: its `.url` opens the dashboard on the agent and env
it was given, for the bundled demo's agent and for an agent in memory."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from paretoscope.agents import load
from paretoscope.api.explore import Explorer, explore
from paretoscope.catalog import bundled_assets_dir, discover_assets
from tests.e2e.conftest import screenshot
from tests.e2e.test_dashboard_browser import TIMEOUT_MS
from tests.e2e.test_first_upload_browser import shown_choice

DST = "deep-sea-treasure-v0"
DEMO_AGENT = bundled_assets_dir() / "agents" / "dst-gpi-ls"


@pytest.fixture
def quiet_servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The servers' files under this test's folder, a cache of their own, no pre-rendering."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")


@pytest.fixture
def demo_explorer(quiet_servers: None) -> Iterator[Explorer]:
    explorer = explore(DEMO_AGENT)
    yield explorer
    explorer.stop()


@pytest.fixture
def in_memory_explorer(quiet_servers: None) -> Iterator[Explorer]:
    explorer = explore(load(DEMO_AGENT))
    yield explorer
    explorer.stop()


def sidebar_choices(page, url: str) -> tuple[str, str]:  # noqa: ANN001 - Playwright's page
    """What the sidebar's Environment and Agent boxes show once the page at `url` has drawn."""
    page.goto(url, timeout=TIMEOUT_MS)
    boxes = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]')
    agent_box = boxes.filter(has_text="Agent").first
    agent_box.wait_for(timeout=TIMEOUT_MS)
    return shown_choice(boxes.filter(has_text="Environment").first), shown_choice(agent_box)


def test_the_demo_agent_s_page_opens_on_it(demo_explorer: Explorer, page) -> None:  # noqa: ANN001
    env_shown, agent_shown = sidebar_choices(page, demo_explorer.url)
    screenshot(page, "explore-demo-agent")
    assert DST in env_shown, env_shown
    # Shown by the label the demo's manifest gives it.
    label = discover_assets(bundled_assets_dir()).agent("dst-gpi-ls").label
    assert label in agent_shown, agent_shown
    # The page kept the link's agent (an unknown one would be replaced by the default there).
    assert "agent=dst-gpi-ls" in page.url and f"env={DST}" in page.url


def test_an_in_memory_agent_s_page_opens_on_it(
    in_memory_explorer: Explorer,
    page,  # noqa: ANN001
) -> None:
    env_shown, agent_shown = sidebar_choices(page, in_memory_explorer.url)
    screenshot(page, "explore-in-memory-agent")
    assert DST in env_shown, env_shown
    assert "morlb-gpi" in agent_shown, agent_shown
    assert "agent=morlb-gpi" in page.url and f"env={DST}" in page.url
