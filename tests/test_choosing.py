"""The Choose page's session helpers (`paretoscope.dashboard.choosing`): the next question,
remembered across sessions, against the elicitation's own."""

from __future__ import annotations

import numpy as np
import pytest

from paretoscope.dashboard import choosing
from paretoscope.decision.elicitation import Answer, Elicitation, Question


def _front(seed: int) -> np.ndarray:
    angles = np.random.default_rng(seed).uniform(0, np.pi / 2, size=12)
    return np.stack([np.cos(angles), np.sin(angles)], axis=1) * 10.0


def test_the_next_question_is_the_elicitations_own() -> None:
    state = Elicitation.start(_front(1), choosing.SETTINGS)
    for choice in ("A", "B", "same", "skip", "A"):
        question = choosing.next_question(state)
        assert question == state.next_question(choosing.STRATEGY)
        assert question is not None
        state = state.answered(question, choice)  # type: ignore[arg-type]


def test_questions_worked_out_ahead_are_ready_after_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    returns = _front(2)
    state = Elicitation.start(returns, choosing.SETTINGS)
    question = choosing.next_question(state)
    assert question is not None
    ahead = choosing.likely_next(state, question)  # what the pre-renderer works out
    worked_out = 0
    own = Elicitation.next_question

    def counted(self: Elicitation, strategy: str = "info") -> Question | None:
        nonlocal worked_out
        worked_out += 1
        return own(self, strategy)  # type: ignore[arg-type]

    monkeypatch.setattr(Elicitation, "next_question", counted)
    # The viewer answers B after 3.2 s: the page's state is a replay from its link's answers.
    answered = Elicitation.replay(returns, [Answer(question, "B", 3.2)], choosing.SETTINGS)
    following = choosing.next_question(answered)
    assert worked_out == 0 and following in ahead
    assert following == own(answered, choosing.STRATEGY)
    # Another front: worked out anew.
    choosing.next_question(Elicitation.start(_front(3), choosing.SETTINGS))
    assert worked_out == 1
