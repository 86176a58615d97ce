"""The Choose page's session: the front it elicits on, the answers so far (also in the link),
the elicitation state they replay to, the pairs likely to be asked next, and the decision
record. Streamlit only for the session's memory; the model is
`paretoscope.decision.elicitation`."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.decision.elicitation import (
    Answer,
    Elicitation,
    ElicitationSettings,
    Question,
    Strategy,
    encode_answers,
    probability_a,
)
from paretoscope.decision.record import (
    DecisionContext,
    ReplayEpisode,
    decision_record,
    record_markdown,
)
from paretoscope.envs import EnvSpec
from paretoscope.results_store import objective_columns

# The probability of being best at which the session is done, unless the viewer sets another.
DEFAULT_LEVEL = 0.9
# The model every session uses (its seed fixed: a link's answers replay to the same state).
SETTINGS = ElicitationSettings()
STRATEGY: Strategy = "info"


@dataclass(frozen=True)
class ChooseFront:
    """One agent's sweep on one env at one discount, a point per (preference, target)."""

    env_id: str
    agent: str
    gamma: float
    preferences: np.ndarray  # (N, k)
    targets: np.ndarray  # (N, k), NaN where the agent chose its own
    explicit: np.ndarray  # (N,) whether the target was given
    returns: np.ndarray  # (N, k) mean returns
    seeds: np.ndarray  # (N,) the smallest seed of each point's episodes

    @classmethod
    def of(
        cls, env_id: str, agent: str, gamma: float, points: dict[str, np.ndarray]
    ) -> ChooseFront:
        """The front of a sweep's mean points (`mean_per_preference`), sorted by preference
        then target: the answers' positions in a link do not depend on the order the store
        was read in (the CLI's `load_front` sorts alike)."""
        keys = np.concatenate([points["preferences"], points["targets"]], axis=1)
        order = np.lexsort(keys.T[::-1])
        return cls(
            env_id,
            agent,
            gamma,
            preferences=points["preferences"][order],
            targets=points["targets"][order],
            explicit=points["explicit"][order],
            returns=points["returns"][order],
            seeds=points["seeds"][order],
        )

    @property
    def key(self) -> tuple[Any, ...]:
        """What a session's answers refer to: the same key, the same front positions."""
        return (self.env_id, self.agent, self.gamma, self.returns.tobytes())


def current_answers(front: ChooseFront) -> tuple[Answer, ...]:
    """This session's answers on `front` (none after the front changed)."""
    if st.session_state.get("_choose_front") != front.key:
        st.session_state["_choose_front"] = front.key
        st.session_state["choose_answers"] = ()
    return tuple(st.session_state.get("choose_answers", ()))


def set_answers(answers: Sequence[Answer]) -> None:
    st.session_state["choose_answers"] = tuple(answers)


def state_of(front: ChooseFront, answers: Sequence[Answer]) -> Elicitation:
    """The elicitation after `answers` (kept for the session: a rerun replays nothing)."""
    wanted = (front.key, encode_answers(answers))
    kept = st.session_state.get("_choose_state")
    if kept is not None and kept[0] == wanted:
        return kept[1]
    state = None
    if kept is not None and kept[0][0] == front.key:
        previous: Elicitation = kept[1]
        # One more answer than the state kept (the usual step): answered, not replayed.
        if previous.answers == tuple(answers[: len(previous.answers)]) and (
            len(answers) == len(previous.answers) + 1
        ):
            last = answers[-1]
            state = previous.answered(last.question, last.choice, last.seconds)
    if state is None:
        state = Elicitation.replay(front.returns, answers, SETTINGS)
    st.session_state["_choose_state"] = (wanted, state)
    return state


# Questions worked out so far, by front, model and answers: the pre-renderer works out those
# asked after each answer the viewer may give (`likely_next`), and the answer's page run then
# finds its question ready (0.1-0.3 s of Python on the bundled HalfCheetah front). The state is
# a function of these alone (its particles are seeded; an answer's timing changes nothing).
_QUESTIONS: OrderedDict[Hashable, Question | None] = OrderedDict()
_QUESTIONS_KEPT = 512
_questions_lock = threading.Lock()


def next_question(state: Elicitation) -> Question | None:
    """`state.next_question(STRATEGY)`, remembered for every session of this server."""
    front = state.front
    key = (
        front.rows.tobytes(),
        front.returns.shape,
        front.returns.tobytes(),
        state.settings,
        tuple((item.question, item.choice) for item in state.answers),
    )
    with _questions_lock:
        if key in _QUESTIONS:
            _QUESTIONS.move_to_end(key)
            return _QUESTIONS[key]
    question = state.next_question(STRATEGY)
    with _questions_lock:
        _QUESTIONS[key] = question
        while len(_QUESTIONS) > _QUESTIONS_KEPT:
            _QUESTIONS.popitem(last=False)
    return question


def answer_chances(state: Elicitation, question: Question) -> tuple[float, float]:
    """The posterior predictive probabilities of "A" and of "B" on `question`."""
    values = state.utilities()
    difference = values[:, question.a] - values[:, question.b]
    chance = float(
        state.probabilities @ probability_a(difference, state.noise, state.settings.likelihood)
    )
    return chance, 1.0 - chance


def likely_next(state: Elicitation, question: Question) -> list[Question]:
    """The questions asked after each answer to `question`, the likelier answer's first (A or
    B, then "about the same", then "can't tell"), each once."""
    chance_a, chance_b = answer_chances(state, question)
    order = ["A", "B"] if chance_a >= chance_b else ["B", "A"]
    found: list[Question] = []
    for choice in [*order, "same", "skip"]:
        after = state.answered(question, choice)  # type: ignore[arg-type]
        following = next_question(after)
        if following is not None and following not in found:
            found.append(following)
    return found


def stored_episode(
    table: pd.DataFrame,
    spec: EnvSpec,
    front: ChooseFront,
    row: int,
    seed: int,
    agent_path: str,
) -> ReplayEpisode | None:
    """The stored episode of the front's `row` at `seed` (else its smallest seed)."""
    if not len(table):
        return None
    preference = front.preferences[row]
    chosen = np.isclose(
        table[objective_columns("preference", spec)].to_numpy(dtype=np.float64),
        preference,
        atol=1e-9,
    ).all(axis=1)
    targets = objective_columns("target", spec)
    if front.explicit[row]:
        chosen &= np.isclose(
            table[targets].to_numpy(dtype=np.float64), front.targets[row], equal_nan=True
        ).all(axis=1)
    elif "explicit_target" in table:
        chosen &= ~table["explicit_target"].fillna(False).to_numpy(dtype=bool)
    rows = table[chosen]
    if not len(rows):
        return None
    same_seed = rows[rows["seed"] == seed]
    episode = (same_seed if len(same_seed) else rows.sort_values("seed", kind="stable")).iloc[0]
    return ReplayEpisode(
        seed=int(episode["seed"]),
        horizon=int(episode["horizon"]),
        returns=[float(episode[name]) for name in objective_columns("return", spec)],
        target=[float(value) for value in front.targets[row]] if front.explicit[row] else None,
        agent_path=agent_path,
    )


def record_files(
    state: Elicitation,
    context: DecisionContext,
    episode: ReplayEpisode | None,
    level: float,
) -> tuple[str, str]:
    """The decision record as JSON and as Markdown."""
    record = decision_record(state, context, episode, STRATEGY)
    record["level"] = level
    return json.dumps(record, indent=2) + "\n", record_markdown(record)
