"""`paretoscope figure` on the bundled demo's results: the PDF and SVG files are vector (no
raster image, fonts embedded), parse, and hold the points the results store holds — counted
here from the stored episodes by plain pandas means and a double-loop dominance check."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paretoscope.catalog import bundled_assets_dir
from paretoscope.cli import main
from paretoscope.envs import get_spec
from paretoscope.envs.known_fronts import known_front
from paretoscope.results_store import ResultsStore

ASSETS = bundled_assets_dir()
RESULTS = ASSETS / "results"
RUN = ASSETS / "agents" / "halfcheetah-morvs-run"
CHEETAH = "MO-HalfCheetah-v2"
HOPPER3 = "MO-Hopper-v3"
DST = "deep-sea-treasure-v0"
SVG = "{http://www.w3.org/2000/svg}"
POINTS_PER_INCH = 72


def mean_points(env_id: str, agent: str, gamma: float = 1.0) -> np.ndarray:
    """Each (preference, target)'s mean return of `agent`, straight from the stored rows."""
    spec = get_spec(env_id)
    table = ResultsStore(RESULTS).read(env_id)
    table = table[(table["agent"] == agent) & np.isclose(table["gamma"].fillna(1.0), gamma)]
    keys = [f"preference_{n}" for n in spec.objective_names]
    keys += [f"target_{n}" for n in spec.objective_names]
    returns = [f"return_{n}" for n in spec.objective_names]
    grouped = table.assign(**{key: table[key].round(9) for key in keys}).groupby(keys)
    return grouped[returns].mean().to_numpy(dtype=np.float64)


def dominated(points: np.ndarray) -> np.ndarray:
    """Whether each point is dominated by another (maximising), by a double loop."""
    flags = np.zeros(len(points), dtype=bool)
    for i, p in enumerate(points):
        for j, q in enumerate(points):
            if i != j and (q >= p).all() and (q > p).any():
                flags[i] = True
    return flags


def draw(*arguments: str) -> None:
    assert main(["figure", *arguments]) == 0


def svg_groups(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    assert not root.findall(f".//{SVG}image"), "an SVG figure holds no raster image"
    assert not root.findall(f".//{SVG}text"), "glyphs are paths: the SVG needs no font"
    return {group.get("id", ""): group for group in root.iter(f"{SVG}g")}


def markers(groups: dict[str, ET.Element], gid: str) -> int:
    """How many markers the trace `gid` draws (0 when it is not there)."""
    group = groups.get(gid)
    return 0 if group is None else len(group.findall(f".//{SVG}use"))


def pdf_streams(data: bytes) -> list[bytes]:
    """Every stream of a PDF, cut by its /Length (direct or an indirect object) and inflated
    where it is compressed."""
    streams = []
    for match in re.finditer(rb"<<((?:(?!<<).)*?)>>\s*stream\r?\n", data, re.S):
        length = re.search(rb"/Length (\d+)( 0 R)?", match.group(1))
        assert length is not None
        size = int(length.group(1))
        if length.group(2):  # an indirect length: "N 0 obj size endobj"
            held = re.search(rb"\b%d 0 obj\s*(\d+)\s*endobj" % size, data)
            assert held is not None
            size = int(held.group(1))
        body = data[match.end() : match.end() + size]
        assert data[match.end() + size :].lstrip().startswith(b"endstream")
        streams.append(zlib.decompress(body) if b"/FlateDecode" in match.group(1) else body)
    return streams


def check_vector_pdf(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert b"/Subtype /Image" not in data, "a PDF figure holds no raster image"
    assert b"/FontFile2" in data, "the TrueType font is embedded"
    assert b"/Subtype /Type3" not in data
    return pdf_streams(data)


def test_front_svg_has_every_agents_points(tmp_path: Path) -> None:
    out = tmp_path / "front.svg"
    draw("front", str(RESULTS), "--env", CHEETAH, "--out", str(out), "--width", "double")
    groups = svg_groups(out)
    # The default agents: every stored one but the training run's snapshots (NAME@step=N).
    stored = sorted(set(ResultsStore(RESULTS).read(CHEETAH)["agent"]))
    agents = [name for name in stored if "@" not in name]
    assert len(agents) == 4
    for index, agent in enumerate(agents):
        flags = dominated(mean_points(CHEETAH, agent))
        assert markers(groups, f"series-{index}-front") == int((~flags).sum()), agent
        assert markers(groups, f"series-{index}-dominated") == int(flags.sum()), agent
    assert markers(groups, f"series-{len(agents)}-front") == 0
    width = ET.parse(out).getroot().get("width")
    assert width == f"{7.16 * POINTS_PER_INCH:g}pt"


def test_front_pdf_is_vector_with_the_known_front(tmp_path: Path) -> None:
    out = tmp_path / "front.pdf"
    draw("front", str(RESULTS), "--env", DST, "--gamma", "1", "--out", str(out))
    streams = check_vector_pdf(out)
    flags = dominated(mean_points(DST, "dst-gpi-ls"))
    assert flags.any() and (~flags).any()
    # Every marker is a circle: the points and one per legend entry with a marker (the agent,
    # "dominated"). matplotlib draws a marker drawn often as uses of one marker object and one
    # drawn seldom inline, each as a circle's 8 Bézier curves.
    page = max(streams, key=lambda stream: len(re.findall(rb"/M\d+ Do", stream)))
    uses = len(re.findall(rb"/M\d+ Do", page))
    inline = len(re.findall(rb" c\n", page))
    assert inline % 8 == 0
    assert uses + inline // 8 == len(flags) + 2
    svg = tmp_path / "front.svg"
    draw("front", str(RESULTS), "--env", DST, "--gamma", "1", "--out", str(svg))
    groups = svg_groups(svg)
    assert markers(groups, "series-0-front") == int((~flags).sum())
    assert markers(groups, "series-0-dominated") == int(flags.sum())
    known = known_front(DST, 1.0)
    assert known is not None
    path = groups["known-front"].find(f".//{SVG}path")
    assert path is not None
    # One line through the known front's points: a move and a line to each next one.
    commands = re.findall(r"[ML]", path.get("d", ""))
    assert commands == ["M"] + ["L"] * (len(known.points) - 1)
    assert ET.parse(svg).getroot().get("width") == f"{3.5 * POINTS_PER_INCH:g}pt"


def test_objectives_figure_has_every_pair(tmp_path: Path) -> None:
    out = tmp_path / "objectives.svg"
    draw(
        "objectives", str(RESULTS), "--env", HOPPER3, "--agents", "hopper-morvs", "--out", str(out)
    )
    groups = svg_groups(out)
    flags = dominated(mean_points(HOPPER3, "hopper-morvs"))
    for i, j in ((1, 0), (2, 0), (2, 1)):
        assert markers(groups, f"panel-{i}-{j}-front") == int((~flags).sum())
        assert markers(groups, f"panel-{i}-{j}-dominated") == int(flags.sum())
        assert markers(groups, f"panel-{i}-{j}-compromise") == 1
    assert markers(groups, "panel-0-1-front") == 0  # nothing above the diagonal
    check_vector_pdf(_drawn_pdf(tmp_path, "objectives", HOPPER3, "hopper-morvs"))


def _drawn_pdf(tmp_path: Path, kind: str, env_id: str, agent: str) -> Path:
    out = tmp_path / f"{kind}.pdf"
    draw(kind, str(RESULTS), "--env", env_id, "--agents", agent, "--out", str(out))
    return out


def test_rtg_figure_has_a_point_per_preference(tmp_path: Path) -> None:
    out = tmp_path / "rtg.svg"
    agent = "halfcheetah-morvs"
    draw("rtg", str(RESULTS), "--env", CHEETAH, "--agents", agent, "--out", str(out))
    groups = svg_groups(out)
    returns = mean_points(CHEETAH, agent)
    # The return ratio R_i / ΣR is defined where no return is negative and some is not 0.
    defined = (returns >= 0).all(axis=1) & (returns.sum(axis=1) > 0)
    for index in range(returns.shape[1]):
        assert markers(groups, f"rtg-target-{index}") == len(returns)
        assert markers(groups, f"rtg-ratio-{index}") == int(defined.sum())
    check_vector_pdf(_drawn_pdf(tmp_path, "rtg", CHEETAH, agent))


@pytest.mark.slow
def test_training_figures_of_the_bundled_run(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)  # the sweep may add episodes: never to the bundle
    common = ["--results", str(results), "--granularity", "20"]
    front = tmp_path / "training.svg"
    draw("training", str(RUN), *common, "--out", str(front))
    groups = svg_groups(front)
    table = ResultsStore(results).read(CHEETAH)
    steps = sorted(int(name.split("@step=")[1]) for name in set(table["agent"]) if "@step=" in name)
    last = mean_points_of(table, f"halfcheetah-morvs-run@step={steps[-1]}")
    flags = dominated(last)
    assert markers(groups, f"step-{steps[-1]}-front") == int((~flags).sum())
    assert markers(groups, f"step-{steps[-1]}-dominated") == int(flags.sum())
    for step in steps[-5:-1]:  # the four fronts before it, fading
        earlier = mean_points_of(table, f"halfcheetah-morvs-run@step={step}")
        assert markers(groups, f"step-{step}") == len(earlier)
    assert markers(groups, f"step-{steps[-6]}") == 0
    metrics = tmp_path / "metrics.svg"
    draw("training", str(RUN), *common, "--view", "metrics", "--out", str(metrics))
    groups = svg_groups(metrics)
    assert markers(groups, "metric-hypervolume") == len(steps)
    assert markers(groups, "metric-expected_utility") == len(steps)
    check_vector_pdf(_drawn_training_pdf(tmp_path, common))


def _drawn_training_pdf(tmp_path: Path, common: list[str]) -> Path:
    out = tmp_path / "training.pdf"
    draw("training", str(RUN), *common, "--out", str(out))
    return out


def mean_points_of(table: pd.DataFrame, agent: str) -> np.ndarray:
    spec = get_spec(CHEETAH)
    rows = table[table["agent"] == agent]
    keys = [f"preference_{n}" for n in spec.objective_names]
    returns = [f"return_{n}" for n in spec.objective_names]
    grouped = rows.assign(**{key: rows[key].round(9) for key in keys}).groupby(keys)
    return grouped[returns].mean().to_numpy(dtype=np.float64)


def test_png_is_drawn_at_300_dpi(tmp_path: Path) -> None:
    out = tmp_path / "front.png"
    draw("front", str(RESULTS), "--env", HOPPER3, "--width", "2", "--out", str(out))
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(data[16:20], "big")
    assert width == 600  # 2 inches at 300 dpi


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["front", str(RESULTS), "--env", DST, "--out", "x.pdf"], "several discounts"),
        (["front", str(RESULTS), "--env", DST, "--out", "x.jpg"], "not .jpg"),
        (["front", str(RESULTS), "--env", DST, "--width", "wide", "--out", "x.pdf"], "width"),
        (["front", str(RESULTS), "--env", DST, "--width", "40", "--out", "x.pdf"], "20 inches"),
        (["front", str(RESULTS), "--env", DST, "--agents", "nobody", "--out", "x.pdf"], "nobody"),
        (["objectives", str(RESULTS), "--env", HOPPER3, "--out", "x.pdf"], "draws one agent"),
        (["rtg", str(RESULTS), "--env", DST, "--out", "x.pdf"], "no target return"),
        (["front", str(RESULTS), "--env", DST, "--step", "3", "--out", "x.pdf"], "training"),
    ],
)
def test_user_errors_are_one_line(
    arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = [str(tmp_path / a) if a.startswith("x.") else a for a in arguments]
    assert main(["figure", *arguments]) == 2
    error = capsys.readouterr().err
    assert error.startswith("paretoscope: error:") and message in error
    assert not list(tmp_path.iterdir())


def test_front_axes_say_unit_and_direction_and_legend_names_agents() -> None:
    from paretoscope.figures.paper import PALETTE, paper_front
    from paretoscope.plot import front_data

    table = ResultsStore(RESULTS).read(HOPPER3)
    data = front_data(table[table["agent"].isin(["hopper-morvs", "hopper-bc"])])
    figure = paper_front(data.spec, data.series)
    axes = figure.axes[0]
    assert axes.get_xlabel() == "run return (m/s), higher is better"
    assert axes.get_xlabel() == data.spec.objectives[0].axis_title
    assert axes.get_ylabel() == data.spec.objectives[1].axis_title
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert legend[: len(data.series)] == [entry.name for entry in data.series]
    lines = {line.get_gid(): line for line in axes.lines}
    front, hollow = lines["series-1-front"], lines["series-1-dominated"]
    assert front.get_color() == hollow.get_color() == PALETTE[1]
    assert front.get_marker() == hollow.get_marker() != lines["series-0-front"].get_marker()
    assert hollow.get_markerfacecolor() == "none"
