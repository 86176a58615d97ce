"""paretoscope.decision.elicitation against brute force: the particle posterior against a fine
grid posterior on the simplex (2 and 3 objectives, same likelihood written out here), the next
pair against the mutual information computed pair by pair, and replay by seed."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from paretoscope.decision.elicitation import (
    Answer,
    Elicitation,
    ElicitationSettings,
    Question,
    decode_answers,
    encode_answers,
)
from paretoscope.decision.simulated import SimulatedPerson, simulate
from paretoscope.errors import ParetoscopeError

# A convex 2-objective front (the quarter circle) with a dominated row and a duplicate.
FRONT_2 = np.array(
    [[math.cos(a) * 10 + 5, math.sin(a) * 3 - 1] for a in np.linspace(0, math.pi / 2, 7)]
    + [[0.0, -5.0], [15.0, -1.0]]
)
# A 3-objective front: points on the positive octant of a sphere.
FRONT_3 = np.array(
    [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.7, 0.7, 0.14],
        [0.7, 0.14, 0.7],
        [0.14, 0.7, 0.7],
        [0.577, 0.577, 0.577],
        [0.9, 0.3, 0.3],
    ]
)
ANSWERS_2 = [("0", "3", "B"), ("2", "5", "A"), ("1", "4", "same"), ("3", "6", "skip"),
             ("2", "4", "A"), ("0", "6", "A"), ("1", "2", "B")]  # fmt: skip
ANSWERS_3 = [("0", "1", "A"), ("3", "4", "B"), ("2", "6", "B"), ("6", "7", "same"),
             ("0", "5", "A"), ("1", "4", "skip"), ("4", "7", "A"), ("3", "5", "A")]  # fmt: skip


def scaled_front(points: np.ndarray) -> np.ndarray:
    """The distinct non-dominated points in row order, min-max normalised over themselves."""
    keep = []
    for i, p in enumerate(points):
        dominated = any((q >= p).all() and (q > p).any() for q in points)
        duplicate = any((points[j] == p).all() for j in keep)
        if not dominated and not duplicate:
            keep.append(i)
    front = points[keep]
    low, high = front.min(axis=0), front.max(axis=0)
    return (front - low) / (high - low)


def brute_utility(weights: np.ndarray, z: np.ndarray, utility: str, rho: float) -> np.ndarray:
    """(G, M) utility of each front point for each weight row, written out."""
    if utility == "linear":
        return weights @ z.T
    out = np.empty((len(weights), len(z)))
    for m, point in enumerate(z):
        gaps = weights * (1.0 - point)
        out[:, m] = -(gaps.max(axis=1) + rho * gaps.sum(axis=1))
    return out


def brute_likelihood(d: np.ndarray, s: np.ndarray, choice: str, link: str) -> np.ndarray:
    if choice == "skip":
        return np.ones_like(d)
    if choice == "same":
        return np.exp(-0.5 * (d / s) ** 2)
    x = d / s if choice == "A" else -d / s
    if link == "logistic":
        return 1.0 / (1.0 + np.exp(-x))
    return np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x.ravel()]).reshape(x.shape)


def simplex_grid(k: int, n: int) -> np.ndarray:
    """Centroids of a uniform triangulation (k = 3) or midpoints (k = 2): equal-area cells."""
    if k == 2:
        t = (np.arange(n) + 0.5) / n
        return np.column_stack([t, 1 - t])
    cells = []
    for i in range(n):
        for j in range(n - i):
            a, b, c = np.array([i, j]), np.array([i + 1, j]), np.array([i, j + 1])
            cells.append((a + b + c) / 3)
            if i + j + 1 < n:
                d = np.array([i + 1, j + 1])
                cells.append((b + c + d) / 3)
    xy = np.array(cells) / n
    return np.column_stack([xy, 1 - xy.sum(axis=1)])


def answers_of(rows: list[tuple[str, str, str]]) -> list[Answer]:
    return [Answer(Question(int(a), int(b)), choice) for a, b, choice in rows]  # type: ignore[arg-type]


def grid_posterior(
    points: np.ndarray,
    answers: list[Answer],
    settings: ElicitationSettings,
    grid: np.ndarray,
    noises: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean weights and P(each point is best) on the grid x noise grid."""
    z = scaled_front(points)
    values = brute_utility(grid, z, settings.utility, settings.rho)  # (G, M)
    like = np.ones((len(grid), len(noises)))
    for item in answers:
        d = (values[:, item.question.a] - values[:, item.question.b])[:, None]
        like *= brute_likelihood(
            np.broadcast_to(d, like.shape), noises[None, :], item.choice, settings.likelihood
        )
    mass = like / like.sum()
    per_weight = mass.sum(axis=1)
    best = np.zeros(len(z))
    np.add.at(best, values.argmax(axis=1), per_weight)
    return per_weight @ grid, best


@pytest.mark.parametrize(
    ("points", "rows", "settings", "cells"),
    [
        (FRONT_2, ANSWERS_2, ElicitationSettings(particles=20000, seed=3), 20000),
        (
            FRONT_2,
            ANSWERS_2,
            ElicitationSettings(utility="chebyshev", likelihood="probit", particles=20000),
            20000,
        ),
        (FRONT_3, ANSWERS_3, ElicitationSettings(particles=20000, seed=1, noise=0.1), 150),
        (FRONT_3, ANSWERS_3, ElicitationSettings(particles=20000, utility="chebyshev"), 150),
    ],
    ids=["2-linear-logistic", "2-chebyshev-probit", "3-linear-logistic", "3-chebyshev"],
)
def test_posterior_matches_a_grid_posterior(
    points: np.ndarray, rows: list[tuple[str, str, str]], settings: ElicitationSettings, cells: int
) -> None:
    answers = answers_of(rows)
    state = Elicitation.replay(points, answers, settings)
    k = points.shape[1]
    mean, best = grid_posterior(
        points, answers, settings, simplex_grid(k, cells), np.array([settings.noise])
    )
    np.testing.assert_allclose(state.summary().mean, mean, atol=0.015)
    np.testing.assert_allclose(state.best_probabilities(), best, atol=0.03)
    assert state.recommendation == int(np.argmax(state.expected_utilities()))
    assert state.probability_best == pytest.approx(best[state.recommendation], abs=0.03)


def test_estimated_noise_matches_a_grid_over_weight_and_noise() -> None:
    settings = ElicitationSettings(noise=None, particles=20000, seed=5)
    answers = answers_of(ANSWERS_2)
    state = Elicitation.replay(FRONT_2, answers, settings)
    # The noise prior is log-uniform on NOISE_PRIOR: a uniform grid in log s.
    from paretoscope.decision.elicitation import NOISE_PRIOR

    logs = np.linspace(*np.log(NOISE_PRIOR), 401)
    noises = np.exp((logs[:-1] + logs[1:]) / 2)
    mean, best = grid_posterior(FRONT_2, answers, settings, simplex_grid(2, 2000), noises)
    np.testing.assert_allclose(state.summary().mean, mean, atol=0.015)
    np.testing.assert_allclose(state.best_probabilities(), best, atol=0.03)


def brute_information(state: Elicitation, question: Question) -> float:
    """Mutual information between the A/B answer and (w, s), particle by particle."""
    z = scaled_front(FRONT_3) if state.front.returns.shape[1] == 3 else scaled_front(FRONT_2)
    p = state.probabilities
    chances = []
    for w, s in zip(state.weights, state.noise, strict=True):
        d = float(w @ z[question.a] - w @ z[question.b])
        chances.append(1.0 / (1.0 + math.exp(-d / s)))
    chance = np.array(chances)

    def entropy(x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -(x * np.log(x) + (1 - x) * np.log(1 - x))
        return np.nan_to_num(h)

    return float(entropy(np.array([p @ chance]))[0] - p @ entropy(chance))


@pytest.mark.parametrize(("points", "rows"), [(FRONT_2, ANSWERS_2[:3]), (FRONT_3, ANSWERS_3[:3])])
def test_next_pair_has_the_largest_information(
    points: np.ndarray, rows: list[tuple[str, str, str]]
) -> None:
    state = Elicitation.replay(points, answers_of(rows), ElicitationSettings(particles=500))
    asked = {frozenset((int(a), int(b))) for a, b, _ in rows}
    count = len(state.front)
    candidates = [
        Question(i, j)
        for i, j in itertools.combinations(range(count), 2)
        if frozenset((i, j)) not in asked
    ]
    gains = np.array([brute_information(state, q) for q in candidates])
    np.testing.assert_allclose(state.information(candidates), gains, rtol=1e-9, atol=1e-12)
    assert state.next_question("info") == candidates[int(np.argmax(gains))]


@pytest.mark.parametrize("strategy", ["info", "random"])
def test_every_pair_once_then_none(strategy: str) -> None:
    person = SimulatedPerson((0.3, 0.3, 0.4), seed=2)
    states = simulate(FRONT_3, person, 100, strategy, ElicitationSettings(particles=300))  # type: ignore[arg-type]
    pairs = [item.question.pair for item in states[-1].answers]
    count = len(states[-1].front)
    assert len(pairs) == len(set(pairs)) == count * (count - 1) // 2
    assert states[-1].next_question(strategy) is None  # type: ignore[arg-type]
    with pytest.raises(ParetoscopeError, match="asked already"):
        states[-1].answered(states[-1].answers[0].question, "A")


def test_same_seed_same_session_and_replay_gives_the_same_state() -> None:
    settings = ElicitationSettings(particles=2000, seed=11)
    person = SimulatedPerson((0.2, 0.5, 0.3), noise=0.05, seed=4)
    first = simulate(FRONT_3, person, 8, "info", settings)
    second = simulate(FRONT_3, person, 8, "info", settings)
    assert [a.question for a in first[-1].answers] == [a.question for a in second[-1].answers]
    assert [a.choice for a in first[-1].answers] == [a.choice for a in second[-1].answers]
    np.testing.assert_array_equal(first[-1].weights, second[-1].weights)
    np.testing.assert_array_equal(first[-1].log_weights, second[-1].log_weights)
    # A session is its answers: replaying the link's text rebuilds the state exactly.
    text = encode_answers(first[-1].answers)
    rebuilt = Elicitation.replay(FRONT_3, decode_answers(text), settings)
    np.testing.assert_array_equal(rebuilt.weights, first[-1].weights)
    np.testing.assert_array_equal(rebuilt.log_weights, first[-1].log_weights)
    assert rebuilt.recommendation == first[-1].recommendation
    # Undo is the state one answer earlier.
    undone = first[-1].undone()
    np.testing.assert_array_equal(undone.weights, first[-2].weights)
    np.testing.assert_array_equal(undone.log_weights, first[-2].log_weights)
    assert [s.recommendation for s in first[-1].history()] == [s.recommendation for s in first]
    # Another seed draws other particles.
    other = Elicitation.start(FRONT_3, ElicitationSettings(particles=2000, seed=12))
    assert not np.array_equal(other.weights, first[0].weights)


def test_answers_text_round_trip_and_refusals() -> None:
    answers = answers_of([("3", "7", "A"), ("2", "9", "same"), ("0", "1", "skip"), ("4", "5", "B")])
    assert encode_answers(answers) == "3-7A.2-9same.0-1skip.4-5B"
    assert decode_answers("3-7A.2-9same.0-1skip.4-5B") == tuple(answers)
    for bad in ("3-7X", "3A", "-1-2A", "3-7Asame"):
        with pytest.raises(ParetoscopeError, match="answers"):
            decode_answers(bad)
    state = Elicitation.start(FRONT_2, ElicitationSettings(particles=200))
    with pytest.raises(ParetoscopeError, match="question"):
        state.answered(Question(0, 0), "A")
    with pytest.raises(ParetoscopeError, match="answer"):
        state.answered(Question(0, 1), "C")  # type: ignore[arg-type]
    with pytest.raises(ParetoscopeError, match="2 objectives"):
        Elicitation.start(np.ones((3, 1)))


def test_six_objectives_and_a_single_point() -> None:
    rng = np.random.default_rng(0)
    points = np.abs(rng.normal(size=(30, 6)))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    weights = (0.05, 0.05, 0.6, 0.1, 0.1, 0.1)
    person = SimulatedPerson(weights, noise=0.0)
    state = simulate(points, person, 25, "info", ElicitationSettings(particles=3000))[-1]
    truth = state.front.scaled @ np.array(weights)
    regret = truth.max() - truth[state.recommendation]
    assert regret <= 0.05 * (truth.max() - truth.min())
    single = Elicitation.start(np.array([[1.0, 2.0], [0.5, 1.0]]))
    assert single.next_question() is None
    assert single.probability_best == pytest.approx(1.0)
    assert single.recommended_row == 0
