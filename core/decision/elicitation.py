"""Preference elicitation on a front: which policy a person prefers, from their answers to pairs.

The person is assumed to have a utility over the front's objectives, each normalised by the
front's range (0 at its nadir, 1 at its ideal): linear, u(z) = w . z, or augmented Chebyshev,
u(z) = -(max_i w_i (1 - z_i) + rho * sum_i w_i (1 - z_i)), with unknown weights w on the simplex.
Shown two policies A and B, with d = u(A) - u(B), they answer

- "A" with probability link(d / s) and "B" with link(-d / s), where link is the logistic
  function (Bradley-Terry) or the normal CDF (probit) and s the choice noise;
- "same" ("about the same"): likelihood exp(-(d / s)^2 / 2), largest when d is small;
- "skip" ("can't tell"): no information.

The posterior over (w, s) is held by seeded particles: w drawn from Dirichlet(1) (uniform on
the simplex), s the set noise (`DEFAULT_NOISE` unless given) or, when the noise is estimated,
drawn log-uniform on `NOISE_PRIOR`. Each answer reweights the particles; when the effective
sample size falls under half of them they are resampled (systematic) and moved by Metropolis-
Hastings steps that leave the posterior unchanged (a Dirichlet proposal around each particle).
Every random draw is seeded by (seed, answer count), so a session is its list of answers:
`Elicitation.replay` on the same answers gives the same state, bit for bit.

The next question is the unasked pair of distinct front points with the largest expected
information gain on its A/B answer (the mutual information between the answer and (w, s)), or
with strategy "random", an unasked pair drawn at random. A pair is never asked twice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from scipy.special import log_ndtr, ndtr

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray, as_point_set, require_non_empty
from paretoscope.metrics.dominance import non_dominated

Utility = Literal["linear", "chebyshev"]
Link = Literal["logistic", "probit"]
Choice = Literal["A", "B", "same", "skip"]
Strategy = Literal["info", "random"]

UTILITIES: tuple[str, ...] = ("linear", "chebyshev")
LINKS: tuple[str, ...] = ("logistic", "probit")
CHOICES: tuple[str, ...] = ("A", "B", "same", "skip")
STRATEGIES: tuple[str, ...] = ("info", "random")

# Choice noise on the normalised utility scale: with the logistic link, a person picks the
# better of two policies whose utilities differ by 10% of the front's range 88% of the time
# (logistic(0.1 / 0.05) = 0.88), and is at chance on a difference of 0.
DEFAULT_NOISE = 0.05
# The noise's prior when it is estimated: log-uniform on this range.
NOISE_PRIOR = (0.005, 0.5)
DEFAULT_PARTICLES = 4000
# Resample when the effective sample size falls below this fraction of the particles.
RESAMPLE_BELOW = 0.5
# Metropolis-Hastings moves after a resampling, and the Dirichlet proposal's concentration.
MOVES = 3
CONCENTRATION = 300.0
# Credible intervals of the posterior summary (central).
CREDIBLE = 0.9
# Pairs scored at once when choosing the next question (bounds memory to ~chunk x particles).
_PAIR_CHUNK = 256


@dataclass(frozen=True)
class ElicitationSettings:
    """The utility model, the choice likelihood, the noise (None: estimated) and the particles."""

    utility: Utility = "linear"
    likelihood: Link = "logistic"
    noise: float | None = DEFAULT_NOISE
    particles: int = DEFAULT_PARTICLES
    seed: int = 0
    rho: float = 0.01  # the augmented Chebyshev utility's sum term

    def __post_init__(self) -> None:
        if self.utility not in UTILITIES:
            raise ParetoscopeError(
                f"utility: expected one of {', '.join(UTILITIES)}, got {self.utility!r}"
            )
        if self.likelihood not in LINKS:
            raise ParetoscopeError(
                f"likelihood: expected one of {', '.join(LINKS)}, got {self.likelihood!r}"
            )
        if self.noise is not None and not (math.isfinite(self.noise) and self.noise > 0):
            raise ParetoscopeError(f"noise: expected a positive number, got {self.noise!r}")
        if isinstance(self.particles, bool) or not 100 <= int(self.particles) <= 1_000_000:
            raise ParetoscopeError(
                f"particles: expected a whole number from 100 to 1000000, got {self.particles!r}"
            )
        if not (math.isfinite(self.rho) and self.rho >= 0):
            raise ParetoscopeError(f"rho: expected a number >= 0, got {self.rho!r}")


@dataclass(frozen=True, order=True)
class Question:
    """Two positions on the front (`Front.rows` maps them to the table's rows): A and B."""

    a: int
    b: int

    @property
    def pair(self) -> frozenset[int]:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class Answer:
    """One answered question; `seconds`: how long the person took, when known."""

    question: Question
    choice: Choice
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.choice not in CHOICES:
            raise ParetoscopeError(
                f"answer: expected one of {', '.join(CHOICES)}, got {self.choice!r}"
            )


_ANSWER_TEXT = re.compile(r"([0-9]{1,6})-([0-9]{1,6})(A|B|same|skip)")


def encode_answers(answers: Iterable[Answer]) -> str:
    """A session's answers as short text for a link, e.g. ``3-7A.2-9same`` (no timings)."""
    return ".".join(f"{item.question.a}-{item.question.b}{item.choice}" for item in answers)


def decode_answers(text: str) -> tuple[Answer, ...]:
    """The answers `encode_answers` wrote; a ParetoscopeError on anything else."""
    answers = []
    for part in filter(None, text.split(".")):
        match = _ANSWER_TEXT.fullmatch(part)
        if match is None:
            raise ParetoscopeError(f"answers: expected items like 3-7A, got {part!r}")
        first, second, choice = match.groups()
        answers.append(Answer(Question(int(first), int(second)), choice))  # type: ignore[arg-type]
    return tuple(answers)


@dataclass(frozen=True)
class Front:
    """The distinct non-dominated points of a table of returns, normalised by their range."""

    rows: np.ndarray  # (M,) rows of the table given, increasing
    returns: FloatArray  # (M, k) their returns
    scaled: FloatArray  # (M, k) 0 at the front's nadir, 1 at its ideal (a constant objective 0)

    @classmethod
    def of(cls, returns: object) -> Front:
        """The front of `returns` (N, k) to maximise; duplicates keep their first row."""
        points = as_point_set("returns", returns)
        require_non_empty("returns", points, "elicitation needs at least one policy")
        if points.shape[1] < 2:
            raise ParetoscopeError(
                f"returns: elicitation needs at least 2 objectives, got {points.shape[1]}"
            )
        rows = np.flatnonzero(non_dominated(points))
        _, first = np.unique(points[rows], axis=0, return_index=True)
        rows = rows[np.sort(first)]
        front = points[rows]
        low, high = front.min(axis=0), front.max(axis=0)
        span = np.where(high > low, high - low, np.inf)
        return cls(rows, front, np.asarray((front - low) / span, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class PosteriorSummary:
    """Posterior mean and central credible interval of each weight (and of the noise)."""

    mean: FloatArray  # (k,)
    low: FloatArray  # (k,)
    high: FloatArray  # (k,)
    noise_mean: float
    noise_low: float
    noise_high: float
    effective_sample_size: float
    credible: float = CREDIBLE


def utilities(weights: FloatArray, scaled: FloatArray, utility: str, rho: float) -> FloatArray:
    """(P, M) utility of each front point (`scaled`, (M, k)) under each weight row (P, k)."""
    if utility == "linear":
        return np.asarray(weights @ scaled.T, dtype=np.float64)
    gaps = weights[:, None, :] * (1.0 - scaled)[None, :, :]
    return np.asarray(-(gaps.max(axis=2) + rho * gaps.sum(axis=2)), dtype=np.float64)


def answer_log_likelihood(
    difference: FloatArray, noise: FloatArray, choice: str, link: str
) -> FloatArray:
    """log P(choice | d = u(A) - u(B), s), elementwise."""
    scaled = np.asarray(difference / noise, dtype=np.float64)
    if choice == "skip":
        return np.zeros(scaled.shape)
    if choice == "same":
        return np.asarray(-0.5 * scaled**2, dtype=np.float64)
    signed = scaled if choice == "A" else -scaled
    if link == "logistic":
        return np.asarray(-np.logaddexp(0.0, -signed), dtype=np.float64)
    return np.asarray(log_ndtr(signed), dtype=np.float64)


def probability_a(difference: FloatArray, noise: FloatArray, link: str) -> FloatArray:
    """P(answer A | d, s) under the link."""
    scaled = difference / noise
    if link == "logistic":
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * scaled)), dtype=np.float64)
    return np.asarray(ndtr(scaled), dtype=np.float64)


def _entropy(p: FloatArray) -> FloatArray:
    """Binary entropy in nats (0 at p = 0 or 1)."""
    q = np.clip(p, 1e-300, 1.0)
    r = np.clip(1.0 - p, 1e-300, 1.0)
    return np.asarray(-(p * np.log(q) + (1.0 - p) * np.log(r)), dtype=np.float64)


def _normalised(log_weights: FloatArray) -> FloatArray:
    shifted = np.exp(log_weights - log_weights.max())
    return np.asarray(shifted / shifted.sum(), dtype=np.float64)


def _weighted_quantile(values: FloatArray, weights: FloatArray, q: float) -> float:
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    position = int(np.searchsorted(cumulative, q * cumulative[-1], side="left"))
    return float(values[order][min(position, len(values) - 1)])


@dataclass(frozen=True)
class Elicitation:
    """One session's state: the front, the settings, the answers and the posterior particles.

    Immutable: `answered` and `undone` return new states. Build one with `Elicitation.start`
    (no answers) or `Elicitation.replay` (a list of answers, e.g. from a link).
    """

    front: Front
    settings: ElicitationSettings
    answers: tuple[Answer, ...]
    weights: FloatArray = field(repr=False)  # (P, k) particles on the simplex
    noise: FloatArray = field(repr=False)  # (P,) each particle's choice noise
    log_weights: FloatArray = field(repr=False)  # (P,) unnormalised

    # --- building -------------------------------------------------------------------------

    @classmethod
    def start(cls, returns: object, settings: ElicitationSettings | None = None) -> Elicitation:
        """The prior on the front of `returns` (N, k): uniform weights, the noise's prior."""
        return cls._prior(Front.of(returns), settings or ElicitationSettings())

    @classmethod
    def _prior(cls, front: Front, chosen: ElicitationSettings) -> Elicitation:
        rng = np.random.default_rng([chosen.seed, 0])
        count, k = int(chosen.particles), front.returns.shape[1]
        weights = rng.dirichlet(np.ones(k), size=count)
        if chosen.noise is None:
            low, high = np.log(NOISE_PRIOR)
            noise = np.exp(rng.uniform(low, high, size=count))
        else:
            noise = np.full(count, float(chosen.noise))
        return cls(front, chosen, (), weights, noise, np.zeros(count))

    @classmethod
    def replay(
        cls,
        returns: object,
        answers: Iterable[Answer],
        settings: ElicitationSettings | None = None,
    ) -> Elicitation:
        """The state after `answers`, given in order, from the prior."""
        return cls.start(returns, settings)._after(answers)

    def _after(self, answers: Iterable[Answer]) -> Elicitation:
        state = self
        for item in answers:
            state = state.answered(item.question, item.choice, item.seconds)
        return state

    def answered(
        self, question: Question, choice: Choice, seconds: float | None = None
    ) -> Elicitation:
        """The state after one more answer; the question must be an unasked pair on the front."""
        self._check_question(question)
        item = Answer(question, choice, seconds)
        log_weights = self.log_weights + self._log_likelihood(item, self.weights, self.noise)
        state = replace(self, answers=(*self.answers, item), log_weights=log_weights)
        if state.effective_sample_size < RESAMPLE_BELOW * len(log_weights):
            state = state._resampled_and_moved()
        return state

    def undone(self) -> Elicitation:
        """The state without the last answer (the prior when there is none)."""
        return Elicitation._prior(self.front, self.settings)._after(self.answers[:-1])

    def history(self) -> list[Elicitation]:
        """The prior, then the state after each answer in turn (the last is this state)."""
        states = [Elicitation._prior(self.front, self.settings)]
        for item in self.answers:
            states.append(states[-1].answered(item.question, item.choice, item.seconds))
        return states

    # --- the posterior ----------------------------------------------------------------------

    @property
    def probabilities(self) -> FloatArray:
        """(P,) normalised particle weights."""
        return _normalised(self.log_weights)

    @property
    def effective_sample_size(self) -> float:
        p = self.probabilities
        return float(1.0 / np.sum(p**2))

    def utilities(self) -> FloatArray:
        """(P, M) each particle's utility of each front point."""
        return utilities(self.weights, self.front.scaled, self.settings.utility, self.settings.rho)

    def expected_utilities(self) -> FloatArray:
        """(M,) posterior expected utility of each front point."""
        return np.asarray(self.probabilities @ self.utilities(), dtype=np.float64)

    def best_probabilities(self) -> FloatArray:
        """(M,) posterior probability that each front point has the highest utility (ties go
        to the first point)."""
        best = np.argmax(self.utilities(), axis=1)
        counts = np.bincount(best, weights=self.probabilities, minlength=len(self.front))
        return np.asarray(counts, dtype=np.float64)

    @property
    def recommendation(self) -> int:
        """Position on the front of the highest posterior expected utility (first on ties)."""
        return int(np.argmax(self.expected_utilities()))

    @property
    def recommended_row(self) -> int:
        """The recommendation's row in the table of returns given."""
        return int(self.front.rows[self.recommendation])

    @property
    def probability_best(self) -> float:
        """Posterior probability that the recommendation is the best policy on the front."""
        return float(self.best_probabilities()[self.recommendation])

    def summary(self) -> PosteriorSummary:
        p = self.probabilities
        tail = (1.0 - CREDIBLE) / 2
        columns = self.weights.T
        return PosteriorSummary(
            mean=np.asarray(p @ self.weights, dtype=np.float64),
            low=np.array([_weighted_quantile(c, p, tail) for c in columns]),
            high=np.array([_weighted_quantile(c, p, 1 - tail) for c in columns]),
            noise_mean=float(p @ self.noise),
            noise_low=_weighted_quantile(self.noise, p, tail),
            noise_high=_weighted_quantile(self.noise, p, 1 - tail),
            effective_sample_size=self.effective_sample_size,
        )

    # --- the next question ------------------------------------------------------------------

    def unasked(self) -> list[Question]:
        """Every pair of distinct front points not asked yet, (i, j) with i < j, in order."""
        asked = {item.question.pair for item in self.answers}
        count = len(self.front)
        return [
            Question(i, j)
            for i in range(count)
            for j in range(i + 1, count)
            if frozenset((i, j)) not in asked
        ]

    def information(self, questions: Sequence[Question]) -> FloatArray:
        """Expected information gain (nats) of each question's A/B answer: the mutual
        information H(E[p]) - E[H(p)] with p = P(A | w, s) under the posterior."""
        p = self.probabilities
        values = self.utilities()
        gains = np.zeros(len(questions))
        for start in range(0, len(questions), _PAIR_CHUNK):
            chunk = questions[start : start + _PAIR_CHUNK]
            first = np.array([q.a for q in chunk])
            second = np.array([q.b for q in chunk])
            difference = values[:, first] - values[:, second]  # (P, chunk)
            prob = probability_a(difference, self.noise[:, None], self.settings.likelihood)
            gains[start : start + len(chunk)] = _entropy(p @ prob) - p @ _entropy(prob)
        return gains

    def next_question(self, strategy: Strategy = "info") -> Question | None:
        """The next pair to ask (None when every pair was asked or the front has one point)."""
        if strategy not in STRATEGIES:
            raise ParetoscopeError(
                f"strategy: expected one of {', '.join(STRATEGIES)}, got {strategy!r}"
            )
        candidates = self.unasked()
        if not candidates:
            return None
        if strategy == "random":
            rng = np.random.default_rng([self.settings.seed, len(self.answers), 1])
            chosen = candidates[int(rng.integers(len(candidates)))]
            return Question(chosen.b, chosen.a) if rng.random() < 0.5 else chosen
        return candidates[int(np.argmax(self.information(candidates)))]

    # --- internals ----------------------------------------------------------------------------

    def _check_question(self, question: Question) -> None:
        count = len(self.front)
        if not (0 <= question.a < count and 0 <= question.b < count) or question.a == question.b:
            raise ParetoscopeError(
                f"question: expected two different positions on the front (0 to {count - 1}), "
                f"got {question.a} and {question.b}"
            )
        if any(item.question.pair == question.pair for item in self.answers):
            raise ParetoscopeError(
                f"question: the pair {question.a}, {question.b} was asked already"
            )

    def _log_likelihood(self, item: Answer, weights: FloatArray, noise: FloatArray) -> FloatArray:
        pair = np.array([item.question.a, item.question.b])
        values = utilities(
            weights, self.front.scaled[pair], self.settings.utility, self.settings.rho
        )
        difference = values[:, 0] - values[:, 1]
        return np.asarray(
            answer_log_likelihood(difference, noise, item.choice, self.settings.likelihood),
            dtype=np.float64,
        )

    def _log_target(self, weights: FloatArray, noise: FloatArray) -> FloatArray:
        """Log posterior density up to a constant: every answer's likelihood (flat priors)."""
        total = np.zeros(len(weights))
        for item in self.answers:
            total += self._log_likelihood(item, weights, noise)
        return total

    def _resampled_and_moved(self) -> Elicitation:
        """Systematic resampling, then MOVES Metropolis-Hastings steps per particle."""
        rng = np.random.default_rng([self.settings.seed, len(self.answers), 2])
        count = len(self.log_weights)
        positions = (rng.random() + np.arange(count)) / count
        cumulative = np.cumsum(self.probabilities)
        cumulative[-1] = 1.0
        chosen = np.searchsorted(cumulative, positions, side="left")
        weights, noise = self.weights[chosen], self.noise[chosen]
        target = self._log_target(weights, noise)
        estimated = self.settings.noise is None
        low, high = np.log(NOISE_PRIOR)
        for _ in range(MOVES):
            alpha = 1.0 + CONCENTRATION * weights
            proposal = np.clip(rng.gamma(alpha), 1e-300, None)
            proposal /= proposal.sum(axis=1, keepdims=True)
            proposal = np.clip(proposal, 1e-12, None)
            proposal /= proposal.sum(axis=1, keepdims=True)
            back = 1.0 + CONCENTRATION * proposal
            log_ratio = _dirichlet_log_pdf(weights, back) - _dirichlet_log_pdf(proposal, alpha)
            new_noise = noise
            if estimated:
                log_noise = np.log(noise) + rng.normal(0.0, 0.2, size=count)
                inside = (log_noise > low) & (log_noise < high)
                new_noise = np.where(inside, np.exp(log_noise), noise)
                # The prior is uniform in log s: the walk's proposal there is symmetric.
                log_ratio = np.where(inside, log_ratio, -np.inf)
            proposed_target = self._log_target(proposal, new_noise)
            accept = np.log(rng.random(count)) < proposed_target - target + log_ratio
            weights = np.where(accept[:, None], proposal, weights)
            noise = np.where(accept, new_noise, noise)
            target = np.where(accept, proposed_target, target)
        return replace(self, weights=weights, noise=noise, log_weights=np.zeros(count))


def _dirichlet_log_pdf(x: FloatArray, alpha: FloatArray) -> FloatArray:
    from scipy.special import gammaln

    return np.asarray(
        gammaln(alpha.sum(axis=1))
        - gammaln(alpha).sum(axis=1)
        + ((alpha - 1.0) * np.log(np.clip(x, 1e-300, None))).sum(axis=1),
        dtype=np.float64,
    )
