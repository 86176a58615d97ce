"""The components drawn with plotly.js (`paretoscope.dashboard.widgets.plotly_component`): each
page loads
its scripts from its own folder, fetches nothing from the network, and its script parses."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from paretoscope.dashboard.widgets import front_chart, linked_views
from paretoscope.dashboard.widgets.plotly_component import SOURCES

COMPONENTS = {"linked_views": linked_views._FILES, "front_chart": front_chart._FILES}


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_the_component_files_are_complete_and_fetch_nothing(name: str) -> None:
    files = COMPONENTS[name]
    page = (SOURCES / name / "index.html").read_text()
    for file in ("plotly.min.js", *files[1:]):
        assert f'src="{file}"' in page
    for file in files:
        text = (SOURCES / name / file).read_text()
        assert "http://" not in text and "https://" not in text


def test_the_gallery_loads_plotly_from_its_own_folder() -> None:
    """The gallery's page runs gallery.js, which loads plotly.min.js beside it after the tiles."""
    page = (SOURCES / "gallery" / "index.html").read_text()
    script = (SOURCES / "gallery" / "gallery.js").read_text()
    assert 'src="gallery.js"' in page
    assert 'script.src = "plotly.min.js"' in script
    for text in (page, script):
        assert "http://" not in text and "https://" not in text


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("name", [*sorted(COMPONENTS), "gallery"])
def test_the_components_script_parses(name: str) -> None:
    done = subprocess.run(
        ["node", "--check", str(SOURCES / name / f"{name}.js")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
