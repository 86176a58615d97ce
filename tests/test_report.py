"""`paretoscope report`: the report's numbers are `paretoscope evaluate --json`'s on the same
store, its sweep commands sweep the same episodes again, and its options fail clearly."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from paretoscope.cli import main
from paretoscope.report import DATA_ID
from tests.demo_fixture import CHEETAH, build_tiny_assets

HORIZON = 20


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("report-assets"), HORIZON, with_hopper=False)


def report_data(page: str) -> dict:
    block = re.search(f'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.S)
    assert block is not None
    return json.loads(block.group(1).replace("<\\/", "</"))


@pytest.mark.slow
def test_hypervolumes_equal_evaluate_json(tiny_assets: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    out = tmp_path / "report.html"
    assert (
        main(["report", str(tiny_assets), "--env", CHEETAH, "--videos", "0", "--out", str(out)])
        == 0
    )
    capsys.readouterr()
    page = out.read_text()
    data = report_data(page)
    assert [agent["name"] for agent in data["agents"]] == ["cheetah-morvs", "cheetah-policies"]
    commands = {entry["agent"]: entry["command"] for entry in data["provenance"]["agents"]}
    shown = [float(value) for value in re.findall(r'data-hypervolume="([^"]+)"', page)]
    for agent, value in zip(data["agents"], shown, strict=True):
        # The report's own sweep command, with --json: it reads the stored episodes back.
        words = shlex.split(commands[agent["name"]])
        assert words[:2] == ["paretoscope", "evaluate"] and "#" not in words
        assert main([*words[1:], "--json"]) == 0
        evaluated = json.loads(capsys.readouterr().out)
        assert agent["summary"]["hypervolume"] == evaluated["hypervolume"]
        assert value == evaluated["hypervolume"]
        assert agent["summary"]["expected_utility"] == evaluated["expected_utility"]
        assert agent["summary"]["episodes"] == evaluated["episodes"]


def test_unknown_agent_is_named(tiny_assets: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    out = tmp_path / "report.html"
    code = main(["report", str(tiny_assets), "--agents", "nobody", "--out", str(out)])
    assert code == 2
    error = capsys.readouterr().err
    assert "nobody" in error and "cheetah-morvs" in error
    assert not out.exists()


def test_out_must_be_html(tiny_assets: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    code = main(["report", str(tiny_assets), "--videos", "0", "--out", str(tmp_path / "r.pdf")])
    assert code == 2
    assert ".html" in capsys.readouterr().err
