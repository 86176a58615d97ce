"""The Choose page on the bundled demo, driven with Streamlit's AppTest: five answers, the link
that holds them and resumes the session, and the decision record it downloads, checked against
the elicitation replayed on its own and against the results store."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paretoscope.catalog import bundled_assets_dir
from paretoscope.cli.front import load_front
from paretoscope.decision.elicitation import (
    Elicitation,
    ElicitationSettings,
    decode_answers,
    encode_answers,
)
from paretoscope.envs import get_spec
from paretoscope.results_store import ResultsStore, objective_columns
from tests.apptests import (
    APP,
    TIMEOUT,
    episode_videos,
    front_chart_figure,
    metric_values,
    page_ok,
    served_files,
)

pytestmark = pytest.mark.slow

CHEETAH = "MO-HalfCheetah-v2"
AGENT = "halfcheetah-morvs"  # the demo's opening agent
CHOICES = ("A", "B", "A", "same", "skip")
ANSWER_BUTTONS = {"A": "A", "B": "B", "same": "About the same", "skip": "Can't tell"}


@pytest.fixture
def bundled_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled demo with a fresh cache, nothing pre-rendered behind the page's back."""
    monkeypatch.delenv("PARETOSCOPE_ASSETS", raising=False)
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")
    return bundled_assets_dir()


def _choose_page(query: dict[str, str]):  # noqa: ANN202 - an AppTest
    """The app opened with a link to the Choose page (its first run is that page's)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"size": "240", **query})
    at.switch_page("views/choose.py").run()
    page_ok(at)
    return at


def _query(at) -> dict[str, str]:  # noqa: ANN001 - an AppTest
    """The page's link values, as text."""
    return {
        key: value[0] if isinstance(value, list) else str(value)
        for key, value in dict(at.query_params).items()
    }


def _download(at, served: dict[str, bytes], key: str) -> bytes:  # noqa: ANN001 - an AppTest
    (button,) = [b for b in at.get("download_button") if b.proto.id.endswith(f"-{key}")]
    return served[button.proto.url]


def test_five_answers_live_in_the_link_and_the_record_replays_to_the_store(
    bundled_demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = served_files(monkeypatch)
    at = _choose_page({"env": CHEETAH, "agent": AGENT})
    # Independent truth: the demo's front as the CLI reads it from the store, the elicitation
    # run on it alone with the same answers.
    report = load_front(bundled_demo / "results", CHEETAH, AGENT, 1.0)
    state = Elicitation.start(report.returns)
    for choice in CHOICES:
        question = state.next_question()
        assert question is not None
        at.button(key=f"choose_answer_{choice}").click().run()
        page_ok(at)
        state = state.answered(question, choice)
    # The sixth question's two policies play side by side, in step, from two recordings.
    (pair,) = episode_videos(at)
    assert pair.count("<video") == 2
    link = _query(at)
    assert link["ans"] == encode_answers(state.answers)
    shown = metric_values(at)
    assert shown["Questions answered"] == "5"
    assert shown["Probability it is the best"] == f"{state.probability_best:.2f}"
    # The front marks the recommendation, drawn by the component that moves it in place.
    (marked,) = [trace for trace in front_chart_figure(at)["data"] if trace.get("uid") == "current"]
    assert marked["name"] == f"recommended (P best {state.probability_best:.2f})"
    recommended = report.returns[state.recommended_row]
    assert [marked["x"][0], marked["y"][0]] == pytest.approx(list(recommended), rel=1e-9)

    # A fresh session from the copied link resumes the same state: same numbers, same question.
    resumed = _choose_page(link)
    assert metric_values(resumed) == shown
    assert _query(resumed)["ans"] == link["ans"]
    question_text = [md.value for md in at.markdown if md.value.startswith("- **A**")]
    assert [md.value for md in resumed.markdown if md.value.startswith("- **A**")] == question_text

    record = json.loads(_download(at, served, "choose_record_json"))
    markdown = _download(at, served, "choose_record_markdown").decode()
    assert record["answers"] == link["ans"]
    assert [item["answer"] for item in record["questions"]] == list(CHOICES)
    assert all(item["seconds"] is not None and item["seconds"] >= 0 for item in record["questions"])
    assert record["answers"] in markdown
    # The record's answers, replayed on its own front, give its recommendation.
    front = np.array([point["returns"] for point in record["front"]])
    settings = {key: value for key, value in record["model"].items() if key != "strategy"}
    replayed = Elicitation.replay(
        front, decode_answers(record["answers"]), ElicitationSettings(**settings)
    )
    pick = record["recommendation"]
    assert replayed.recommendation == pick["position"] == state.recommendation
    assert replayed.probability_best == pytest.approx(record["probability_best"], abs=1e-12)
    np.testing.assert_allclose(front, report.returns[state.front.rows], rtol=0, atol=0)

    # The recommendation's returns are the store's: its stored episode, row for row, and the
    # mean of its episodes.
    spec = get_spec(CHEETAH)
    table = ResultsStore(bundled_demo / "results").read(CHEETAH)
    table = table[table["agent"].astype(str) == AGENT]
    same = np.isclose(
        table[objective_columns("preference", spec)].to_numpy(dtype=np.float64),
        pick["preference"],
        atol=1e-9,
    ).all(axis=1)
    mine = table[same]
    returns = mine[objective_columns("return", spec)].to_numpy(dtype=np.float64)
    np.testing.assert_allclose(pick["returns"], returns.mean(axis=0), rtol=1e-12)
    episode = pick["episode"]
    row = mine[mine["seed"] == episode["seed"]]
    assert len(row) == 1
    np.testing.assert_array_equal(
        episode["returns"], row[objective_columns("return", spec)].to_numpy()[0]
    )
    assert record["agent_fingerprint"] == str(row["agent_fingerprint"].iloc[0])
    assert f"--seed {episode['seed']}" in episode["command"]


def test_a_link_with_answers_that_do_not_fit_is_noted_and_ignored(bundled_demo: Path) -> None:
    at = _choose_page({"env": CHEETAH, "agent": AGENT, "ans": "0-0A"})
    assert metric_values(at)["Questions answered"] == "0"
    assert "ans" not in at.query_params
    assert any("ans='0-0A'" in warning.value for warning in at.warning)


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.demo_fixture import build_tiny_assets

    return build_tiny_assets(tmp_path_factory.mktemp("assets"), horizon=30)


def test_an_answer_can_be_changed_or_undone_and_the_others_stay(
    tiny_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the test assets' three-objective agent (nine policies on its front)."""
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tiny_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")
    env, agent = "MO-Hopper-v3", "hopper3-modt"
    at = _choose_page({"env": env, "agent": agent, "pbest": "0.999"})
    front = load_front(tiny_assets / "results", env, agent, 1.0).returns
    state = Elicitation.start(front)
    first = state.next_question()
    at.button(key="choose_answer_A").click().run()
    first_row = [box.key for box in at.selectbox if box.key.startswith("choose_change_")]
    second = state.answered(first, "A").next_question()
    at.button(key="choose_answer_B").click().run()
    page_ok(at)
    # The first answer's row keeps its widgets (the browser draws the new row only).
    rows = [box.key for box in at.selectbox if box.key.startswith("choose_change_")]
    assert len(first_row) == 1 and len(rows) == 2 and rows[0] == first_row[0]
    assert _query(at)["ans"] == f"{first.a}-{first.b}A.{second.a}-{second.b}B"
    assert _query(at)["pbest"] == "0.999"
    # The first answer changed to "about the same": the second stays, the state is replayed.
    (change,) = [box for box in at.selectbox if box.key.startswith("choose_change_0_")]
    change.set_value("same").run()
    page_ok(at)
    assert _query(at)["ans"] == f"{first.a}-{first.b}same.{second.a}-{second.b}B"
    replayed = Elicitation.replay(front, decode_answers(_query(at)["ans"]))
    assert metric_values(at)["Probability it is the best"] == f"{replayed.probability_best:.2f}"
    # The first answer undone: only the second is left.
    (undo,) = [button for button in at.button if button.key.startswith("choose_undo_0_")]
    undo.click().run()
    page_ok(at)
    assert _query(at)["ans"] == f"{second.a}-{second.b}B"
    assert metric_values(at)["Questions answered"] == "1"
