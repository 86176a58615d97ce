"""Decision-making on a front of returns to maximise: which point to pick, and why.

A front shows every trade-off; a user still has to choose one policy. This package's
submodules find the policy a person prefers from their answers to pairs (`elicitation`, with
`simulated` people and decision `record`s); this module marks the
points that help: an aspiration-level pick (Wierzbicki's achievement scalarizing function),
the knee (`knee_point`) and the high trade-off points (`decision_marks().knees`), the
preference each point effectively expresses (pseudo-weights) and the compromise-programming
point (closest to the ideal). It also normalises returns for display (`normalise`).

Every function takes an (N, k) array of returns to MAXIMISE that may hold dominated points and
duplicates; the decisions are made on the non-dominated rows only, and indices always refer to
the rows given. Bounds (ideal, nadir) are those of the non-dominated rows. Ties between equal
scores (within 1e-12 relative) go to the lowest row index, so every pick is deterministic.
pymoo, which minimises, supplies the pseudo-weights on the negated front; the trade-off of
the high trade-off points follows pymoo's `HighTradeoffPoints`, vectorised (pymoo's loop over
points is too slow for a dashboard rerun). NaN, infinity, a wrong shape or an empty set raise
`ParetoscopeError`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray, as_point_set, as_vector, require_non_empty
from paretoscope.metrics.dominance import non_dominated

NORMALISATIONS: tuple[str, ...] = ("raw", "min-max", "reference")

# Relative tolerance under which two scores count as equal (the lowest row index wins).
_TIE = 1e-12
# Radius of the neighbourhood (min-max normalised space) that the trade-off looks at, as pymoo.
_TRADEOFF_RADIUS = 0.125


def _span_or_zero(span: FloatArray) -> FloatArray:
    """Per-objective divisor: the span, or inf where it is <= 0 so that the quotient is 0."""
    return np.where(span > 0, span, np.inf)


def normalisation_scale(
    points: object, mode: str, reference_point: object | None = None
) -> tuple[FloatArray, FloatArray]:
    """Per objective (offset, scale) such that ``(x - offset) / scale`` is `normalise`'s
    result: apply it to other vectors (an aspiration level) to draw them in the same scale.
    A scale of inf sends its objective to 0."""
    if mode not in NORMALISATIONS:
        raise ParetoscopeError(
            f"normalisation: expected one of {', '.join(NORMALISATIONS)}, got {mode!r}"
        )
    array = as_point_set("points", points)
    k = array.shape[1]
    reference = None
    if mode == "reference":
        if reference_point is None:
            raise ParetoscopeError(
                "reference_point: expected a vector of one number per objective for the "
                "'reference' normalisation, got none"
            )
        reference = as_vector("reference_point", reference_point, length=k)
    if mode == "raw" or len(array) == 0:
        return np.zeros(k), np.ones(k)
    best = array.max(axis=0)
    low = array.min(axis=0) if reference is None else reference
    return np.asarray(low, dtype=np.float64), _span_or_zero(best - low)


def normalise(points: object, mode: str, reference_point: object | None = None) -> FloatArray:
    """Returns rescaled per objective for display, shape (N, k) like `points`.

    - ``raw``: unchanged (a float copy).
    - ``min-max``: (x - min) / (max - min) over `points`, so each objective spans [0, 1]; a
      constant objective becomes 0.
    - ``reference``: (x - r) / (max - r) with `reference_point` r: 0 at the reference point,
      1 at the best value in `points`; an objective whose best value is not above r becomes 0.

    An empty set gives an empty (0, k) array: there is nothing to rescale.
    """
    offset, scale = normalisation_scale(points, mode, reference_point)
    array = as_point_set("points", points)
    return np.asarray((array - offset) / scale, dtype=np.float64)


@dataclass(frozen=True)
class _Front:
    """The non-dominated rows of a validated point set and their bounds."""

    points: FloatArray  # all rows given, (N, k)
    rows: np.ndarray  # indices of the non-dominated rows, increasing
    front: FloatArray  # points[rows]
    ideal: FloatArray  # best value per objective over the front
    nadir: FloatArray  # worst value per objective over the front

    @property
    def span(self) -> FloatArray:
        return np.asarray(self.ideal - self.nadir, dtype=np.float64)

    def scaled(self) -> FloatArray:
        """The front min-max normalised over itself: 1 at the ideal, 0 at the nadir (a
        constant objective is 0 everywhere)."""
        return np.asarray((self.front - self.nadir) / _span_or_zero(self.span), dtype=np.float64)


def _front_of(points: object) -> _Front:
    array = as_point_set("points", points)
    require_non_empty("points", array, "a decision needs at least one point")
    rows = np.flatnonzero(non_dominated(array))
    front = array[rows]
    return _Front(array, rows, front, front.max(axis=0), front.min(axis=0))


# A level counts as met when the return falls short of it by at most this fraction of the
# objective's scale (`aspiration_pick`).
ASPIRATION_TOLERANCE = 1e-3


def _lowest_best(scores: FloatArray) -> int:
    """Position of the smallest score; scores within the tie tolerance go to the first."""
    best = float(scores.min())
    tied = scores <= best + _TIE * max(1.0, abs(best))
    return int(np.flatnonzero(tied)[0])


@dataclass(frozen=True)
class AspirationPick:
    """The point that best meets an aspiration level, and by how much it meets it."""

    index: int  # row in the points given
    returns: np.ndarray  # (k,)
    achievement: float  # the ASF value that was minimised (<= 0: the aspiration is met everywhere)
    difference: np.ndarray  # (k,) returns - aspiration per objective (>= 0: met or exceeded)
    # (k,) how far a return may fall short of its level and still meet it: ASPIRATION_TOLERANCE
    # of the objective's scale (a level typed or rounded to a few digits is not missed by that)
    tolerance: np.ndarray

    @property
    def met(self) -> np.ndarray:
        """(k,) whether each level is met (within the tolerance)."""
        return np.asarray(self.difference >= -self.tolerance)


def aspiration_pick(points: object, aspiration: object, rho: float = 1e-6) -> AspirationPick:
    """The non-dominated point that minimises Wierzbicki's augmented achievement function.

    For maximisation, with aspiration a and weights w_i = 1 / (ideal_i - nadir_i), ideal and
    nadir taken over the non-dominated points (a zero range gives w_i = 1):

        s(x) = max_i w_i (a_i - x_i) + rho * sum_i w_i (a_i - x_i)

    The weights put every objective on the front's own range, so the pick does not change when
    an objective is rescaled or shifted (with the aspiration); the small rho term separates
    points level on the max term, favouring the one better in the other objectives.
    s(x) <= 0 means x meets or exceeds the aspiration in every objective. Only non-dominated
    rows are candidates; ties go to the lowest row index.
    """
    front = _front_of(points)
    target = as_vector("aspiration", aspiration, length=front.points.shape[1])
    if isinstance(rho, bool) or not isinstance(rho, (int, float, np.number)):
        raise ParetoscopeError(f"rho: expected a finite number >= 0, got {rho!r}")
    if not math.isfinite(float(rho)) or rho < 0:
        raise ParetoscopeError(f"rho: expected a finite number >= 0, got {rho!r}")
    weights = 1.0 / np.where(front.span > 0, front.span, 1.0)
    shortfall = weights * (target - front.front)
    scores = shortfall.max(axis=1) + float(rho) * shortfall.sum(axis=1)
    position = _lowest_best(scores)
    index = int(front.rows[position])
    returns = front.points[index].copy()
    difference = returns - target
    # The scale a shortfall is judged on: the objective's range on the front, or, where every
    # policy gives the same value, the size of that value (at least 1).
    scale = np.where(front.span > 0, front.span, np.maximum(1.0, np.abs(returns)))
    tolerance = ASPIRATION_TOLERANCE * scale
    return AspirationPick(index, returns, float(scores[position]), difference, tolerance)


def _knee_of(front: _Front) -> int:
    scores = -front.scaled().sum(axis=1)
    return int(front.rows[_lowest_best(scores)])


def knee_point(points: object) -> int:
    """Row of the knee: the non-dominated point farthest beyond the hyperplane through the
    unit points of the min-max normalised front.

    Each objective is scaled to [0, 1] over the non-dominated points (1 at the best value; a
    constant objective is 0), and the knee maximises the sum of the scaled objectives, i.e. its
    distance beyond the hyperplane sum = 1. With 2 objectives that hyperplane is the line
    through the two extreme points, the classic knee. Ties go to the lowest row index, so a
    front of one point gives that point and a 2-objective front of two points gives the first
    of them. Defined for any number of objectives.
    """
    return _knee_of(_front_of(points))


def _pseudo_weights_of(front: _Front) -> FloatArray:
    # Imported here: scipy and pymoo take 0.4 s, and every page's sidebar imports this module
    # for NORMALISATIONS.
    with warnings.catch_warnings():
        # pymoo 0.6.2 imports cKDTree from a scipy namespace that scipy deprecates.
        warnings.simplefilter("ignore", DeprecationWarning)
        from pymoo.mcdm.pseudo_weights import PseudoWeights

    n_obj = front.points.shape[1]
    weights = np.full(front.points.shape, np.nan)
    # pymoo minimises: hand it 1 - scaled (ideal 0, nadir 1), whose pseudo-weights are the
    # scaled values over their row sum.
    minimised = 1.0 - front.scaled()
    with np.errstate(invalid="ignore", divide="ignore"):
        _, rows = PseudoWeights(
            np.full(n_obj, 1.0 / n_obj), ideal=np.zeros(n_obj), nadir=np.ones(n_obj)
        ).do(minimised, return_pseudo_weights=True)
    rows = np.asarray(rows, dtype=np.float64)
    rows[~np.isfinite(rows).all(axis=1)] = 1.0 / n_obj  # every objective at its worst
    weights[front.rows] = rows
    return weights


def pseudo_weights(points: object) -> FloatArray:
    """The preference each point effectively expresses, shape (N, k), rows summing to 1.

    pymoo's pseudo-weights on the maximisation front: w_i = (x_i - nadir_i) / (ideal_i -
    nadir_i), divided by the row's sum, with ideal and nadir of the non-dominated points. A
    constant objective contributes 0; a row whose objectives are all at the nadir (only when
    the front is a single distinct point) gets equal weights 1/k. Dominated rows are NaN:
    they express no trade-off on the front.
    """
    return _pseudo_weights_of(_front_of(points))


def _compromise_of(front: _Front, p: float) -> int:
    gaps = (front.ideal - front.front) / _span_or_zero(front.span)
    distances = gaps.max(axis=1) if math.isinf(p) else (gaps**p).sum(axis=1) ** (1.0 / p)
    return int(front.rows[_lowest_best(distances)])


def compromise_point(points: object, p: float = 2.0) -> int:
    """Row of the compromise-programming point: the non-dominated point closest to the ideal.

    Distance d_p(x) = (sum_i ((ideal_i - x_i) / (ideal_i - nadir_i))^p)^(1/p) in the min-max
    normalised space of the non-dominated points (a constant objective adds 0); p >= 1, with
    p = inf the largest normalised gap (Chebyshev). Ties go to the lowest row index.
    """
    if isinstance(p, bool) or not isinstance(p, (int, float, np.number)) or not p >= 1:
        raise ParetoscopeError(f"p: expected a number >= 1 (or inf), got {p!r}")
    return _compromise_of(_front_of(points), float(p))


def _tradeoff_knees(front: _Front) -> np.ndarray:
    """Rows of the high trade-off points (pymoo's `HighTradeoffPoints`, vectorised).

    On the distinct non-dominated points, min-max normalised: the trade-off of moving from x to
    a neighbour y is the sum of what y loses over the sum of what it gains; mu(x) is its
    smallest trade-off over the neighbours within 0.125 (at least min(2k, n - 1) nearest).
    Points whose mu lies 2 standard deviations above the mean are knees; when none does, the
    largest mu if it lies more than 1 standard deviation above. Fewer than 3 distinct points
    or one objective: none. Every row equal to a knee is returned.
    """
    from scipy.spatial import cKDTree  # see _pseudo_weights_of

    n_obj = front.points.shape[1]
    distinct, first = np.unique(front.front, axis=0, return_index=True)
    count = len(distinct)
    if count < 3 or n_obj < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(first)  # keep the rows' order, so results never depend on sorting
    distinct = distinct[order]
    span = _span_or_zero(front.span)
    loss = (front.ideal - distinct) / span  # minimised, in [0, 1]
    tree = cKDTree(loss)
    pairs = tree.query_pairs(_TRADEOFF_RADIUS, output_type="ndarray")
    owner = np.concatenate([pairs[:, 0], pairs[:, 1]])
    other = np.concatenate([pairs[:, 1], pairs[:, 0]])
    # pymoo's ball holds the point itself: fewer than `least` means fewer than least - 1 others.
    least = min(2 * n_obj, count - 1)
    short = np.bincount(owner, minlength=count) + 1 < least
    if short.any():
        keep = ~short[owner]
        _, nearest = tree.query(loss[short], k=least + 1)
        owner = np.concatenate([owner[keep], np.repeat(np.flatnonzero(short), least + 1)])
        other = np.concatenate([other[keep], np.asarray(nearest, dtype=np.int64).ravel()])
    # Column by column: far faster than (pairs, k) blocks summed along a short axis.
    sacrifice = np.zeros(len(owner))
    gain = np.zeros(len(owner))
    for column in np.ascontiguousarray(loss.T):
        change = column[other] - column[owner]
        sacrifice += np.maximum(change, 0.0)
        gain += np.maximum(-change, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = sacrifice / gain
    ratio[np.isnan(ratio)] = np.inf  # the point itself: no trade-off (pymoo's nanmin skips it)
    mu = np.full(count, np.inf)
    np.minimum.at(mu, owner, ratio)
    finite = np.flatnonzero(np.isfinite(mu))
    if len(finite) == 0:
        return np.zeros(0, dtype=np.int64)
    values = mu[finite]
    sigma = values.std()
    if not sigma > 0:
        return np.zeros(0, dtype=np.int64)
    deviation = (values - values.mean()) / sigma
    chosen = finite[deviation >= 2]
    if len(chosen) == 0 and deviation.max() > 1:
        chosen = finite[[int(np.argmax(deviation))]]
    knees = distinct[chosen]
    equal = (front.front[:, None, :] == knees[None, :, :]).all(axis=2).any(axis=1)
    return np.asarray(front.rows[equal], dtype=np.int64)


@dataclass(frozen=True)
class DecisionMarks:
    """Everything the dashboard marks on a front, computed in one pass."""

    knees: np.ndarray  # rows of the high trade-off points (every duplicate), maybe empty
    pseudo_weights: np.ndarray  # (N, k) rows sum to 1; NaN rows for dominated points
    compromise: int  # row of the compromise-programming point (L2 to the ideal)


def decision_marks(points: object) -> DecisionMarks:
    """High trade-off points, pseudo-weights and the compromise point of one front.

    See `pseudo_weights` and `compromise_point` (p = 2); the knees are pymoo's high trade-off
    points (a set, possibly empty, unlike the single `knee_point`).
    """
    front = _front_of(points)
    return DecisionMarks(
        knees=_tradeoff_knees(front),
        pseudo_weights=_pseudo_weights_of(front),
        compromise=_compromise_of(front, 2.0),
    )
