"""The "Paper figure" downloads under the dashboard's charts: the pages offer their chart as PDF
and SVG (the bytes are made on the click, by `paretoscope.figures.paper`, which
tests/test_paper_figures.py checks)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apptests import open_app, page_ok
from tests.demo_fixture import build_tiny_assets

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("assets"), horizon=30)


@pytest.fixture
def app_env(assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    yield tmp_path / "cache"


@pytest.mark.parametrize(
    ("page", "key"),
    [("views/explore.py", "explore_paper"), ("views/rtg.py", "rtg_paper")],
)
def test_page_offers_its_chart_as_pdf_and_svg(app_env: Path, page: str, key: str) -> None:
    at = open_app()
    at.switch_page(page).run()
    page_ok(at)
    buttons = {element.proto.id: element for element in at.get("download_button")}
    labels = sorted(element.proto.label for element in buttons.values())
    assert any(f"{key}_pdf" in identifier for identifier in buttons), list(buttons)
    assert any(f"{key}_svg" in identifier for identifier in buttons), list(buttons)
    assert {"PDF", "SVG"} <= set(labels)
