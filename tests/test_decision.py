"""paretoscope.decision against plain definitions: double loops over points, hand-made fronts, and
pymoo's own `HighTradeoffPoints` for the vectorised high trade-off points."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretoscope.decision import (
    NORMALISATIONS,
    aspiration_pick,
    compromise_point,
    decision_marks,
    knee_point,
    normalise,
    pseudo_weights,
)
from paretoscope.errors import ParetoscopeError

FAST = settings(max_examples=60, deadline=None)
TIE = 1e-9

# --- brute force, written from the definitions -------------------------------------------


def dominates(q: list[float], p: list[float]) -> bool:
    return all(a >= b for a, b in zip(q, p, strict=True)) and any(
        a > b for a, b in zip(q, p, strict=True)
    )


def front_rows(points: list[list[float]]) -> list[int]:
    return [
        i
        for i, p in enumerate(points)
        if not any(dominates(q, p) for j, q in enumerate(points) if j != i)
    ]


def bounds(points: list[list[float]]) -> tuple[list[float], list[float]]:
    """Ideal and nadir of the non-dominated rows, one objective at a time."""
    rows = front_rows(points)
    k = len(points[0])
    ideal = [max(points[i][o] for i in rows) for o in range(k)]
    nadir = [min(points[i][o] for i in rows) for o in range(k)]
    return ideal, nadir


def first_min(scores: dict[int, float]) -> int:
    best = min(scores.values())
    return min(i for i, s in scores.items() if s <= best + TIE * max(1.0, abs(best)))


def brute_asf(points: list[list[float]], aspiration: list[float], rho: float) -> dict[int, float]:
    ideal, nadir = bounds(points)
    scores = {}
    for i in front_rows(points):
        terms = []
        for o, a in enumerate(aspiration):
            w = 1.0 / (ideal[o] - nadir[o]) if ideal[o] > nadir[o] else 1.0
            terms.append(w * (a - points[i][o]))
        scores[i] = max(terms) + rho * sum(terms)
    return scores


def scaled(points: list[list[float]], i: int) -> list[float]:
    ideal, nadir = bounds(points)
    return [
        (points[i][o] - nadir[o]) / (ideal[o] - nadir[o]) if ideal[o] > nadir[o] else 0.0
        for o in range(len(ideal))
    ]


def brute_knee(points: list[list[float]]) -> int:
    return first_min({i: -sum(scaled(points, i)) for i in front_rows(points)})


def brute_compromise(points: list[list[float]], p: float) -> int:
    ideal, nadir = bounds(points)
    scores = {}
    for i in front_rows(points):
        gaps = [
            (ideal[o] - points[i][o]) / (ideal[o] - nadir[o]) if ideal[o] > nadir[o] else 0.0
            for o in range(len(ideal))
        ]
        scores[i] = max(gaps) if math.isinf(p) else sum(g**p for g in gaps) ** (1 / p)
    return first_min(scores)


def brute_pseudo_weights(points: list[list[float]]) -> list[list[float] | None]:
    rows = set(front_rows(points))
    k = len(points[0])
    out: list[list[float] | None] = []
    for i in range(len(points)):
        if i not in rows:
            out.append(None)
            continue
        values = scaled(points, i)
        total = sum(values)
        out.append([v / total for v in values] if total > 0 else [1.0 / k] * k)
    return out


def integer_fronts(min_k: int = 2, max_k: int = 6, max_size: int = 12) -> st.SearchStrategy:
    """Small integer point sets: exact ties, duplicates and dominated points are common."""
    return st.integers(min_k, max_k).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(-4, 6), min_size=k, max_size=k), min_size=1, max_size=max_size
        )
    )


# --- aspiration pick ---------------------------------------------------------------------


def test_aspiration_pick_by_hand() -> None:
    points = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6], [0.1, 0.1]]
    pick = aspiration_pick(points, [0.5, 0.5], rho=0.0)
    # ranges are 1: s = max(0.5 - x1, 0.5 - x2): -0.1 at (0.6, 0.6), 0.5 at the extremes.
    assert pick.index == 2
    assert pick.achievement == pytest.approx(-0.1)
    np.testing.assert_allclose(pick.difference, [0.1, 0.1])
    np.testing.assert_array_equal(pick.returns, [0.6, 0.6])
    # An aspiration near one extreme picks it; the shortfall there is positive.
    far = aspiration_pick(points, [0.95, 0.2], rho=0.0)
    assert far.index == 0 and far.achievement == pytest.approx(0.2)


def test_a_level_missed_by_rounding_counts_as_met() -> None:
    # The front spans 10 in objective 0 and 0 in objective 1 (every policy gives 4.41602).
    points = [[0.0, 4.41602], [10.0, 4.41602]]
    # Objective 0 missed by 0.009 (0.09% of its range 10: within 0.1%), objective 1 by 0.00398
    # of a value 4.4 (0.09% of it): both met; a miss of 0.02 (0.2% of 10) is not.
    pick = aspiration_pick(points, [10.009, 4.42])
    np.testing.assert_array_equal(pick.met, [True, True])
    missed = aspiration_pick(points, [10.02, 4.42])
    np.testing.assert_array_equal(missed.met, [False, True])
    np.testing.assert_allclose(missed.difference, [-0.02, -0.00398], atol=1e-12)


def test_aspiration_pick_never_picks_a_dominated_point() -> None:
    # (2, 2) is dominated by (3, 3) but sits exactly on the aspiration.
    points = [[2.0, 2.0], [3.0, 3.0], [0.0, 4.0]]
    pick = aspiration_pick(points, [2.0, 2.0])
    assert pick.index == 1 and pick.achievement < 0
    np.testing.assert_array_equal(pick.difference, [1.0, 1.0])


def test_aspiration_uses_the_fronts_range_not_raw_units() -> None:
    # Objective 2 spans 100 times objective 1; in raw units (w = 1) the shortfall of 10 in
    # objective 2 would dominate; on the front's ranges both shortfalls weigh the same.
    points = [[0.0, 100.0], [0.5, 80.0], [1.0, 0.0]]
    pick = aspiration_pick(points, [0.6, 90.0], rho=0.0)
    scores = brute_asf(points, [0.6, 90.0], 0.0)
    assert pick.index == first_min(scores) == 1


@FAST
@given(integer_fronts(), st.data())
def test_aspiration_pick_matches_brute_force(points: list[list[int]], data: st.DataObject) -> None:
    k = len(points[0])
    aspiration = data.draw(st.lists(st.integers(-5, 7), min_size=k, max_size=k))
    rho = data.draw(st.sampled_from([0.0, 1e-6, 0.1]))
    floats = [[float(v) for v in row] for row in points]
    pick = aspiration_pick(points, aspiration, rho=rho)
    scores = brute_asf(floats, [float(a) for a in aspiration], rho)
    assert pick.index == first_min(scores)
    assert pick.achievement == pytest.approx(min(scores.values()), abs=1e-9)
    np.testing.assert_allclose(pick.difference, np.subtract(points[pick.index], aspiration))
    assert pick.index in front_rows(floats)


@FAST
@given(integer_fronts(), st.data())
def test_aspiration_pick_ignores_the_scale_of_an_objective(
    points: list[list[int]], data: st.DataObject
) -> None:
    k = len(points[0])
    aspiration = np.array(data.draw(st.lists(st.integers(-5, 7), min_size=k, max_size=k)), float)
    objective = data.draw(st.integers(0, k - 1))
    factor = data.draw(st.sampled_from([0.25, 2.0, 8.0]))  # powers of two: exact
    shift = data.draw(st.integers(-3, 3))
    stretched = np.array(points, dtype=float)
    stretched[:, objective] = stretched[:, objective] * factor + shift
    moved = aspiration.copy()
    moved[objective] = moved[objective] * factor + shift
    assert aspiration_pick(stretched, moved).index == aspiration_pick(points, aspiration).index


# --- knee, compromise, pseudo-weights -----------------------------------------------------


def test_knee_and_compromise_by_hand() -> None:
    # A sharp corner at (0.8, 0.8) between two straight pieces, plus a dominated point and a
    # duplicate of the corner (the first copy is reported).
    points = [[0.0, 1.0], [0.4, 0.9], [0.8, 0.8], [0.9, 0.4], [1.0, 0.0], [0.5, 0.5], [0.8, 0.8]]
    assert knee_point(points) == 2
    assert compromise_point(points) == 2
    assert compromise_point(points, p=1) == 2 and compromise_point(points, p=math.inf) == 2
    marks = decision_marks(points)
    assert marks.compromise == 2
    assert 2 in marks.knees.tolist() and 6 in marks.knees.tolist()


def test_small_fronts_are_well_defined() -> None:
    assert knee_point([[3.0, 1.0]]) == 0
    one = decision_marks([[3.0, 1.0], [3.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(one.pseudo_weights[:2], [[0.5, 0.5], [0.5, 0.5]])
    assert np.isnan(one.pseudo_weights[2]).all() and one.compromise == 0
    assert one.knees.size == 0
    # Two points, two objectives: both sit on the line through the extremes; the first wins.
    assert knee_point([[0.0, 5.0], [1.0, 0.0]]) == 0
    assert decision_marks([[0.0, 5.0], [1.0, 0.0]]).knees.size == 0
    # Three collinear points: no point trades off better than another.
    line = [[0.0, 2.0], [1.0, 1.0], [2.0, 0.0]]
    assert knee_point(line) == 0 and decision_marks(line).knees.size == 0
    for k in range(2, 7):
        eye = np.eye(k)
        assert knee_point(eye) == 0
        assert decision_marks(np.vstack([eye, np.full(k, 0.6)])).compromise == k


@FAST
@given(integer_fronts())
def test_knee_matches_its_documented_definition(points: list[list[int]]) -> None:
    floats = [[float(v) for v in row] for row in points]
    assert knee_point(points) == brute_knee(floats)


@FAST
@given(integer_fronts(), st.sampled_from([1.0, 2.0, 3.0, math.inf]))
def test_compromise_matches_brute_force(points: list[list[int]], p: float) -> None:
    floats = [[float(v) for v in row] for row in points]
    assert compromise_point(points, p=p) == brute_compromise(floats, p)


@FAST
@given(integer_fronts())
def test_pseudo_weights_match_the_formula(points: list[list[int]]) -> None:
    floats = [[float(v) for v in row] for row in points]
    weights = pseudo_weights(points)
    assert weights.shape == (len(points), len(points[0]))
    for row, expected in zip(weights, brute_pseudo_weights(floats), strict=True):
        if expected is None:
            assert np.isnan(row).all()
        else:
            np.testing.assert_allclose(row, expected, atol=1e-12)
            assert row.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(decision_marks(points).pseudo_weights, weights)


def test_pseudo_weights_agree_with_pymoo_on_the_negated_front() -> None:
    from pymoo.mcdm.pseudo_weights import PseudoWeights

    rng = np.random.default_rng(3)
    points = rng.random((40, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)  # all non-dominated
    _, expected = PseudoWeights(np.full(3, 1 / 3)).do(-points, return_pseudo_weights=True)
    np.testing.assert_allclose(pseudo_weights(points), expected, atol=1e-12)


@pytest.mark.parametrize("n_obj", [2, 3, 4, 6])
def test_high_tradeoff_points_agree_with_pymoo(n_obj: int) -> None:
    from pymoo.mcdm.high_tradeoff import HighTradeoffPoints

    rng = np.random.default_rng(n_obj)
    for size in (3, 8, 60, 300):
        points = np.abs(rng.normal(size=(size, n_obj)))
        points /= np.linalg.norm(points, axis=1, keepdims=True) ** rng.uniform(0.5, 2)
        rows = front_rows(points.tolist())
        front = points[rows]
        loss = (front.max(axis=0) - front) / (front.max(axis=0) - front.min(axis=0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = HighTradeoffPoints()(loss)
        expected = sorted(rows[i] for i in ([] if found is None else found))
        assert sorted(decision_marks(points).knees.tolist()) == expected


def test_high_tradeoff_points_on_a_large_front_agree_with_pymoo() -> None:
    # 2,000 points on the unit sphere (all mutually non-dominated) in 6-D; the time it takes is
    # benchmarks/bench_decision.py's to measure.
    from pymoo.mcdm.high_tradeoff import HighTradeoffPoints

    rng = np.random.default_rng(0)
    points = np.abs(rng.normal(size=(2000, 6)))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    loss = (points.max(axis=0) - points) / (points.max(axis=0) - points.min(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = HighTradeoffPoints()(loss)
    assert found is not None and len(found) > 0
    assert sorted(decision_marks(points).knees.tolist()) == sorted(found.tolist())


# --- normalisation -------------------------------------------------------------------------


def test_normalise_modes_by_hand() -> None:
    points = [[1.0, 5.0, 2.0], [3.0, 7.0, 2.0], [2.0, 6.0, 2.0]]
    np.testing.assert_array_equal(normalise(points, "raw"), points)
    np.testing.assert_allclose(
        normalise(points, "min-max"), [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.5, 0.0]]
    )
    # reference (0, 5, 3): 0 there, 1 at the best; objective 3's best (2) is below r: 0.
    np.testing.assert_allclose(
        normalise(points, "reference", reference_point=[0.0, 5.0, 3.0]),
        [[1 / 3, 0.0, 0.0], [1.0, 1.0, 0.0], [2 / 3, 0.5, 0.0]],
    )
    assert normalise(np.zeros((0, 3)), "min-max").shape == (0, 3)
    assert NORMALISATIONS == ("raw", "min-max", "reference")


def test_normalise_rejects_bad_modes_and_missing_reference() -> None:
    with pytest.raises(ParetoscopeError, match="raw, min-max, reference"):
        normalise([[1.0, 2.0]], "zscore")
    with pytest.raises(ParetoscopeError, match="reference_point"):
        normalise([[1.0, 2.0]], "reference")
    with pytest.raises(ParetoscopeError, match="reference_point"):
        normalise([[1.0, 2.0]], "reference", reference_point=[0.0])


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "points",
    [
        [],
        np.zeros((0, 2)),
        [1.0, 2.0],
        [[1.0, np.nan]],
        [[np.inf, 0.0], [0.0, 1.0]],
        [[1.0, 2.0], [3.0]],
        "abc",
        np.zeros((2, 2, 2)),
    ],
)
def test_bad_points_raise_a_paretoscope_error(points: object) -> None:
    for function in (knee_point, pseudo_weights, compromise_point, decision_marks):
        with pytest.raises(ParetoscopeError, match="points"):
            function(points)  # type: ignore[operator]
    with pytest.raises(ParetoscopeError, match="points"):
        aspiration_pick(points, [0.0, 0.0])


def test_bad_arguments_raise_a_paretoscope_error() -> None:
    points = [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(ParetoscopeError, match="aspiration"):
        aspiration_pick(points, [1.0])
    with pytest.raises(ParetoscopeError, match="aspiration"):
        aspiration_pick(points, [1.0, math.nan])
    with pytest.raises(ParetoscopeError, match="rho"):
        aspiration_pick(points, [1.0, 1.0], rho=-1.0)
    with pytest.raises(ParetoscopeError, match="p: expected"):
        compromise_point(points, p=0.5)
