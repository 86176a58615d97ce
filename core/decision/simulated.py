"""A simulated person answering an elicitation's questions: for tests and research on strategies.

The person has weights W over the front-normalised objectives and answers with the session's
own model (utility and link) at choice noise S: "A" with probability link((u(A) - u(B)) / S),
else "B". They never answer "about the same" or "can't tell"; an answer's
timing is the seconds the question took to choose.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from paretoscope.decision.elicitation import (
    DEFAULT_NOISE,
    Choice,
    Elicitation,
    ElicitationSettings,
    Question,
    Strategy,
    probability_a,
    utilities,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray


@dataclass(frozen=True)
class SimulatedPerson:
    """Weights on the simplex (one per objective), choice noise and the seed of their answers."""

    weights: tuple[float, ...]
    noise: float = DEFAULT_NOISE
    seed: int = 0

    def __post_init__(self) -> None:
        values = np.asarray(self.weights, dtype=np.float64)
        if values.ndim != 1 or not np.isfinite(values).all() or (values < 0).any():
            raise ParetoscopeError(
                f"weights: expected non-negative numbers, one per objective, got {self.weights}"
            )
        if not math.isclose(float(values.sum()), 1.0, abs_tol=1e-6):
            raise ParetoscopeError(f"weights: expected a sum of 1, got {float(values.sum()):g}")
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise ParetoscopeError(f"noise: expected a number >= 0, got {self.noise!r}")

    def utilities(self, state: Elicitation) -> FloatArray:
        """(M,) this person's utility of each point of the state's front."""
        weights = np.asarray(self.weights, dtype=np.float64)[None, :]
        settings = state.settings
        return utilities(weights, state.front.scaled, settings.utility, settings.rho)[0]

    def answer(self, state: Elicitation, question: Question) -> Choice:
        """Their answer to `question` (seeded by the seed and the number of answers so far)."""
        values = self.utilities(state)
        difference = np.array([values[question.a] - values[question.b]])
        if self.noise == 0:
            return "A" if difference[0] >= 0 else "B"
        chance = probability_a(difference, np.array([self.noise]), state.settings.likelihood)
        rng = np.random.default_rng([self.seed, len(state.answers), 3])
        return "A" if rng.random() < chance[0] else "B"


def simulate(
    returns: object,
    person: SimulatedPerson,
    questions: int,
    strategy: Strategy = "info",
    settings: ElicitationSettings | None = None,
) -> list[Elicitation]:
    """The states of a session where `person` answers up to `questions` questions: the prior
    first, then one state per answer (fewer when the front runs out of pairs)."""
    state = Elicitation.start(returns, settings)
    if len(person.weights) != state.front.returns.shape[1]:
        raise ParetoscopeError(
            f"weights: expected {state.front.returns.shape[1]} (one per objective), "
            f"got {len(person.weights)}"
        )
    states = [state]
    for _ in range(questions):
        began = time.perf_counter()
        question = state.next_question(strategy)
        if question is None:
            break
        # The time the person waited for the question (they answer at once).
        seconds = time.perf_counter() - began
        state = state.answered(question, person.answer(state, question), seconds)
        states.append(state)
    return states
