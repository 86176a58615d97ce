"""The sidebar's first screen: the assets' description as plain words (not one tall code
block), and select boxes whose entries fit (details under the box)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paretoscope.dashboard.option_labels import label_details, short_labels, split_label
from tests.apptests import captions, open_app, page_ok
from tests.page_markup import walk


def test_a_label_is_cut_before_its_details_only_where_that_tells_entries_apart() -> None:
    assert split_label("MORvS (halfcheetah, expert-uniform)") == (
        "MORvS",
        "halfcheetah, expert-uniform",
    )
    assert split_label("GPI-LS") == ("GPI-LS", "")
    assert split_label("odd (unclosed") == ("odd (unclosed", "")
    labels = {
        "morvs": "MORvS (halfcheetah, expert-uniform)",
        "bc": "BC (halfcheetah, expert-uniform)",
        "modt-a": "MODT (expert)",
        "modt-b": "MODT (amateur)",
        "plain": "Linear policy set",
        "fits": "random (uniform baseline)",  # 25 characters: the box shows it whole
    }
    assert short_labels(labels) == {
        "morvs": "MORvS",
        "bc": "BC",
        "modt-a": "MODT (expert)",  # two MODT: the whole labels tell them apart
        "modt-b": "MODT (amateur)",
        "plain": "Linear policy set",
        "fits": "random (uniform baseline)",
    }
    assert label_details(labels, "morvs") == "halfcheetah, expert-uniform"
    assert label_details(labels, "modt-a") == "" and label_details(labels, "plain") == ""
    assert label_details(labels, "fits") == ""


@pytest.fixture(scope="module")
def described_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.demo_fixture import build_tiny_assets

    root = build_tiny_assets(tmp_path_factory.mktemp("first"), horizon=5, with_hopper=False)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["description"] = (
        "Agents for MO-HalfCheetah-v2: MORvS (untrained) and a policy set <b>x</b>; built by "
        "`paretoscope demo build`."
    )
    manifest["agents"]["cheetah-morvs"]["label"] = "MORvS (halfcheetah, expert-uniform)"
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


@pytest.mark.slow
def test_the_first_screen_shows_the_description_as_words_and_short_entries(
    described_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(described_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    at = open_app({"agent": "cheetah-morvs"})
    page_ok(at)
    bodies = [node.proto.body for node in walk(at._tree) if getattr(node, "type", "") == "html"]
    description = (
        "Agents for MO-HalfCheetah-v2: MORvS (untrained) and a policy set &lt;b&gt;x&lt;/b&gt;; "
        "built by <code>paretoscope demo build</code>."
    )
    assert any(description in body for body in bodies), bodies
    # Nowhere a code span of the whole description (the tall code block).
    assert not any("Agents for MO-HalfCheetah-v2" in text for text in captions(at))
    env_box = at.selectbox(key="env")
    assert env_box.format_func(env_box.value) == env_box.value  # the id alone
    assert "2 objectives (run, energy)" in captions(at)
    agent_box = at.selectbox(key="agent")
    assert agent_box.format_func("cheetah-morvs") == "MORvS"
    assert "halfcheetah, expert-uniform" in captions(at)
