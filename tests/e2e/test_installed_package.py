"""paretoscope as a user installs it: a plain (non-editable) wheel of this checkout, installed into
a folder of its own and imported from outside the repository. One namespace, `paretoscope`,
nothing named `core` or `dashboard`, and `paretoscope dashboard` opens the bundled demo it
ships."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_DIR
from tests.e2e.conftest import ServerProcess, free_port, serving

pytestmark = pytest.mark.slow
TIMEOUT_MS = 90_000


# What a wheel is built from. Built from a copy: setuptools writes its metadata beside the
# sources, and a stale copy in the checkout would shadow the installed one.
SOURCES = ("setup.py", "pyproject.toml", "README.md", "core", "dashboard", "assets")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (REPO_DIR / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(REPO_DIR / name, source / name, ignore=ignore)
        else:
            shutil.copy2(REPO_DIR / name, source / name)
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(folder), str(source)],
        check=True,
        timeout=600,
    )
    (built,) = folder.glob("paretoscope-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a folder that only PYTHONPATH names (its dependencies are this
    environment's)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile"]
        + ["--target", str(target), str(wheel)],
        check=True,
        timeout=600,
    )
    return target


def _environment(installed: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(installed), MUJOCO_GL="egl")


def test_the_wheel_holds_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    top_level = {name.split("/")[0] for name in names}
    assert {name for name in top_level if not name.endswith(".dist-info")} == {"paretoscope"}
    # The app, its components and the bundled demo travel inside it.
    for expected in (
        "paretoscope/dashboard/app.py",
        "paretoscope/dashboard/views/explore.py",
        "paretoscope/dashboard/components/front_chart/index.html",
        "paretoscope/assets/manifest.json",
        "paretoscope/py.typed",
    ):
        assert expected in names


def test_import_paretoscope_from_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    probe = textwrap.dedent(
        """
        import importlib.util, json
        import paretoscope
        from paretoscope.catalog import bundled_assets_dir
        from paretoscope.cli.dashboard import app_path
        print(json.dumps({
            "file": paretoscope.__file__,
            "core": importlib.util.find_spec("core") is None,
            "dashboard": importlib.util.find_spec("dashboard") is None,
            "assets": str(bundled_assets_dir()),
            "app": str(app_path()),
        }))
        """
    )
    reply = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=_environment(installed),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(reply.stdout.strip().splitlines()[-1])
    assert Path(found["file"]).resolve().is_relative_to(installed.resolve())
    assert found["core"] and found["dashboard"]
    assets = Path(found["assets"])
    assert assets.resolve().is_relative_to(installed.resolve())
    assert (assets / "manifest.json").is_file()
    assert Path(found["app"]).resolve().is_relative_to(installed.resolve())


def test_installed_dashboard_opens_the_bundled_demo(
    installed: Path, tmp_path: Path, browser: object
) -> None:
    port = free_port()
    cache = str(tmp_path / "cache")
    environment = dict(_environment(installed), PARETOSCOPE_CACHE=cache, PARETOSCOPE_PRERENDER="0")
    command = [sys.executable, "-m", "paretoscope", "dashboard", "--port", str(port)]
    process = ServerProcess(command, port, environment, cwd=tmp_path)
    with serving((process, f"http://127.0.0.1:{port}")) as url:
        page = browser.new_page()  # type: ignore[attr-defined]
        try:
            page.goto(url, timeout=TIMEOUT_MS)
            # The bundled demo's default view: HalfCheetah with its offline MORvS agent.
            page.locator('[data-testid="stSlider"]').first.wait_for(timeout=TIMEOUT_MS)
            page.get_by_text("MO-HalfCheetah-v2").first.wait_for(timeout=TIMEOUT_MS)
            page.get_by_text("MORvS").first.wait_for(timeout=TIMEOUT_MS)
        finally:
            page.close()


QUICKSTART = REPO_DIR / "docs" / "examples" / "quickstart.ipynb"
# What the test reads back from the quickstart's kernel once its last cell ran.
QUICKSTART_PROBE = (
    'probe = {"package": ps.__file__, "summary": {k: (list(v) if hasattr(v, "__len__") else v) '
    'for k, v in result.summary.items()}, "length": episode.length, '
    '"returns": list(episode.returns), "url": explorer.url}'
)


def test_the_quickstart_notebook_runs_on_the_installed_package(
    installed: Path, tmp_path: Path
) -> None:
    """docs/examples/quickstart.ipynb top to bottom on a real Jupyter kernel that imports the
    installed wheel: a bundled agent swept (the hypervolume `paretoscope evaluate --json` gives
    for the same settings), its front plotted, an episode's video inline, a MORL-Baselines file
    and a `py:` plug-in loaded, the dashboard opened in the page and stopped."""
    import base64

    import imageio.v2 as imageio

    from tests.notebooks import mime_data, outputs_of, plotly_values, run_notebook

    environment = dict(_environment(installed), SDL_VIDEODRIVER="dummy")
    book, values = run_notebook(
        QUICKSTART, tmp_path / "examples", environment, probe=QUICKSTART_PROBE
    )
    assert values is not None
    assert Path(values["package"]).is_relative_to(installed)

    bundled = installed / "paretoscope" / "assets" / "agents" / "dst-gpi-ls"
    command = [sys.executable, "-m", "paretoscope", "evaluate", str(bundled)]
    command += ["--env", "deep-sea-treasure-v0", "--granularity", "11", "--episodes", "1"]
    command += ["--out", str(tmp_path / "results"), "--json"]
    done = subprocess.run(
        command, env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    evaluated = json.loads(done.stdout)
    summary = values["summary"]
    assert summary["hypervolume"] == pytest.approx(evaluated["hypervolume"], rel=1e-12)
    assert summary["reference_point"] == pytest.approx(evaluated["reference_point"])
    assert summary["cardinality"] == evaluated["cardinality"]
    assert "igd" in summary and "maximum_utility_loss" in summary  # a known front

    front = mime_data(outputs_of(book, "ps.plot.front(result)"), "application/vnd.plotly.v1+json")
    assert front is not None, "the front figure is not in the notebook"
    plotted = {
        (round(x, 6), round(y, 6))
        for trace in front["data"]
        for x, y in zip(plotly_values(trace.get("x")), plotly_values(trace.get("y")), strict=False)
    }
    # Deep-sea-treasure's first treasure (0.7 after one step) is on the front the agent found.
    assert (0.7, -1.0) in plotted

    page = mime_data(outputs_of(book, "episode"), "text/html")
    assert page is not None and "<video" in page
    video = tmp_path / "episode.mp4"
    encoded = re.search(r"data:video/mp4;base64,([A-Za-z0-9+/=]+)", page)
    assert encoded is not None, "the video's source is not the MP4 itself"
    video.write_bytes(base64.b64decode(encoded.group(1)))
    frames = imageio.mimread(video, format="FFMPEG", memtest=False)
    assert len(frames) >= values["length"]  # every step shown (slowed, never cut)

    explore_cell = 'explorer = ps.explore(agent, env="deep-sea-treasure-v0")'
    shown = mime_data(outputs_of(book, explore_cell), "text/html")
    assert shown is not None and "<iframe" in shown and html.escape(values["url"]) in shown
