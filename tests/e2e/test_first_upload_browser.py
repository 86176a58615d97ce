"""A new user's first hour in a real browser: open the dashboard, upload a MORL-Baselines
checkpoint, import it for the environment the page suggests, and see its front and its video.
Each step must explain itself: the texts a newcomer reads to go on are checked as shown."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES_DIR
from tests.e2e.conftest import screenshot, serving, start_server
from tests.e2e.test_dashboard_browser import TIMEOUT_MS, front_legend, wait_for_playing_video

DST = "deep-sea-treasure-v0"
ENVELOPE = FIXTURES_DIR / "morl-baselines" / "envelope" / DST / "Envelope.tar"
LABEL = f"Envelope · {DST}"
# Seconds of evaluating after which the viewer must have been shown a progress bar.
BAR_NEEDED_AFTER_S = 1.0
# The server's log line for an evaluation (`paretoscope.dashboard.loaders`).
EVALUATED = re.compile(rf"evaluated {re.escape(LABEL)}: (\d+) episodes in ([\d.]+) s")

# Records, while a progress bar shows, its text and any element of the previous run (stale)
# that is still visible: a page preparing a new agent shows nothing of the old one.
WATCH_PROGRESS = """
() => {
  window.__progress = {texts: [], staleShown: []};
  const look = () => {
    const bar = document.querySelector('[data-testid="stProgress"]');
    if (!bar) return;
    window.__progress.texts.push(bar.textContent.trim());
    const stale = '[data-testid="stElementContainer"][data-stale="true"]';
    for (const element of document.querySelectorAll(stale)) {
      if (element.getClientRects().length) {
        window.__progress.staleShown.push(element.textContent.trim().slice(0, 80));
      }
    }
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
                                                     attributes: true, characterData: true});
}
"""


def fresh_text(page, text: str):  # noqa: ANN001, ANN201 - Playwright's page and locator
    """The first element showing `text` drawn by the latest run (not a stale one)."""
    return page.locator(
        '[data-testid="stElementContainer"]:not([data-stale="true"])', has_text=text
    ).first


def shown_choice(box) -> str:  # noqa: ANN001 - a Playwright locator
    """What a select box shows: its label and its choice (kept in its input's value)."""
    return box.evaluate(
        "(box) => [box.textContent, ...[...box.querySelectorAll('input')].map((i) => i.value)]"
        ".join(' | ')"
    )


@pytest.fixture(scope="module")
def fresh_server(
    e2e_assets: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """A dashboard of its own, as a new user finds it: no upload, recording or sweep left by
    the other browser tests (their shared server holds their Envelope and its videos); its URL
    and its log."""
    started = start_server(e2e_assets, tmp_path_factory.mktemp("first-upload-cache"))
    with serving(started) as url:
        yield url, started[0].log_path


def evaluation_seconds(log_path: Path) -> float:
    """How long the server took to evaluate the imported agent's sweep, as it logged it."""
    found = EVALUATED.findall(log_path.read_text(errors="replace"))
    assert len(found) == 1, f"expected one evaluation of {LABEL} in the server's log: {found}"
    episodes, seconds = found[0]
    assert int(episodes) == 21, found
    return float(seconds)


def test_a_new_user_uploads_imports_and_watches_a_morl_baselines_agent(
    fresh_server: tuple[str, Path],
    page,  # noqa: ANN001
) -> None:
    url, log_path = fresh_server
    page.goto(f"{url}/?size=240", timeout=TIMEOUT_MS)
    sidebar = page.locator('[data-testid="stSidebar"]')
    panel = sidebar.get_by_text("Add agents and datasets")
    panel.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "first-upload-01-opened")

    # Upload: the panel names what it takes.
    panel.click()
    sidebar.get_by_text("MORL-Baselines .tar or .pt").wait_for(timeout=TIMEOUT_MS)
    sidebar.locator('input[type="file"]').set_input_files(str(ENVELOPE))

    # The form comes at the top of the page, headed by the file's name, and says what it needs.
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("heading", name="Import Envelope.tar").wait_for(timeout=TIMEOUT_MS)
    form = main.locator(".st-key-_import_box_Envelope")  # the form's box
    form.get_by_role("button", name="Import", exact=True).wait_for(timeout=TIMEOUT_MS)
    text = form.inner_text()
    assert "MORL-Baselines Envelope Q-learning checkpoint Envelope.tar" in text, text
    assert "press Import" in text, text
    assert "Its environment (MORL-Baselines does not save it)" in text, text
    assert (
        "Listed: the 3 environments whose observation and action sizes fit the file, "
        "the best guess first." in text
    ), text
    sidebar.get_by_text(
        "Envelope.tar is uploaded: say what it needs in the form at the top"
    ).wait_for(timeout=TIMEOUT_MS)
    # The suggested env: the one its sizes fit, not the page's HalfCheetah.
    chosen = shown_choice(form.locator('[data-testid="stSelectbox"]').first)
    assert DST in chosen and "HalfCheetah" not in chosen, chosen
    screenshot(page, "first-upload-02-import-form")

    # Import with the suggestion: a note says what happened, and the page shows the new agent.
    page.evaluate(WATCH_PROGRESS)
    form.get_by_role("button", name="Import", exact=True).click()
    note = f"Imported {LABEL}: it is the agent now shown, on {DST}."
    fresh_text(page, note).wait_for(timeout=TIMEOUT_MS)
    page.wait_for_url(re.compile(rf".*env={re.escape(DST)}.*"), timeout=TIMEOUT_MS)
    assert not main.get_by_role("heading", name="Import Envelope.tar").count()
    selects = sidebar.locator('[data-testid="stSelectbox"]')
    env_shown = shown_choice(selects.filter(has_text="Environment").first)
    agent_shown = shown_choice(selects.filter(has_text="Agent").first)
    assert DST in env_shown, env_shown
    assert LABEL in agent_shown, agent_shown

    # Its front and its video; while its 21 episodes were evaluated, a bar said how far it was
    # and nothing of the previous agent's page showed.
    assert LABEL in front_legend(page)
    progress = page.evaluate("() => window.__progress")
    # An evaluation a viewer waits for has a bar; one done within a second may come and go
    # between two of the page's updates (Streamlit sends the bar and its removal together): the
    # bar's text, its pace and its removal are tested in tests/test_dashboard_progress.py.
    evaluating = evaluation_seconds(log_path)
    if evaluating > BAR_NEEDED_AFTER_S:
        assert progress["texts"], f"no progress bar in {evaluating:.1f} s of evaluating the agent"
    assert all(
        re.fullmatch(rf"Evaluating {LABEL}(…|: \d+ of 21 episodes · .+)", text)
        for text in progress["texts"]
    ), progress["texts"]
    assert not progress["staleShown"], progress["staleShown"]
    wait_for_playing_video(page)
    caption = fresh_text(page, "seed 0 → return")
    caption.wait_for(timeout=TIMEOUT_MS)
    assert "Preference" in caption.inner_text()
    # The note is still there after the reruns that followed (the finished video's).
    assert fresh_text(page, note).is_visible()
    screenshot(page, "first-upload-03-imported-agent")
