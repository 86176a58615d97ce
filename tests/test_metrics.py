"""Pareto metrics checked against brute-force definitions written here, independently.

Each reference below is the textbook definition in plain Python loops (O(n^2) dominance,
inclusion-exclusion and grid counting for hypervolume, sorted gaps for sparsity), never a call
into paretoscope.metrics or moocore. Random sets use small integers so ties and duplicates occur.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paretoscope.metrics.dominance as dominance_module
import paretoscope.metrics.utility as utility_module
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import (
    cardinality,
    dominated_region,
    dominated_staircase,
    expected_utility,
    front_summary,
    hypervolume,
    igd,
    igd_plus,
    largest_gap,
    maximum_utility_loss,
    non_dominated,
    non_dominated_by_margin,
    pareto_front,
    preference_grid,
    random_preferences,
    rtg_following,
    sparsity,
)
from tests.polygons import polygon_area

FAST = settings(max_examples=40, deadline=None)

# ---------------------------------------------------------------- brute-force definitions


def dominates(q, p) -> bool:
    """q dominates p for maximisation."""
    pairs = list(zip(q, p, strict=True))
    return all(a >= b for a, b in pairs) and any(a > b for a, b in pairs)


def handicapped(q, tolerance):
    """The documented handicap: PEDA's q*(1-t) for q >= 0, q*(1+t) below 0."""
    return [v * (1 - tolerance) if v >= 0 else v * (1 + tolerance) for v in q]


def brute_non_dominated(points, tolerance=0.0) -> list[bool]:
    rows = [list(map(float, p)) for p in points]
    return [
        not any(dominates(handicapped(q, tolerance), p) for j, q in enumerate(rows) if j != i)
        for i, p in enumerate(rows)
    ]


def brute_front(points) -> set[tuple[float, ...]]:
    mask = brute_non_dominated(points)
    return {tuple(map(float, p)) for p, keep in zip(points, mask, strict=True) if keep}


def inclusion_exclusion_hypervolume(points, reference) -> float:
    """Volume of the union of boxes [reference, p] by inclusion-exclusion (small sets only)."""
    total = 0.0
    rows = [list(map(float, p)) for p in points]
    for size in range(1, len(rows) + 1):
        for subset in itertools.combinations(rows, size):
            corner = [min(p[k] for p in subset) for k in range(len(reference))]
            volume = math.prod(max(0.0, c - r) for c, r in zip(corner, reference, strict=True))
            total += (-1) ** (size + 1) * volume
    return total


def grid_count_hypervolume(points, reference) -> int:
    """Number of unit cells above an integer reference whose top corner some point reaches."""
    top = [int(max(p[k] for p in points)) for k in range(len(reference))]
    count = 0
    for cell in itertools.product(*[range(int(r), t) for r, t in zip(reference, top, strict=True)]):
        upper = [c + 1 for c in cell]
        if any(all(p[k] >= upper[k] for k in range(len(upper))) for p in points):
            count += 1
    return count


def brute_sparsity(points) -> float:
    front = sorted(brute_front(points))
    if len(front) < 2:
        return 0.0
    total = 0.0
    for k in range(len(front[0])):
        values = sorted(p[k] for p in front)
        total += sum((b - a) ** 2 for a, b in zip(values, values[1:], strict=False))
    return total / (len(front) - 1)


def best_utility(points, weight) -> float:
    return max(sum(w * v for w, v in zip(weight, p, strict=True)) for p in points)


def brute_igd(points, reference, plus=False) -> float:
    def distance(r, a):
        if plus:
            return math.sqrt(sum(max(ri - ai, 0.0) ** 2 for ri, ai in zip(r, a, strict=True)))
        return math.dist(r, a)

    return sum(min(distance(r, a) for a in points) for r in reference) / len(reference)


# ---------------------------------------------------------------- strategies


def point_sets(n_obj: int, min_size: int = 0, max_size: int = 8, low: int = -3, high: int = 6):
    """Lists of integer-valued points (ties and duplicates are likely)."""
    coordinate = st.integers(low, high).map(float)
    return st.lists(
        st.lists(coordinate, min_size=n_obj, max_size=n_obj), min_size=min_size, max_size=max_size
    )


def as_array(points, n_obj):
    return np.array(points, dtype=float).reshape(len(points), n_obj)


# ---------------------------------------------------------------- dominance


def test_non_dominated_hand_example():
    points = [[1, 2], [2, 1], [0.5, 0.5], [1, 2], [2, 0]]
    # (1,2) twice: equal points do not dominate each other; (2,0) is dominated by (2,1).
    assert non_dominated(points).tolist() == [True, True, False, True, False]


@FAST
@given(st.integers(1, 4).flatmap(lambda n: point_sets(n, max_size=10)))
def test_non_dominated_matches_brute_force(points):
    n_obj = len(points[0]) if points else 2
    assert non_dominated(as_array(points, n_obj)).tolist() == brute_non_dominated(points)


@FAST
@given(
    st.integers(2, 4).flatmap(lambda n: point_sets(n, max_size=10, low=-30, high=60)),
    # 0.5 and 0.25 are exact in binary, so handicapped points often tie with others exactly.
    st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.3, 0.5]),
)
def test_tolerant_non_dominated_matches_brute_force(points, tolerance):
    n_obj = len(points[0]) if points else 2
    mask = non_dominated(as_array(points, n_obj), tolerance=tolerance)
    assert mask.tolist() == brute_non_dominated(points, tolerance)


def test_tolerance_keeps_near_front_points_like_peda():
    # (95, 96) is within 5% of (100, 100): PEDA keeps it; (90, 90) is not.
    points = [[100.0, 100.0], [95.0, 96.0], [90.0, 90.0]]
    assert non_dominated(points).tolist() == [True, False, False]
    assert non_dominated(points, tolerance=0.05).tolist() == [True, True, False]


def test_tolerance_is_a_handicap_for_negative_values_too():
    # q = (-100, 10) handicapped by 5% is (-105, 9.5), which no longer reaches p's -104.
    # (PEDA's q * 0.95 = (-95, 9.5) would instead make q stronger and drop p.)
    points = [[-100.0, 10.0], [-104.0, 9.4]]
    assert non_dominated(points).tolist() == [True, False]
    assert non_dominated(points, tolerance=0.05).tolist() == [True, True]


@pytest.mark.parametrize(
    "points, expected",
    [
        # The handicapped (20, 40) is (10, 20): equal to p, so it does not dominate p.
        ([[20.0, 40.0], [10.0, 20.0], [10.0, 19.0], [9.0, 20.0], [10.0, 21.0]], [1, 1, 0, 0, 1]),
        ([[20.0, 40.0, 60.0], [10.0, 20.0, 30.0], [10.0, 20.0, 29.0]], [1, 1, 0]),
    ],
)
def test_tolerant_dominance_at_exact_ties(points, expected):
    assert brute_non_dominated(points, 0.5) == [bool(e) for e in expected]
    assert non_dominated(points, tolerance=0.5).tolist() == [bool(e) for e in expected]


def test_tolerant_check_in_many_blocks(monkeypatch):
    # 4 objectives take the blockwise path; make the blocks tiny.
    monkeypatch.setattr(dominance_module, "_BLOCK_ELEMENTS", 7)
    rng = np.random.default_rng(3)
    points = rng.integers(-5, 20, size=(40, 4)).astype(float)
    expected = brute_non_dominated(points.tolist(), 0.1)
    assert non_dominated(points, tolerance=0.1).tolist() == expected


@pytest.mark.parametrize("n_obj", [2, 3])
@pytest.mark.parametrize("tolerance", [0.1, 0.5])
def test_tolerant_sweep_on_larger_sets_with_ties(n_obj, tolerance):
    # Points on and under an integer plane: wide fronts, many exact ties after the handicap.
    rng = np.random.default_rng(n_obj)
    points = rng.integers(0, 12, size=(150, n_obj)).astype(float)
    points[:50] = np.abs(points[:50] - points[:50].mean(axis=1, keepdims=True)).round() * 2
    points[50:60] *= -1
    expected = brute_non_dominated(points.tolist(), tolerance)
    assert non_dominated(points, tolerance=tolerance).tolist() == expected


@FAST
@given(st.integers(1, 3).flatmap(lambda n: point_sets(n, max_size=10)))
def test_pareto_front_is_the_distinct_non_dominated_set(points):
    n_obj = len(points[0]) if points else 2
    front = pareto_front(as_array(points, n_obj))
    assert {tuple(row) for row in front.tolist()} == brute_front(points)
    assert len(front) == len(brute_front(points)) == cardinality(as_array(points, n_obj))


# ---------------------------------------------------------------- hypervolume


def test_hypervolume_hand_examples():
    # Staircase (1,3), (2,2), (3,1) over the origin: 3 + 2 + 1 = 6 unit cells.
    assert hypervolume([[1, 3], [2, 2], [3, 1]], [0, 0]) == pytest.approx(6.0)
    # A single box.
    assert hypervolume([[2, 3, 4]], [0, 0, 0]) == pytest.approx(24.0)
    # Reference moved: box from (1, -1) to (2, 3).
    assert hypervolume([[2, 3]], [1, -1]) == pytest.approx(4.0)


def test_points_not_strictly_above_the_reference_contribute_nothing():
    assert hypervolume([[1, 2], [-1, 5], [3, 0]], [0, 0]) == pytest.approx(2.0)
    assert hypervolume([[-1, 5], [3, 0]], [0, 0]) == 0.0


@FAST
@given(st.integers(1, 4).flatmap(lambda n: point_sets(n, max_size=7)))
def test_hypervolume_matches_inclusion_exclusion(points):
    n_obj = len(points[0]) if points else 3
    reference = [-1.0] * n_obj
    expected = inclusion_exclusion_hypervolume(points, reference) if points else 0.0
    assert hypervolume(as_array(points, n_obj), reference) == pytest.approx(expected, abs=1e-9)


@FAST
@given(st.integers(2, 3).flatmap(lambda n: point_sets(n, min_size=1, max_size=12, low=-2)))
def test_hypervolume_matches_grid_counting(points):
    n_obj = len(points[0])
    reference = [0.0] * n_obj
    expected = grid_count_hypervolume(points, reference)
    assert hypervolume(points, reference) == pytest.approx(expected)


# ---------------------------------------------------------------- the dominated region


def test_dominated_region_hand_example():
    # Staircase (3,1), (2,2), (1,3) over the origin, (1.5,1.5) dominated: walked with x
    # descending from (3, 0), closed at the start; 3 + 2 + 1 = 6 unit cells.
    region = dominated_region(np.array([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0], [1.5, 1.5]]), (0, 0))
    np.testing.assert_array_equal(
        region, [[3, 0], [3, 1], [2, 1], [2, 2], [1, 2], [1, 3], [0, 3], [0, 0], [3, 0]]
    )
    assert polygon_area(region) == pytest.approx(6.0)


@pytest.mark.parametrize("seed", range(5))
def test_dominated_region_area_is_the_hypervolume(seed: int) -> None:
    rng = np.random.default_rng(seed)
    points = rng.uniform(-2, 10, size=(25, 2))
    reference = (0.5, -1.0)
    region = dominated_region(points, reference)
    assert polygon_area(region) == pytest.approx(hypervolume(points, reference), rel=1e-9)
    assert dominated_region(np.array([[-5.0, -5.0]]), (0.0, 0.0)).shape == (0, 2)


def test_staircase_bounds_the_dominated_region() -> None:
    line = dominated_staircase(
        np.array([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0], [1.5, 1.5]]), (0.0, 0.0)
    )
    np.testing.assert_array_equal(line, [[0, 3], [1, 3], [1, 2], [2, 2], [2, 1], [3, 1], [3, 0]])
    assert len(dominated_staircase(np.zeros((0, 2)), (0.0, 0.0))) == 0


# ---------------------------------------------------------------- properties


def dominated_copy(data, points):
    """A point dominated by one of `points`: subtract a non-negative, non-zero offset."""
    source = data.draw(st.sampled_from(points))
    offset = data.draw(
        st.lists(st.integers(0, 3), min_size=len(source), max_size=len(source)).filter(any)
    )
    return [v - o for v, o in zip(source, offset, strict=True)]


@FAST
@given(st.integers(2, 3).flatmap(lambda n: point_sets(n, min_size=1)), st.data())
def test_adding_a_dominated_point_changes_nothing(points, data):
    extra = dominated_copy(data, points)
    n_obj = len(points[0])
    before, after = as_array(points, n_obj), as_array([*points, extra], n_obj)
    reference = [-4.0] * n_obj
    weights = preference_grid(n_obj, 4)
    assert hypervolume(after, reference) == pytest.approx(hypervolume(before, reference))
    assert cardinality(after) == cardinality(before)
    assert sparsity(after) == pytest.approx(sparsity(before))
    assert expected_utility(after, weights) == pytest.approx(expected_utility(before, weights))
    assert np.array_equal(pareto_front(after), pareto_front(before))
    mask = non_dominated(after)
    assert not mask[-1]
    assert np.array_equal(mask[:-1], non_dominated(before))


@FAST
@given(
    st.integers(2, 3).flatmap(lambda n: point_sets(n, max_size=8)),
    st.lists(st.integers(-3, 8).map(float), min_size=3, max_size=3),
)
def test_adding_a_point_never_lowers_hypervolume(points, extra):
    n_obj = len(points[0]) if points else 3
    extra = extra[:n_obj]
    before = as_array(points, n_obj)
    after = as_array([*points, extra], n_obj)
    reference = [-1.0] * n_obj
    assert hypervolume(after, reference) >= hypervolume(before, reference) - 1e-9
    is_new = tuple(extra) not in {tuple(p) for p in points}
    if is_new and brute_non_dominated([*points, extra])[-1] and all(v > -1 for v in extra):
        # A new non-dominated point above the reference adds volume.
        assert hypervolume(after, reference) > hypervolume(before, reference)


@FAST
@given(st.integers(2, 3).flatmap(lambda n: point_sets(n, min_size=1, max_size=10)), st.randoms())
def test_metrics_are_permutation_invariant(points, random):
    n_obj = len(points[0])
    order = list(range(len(points)))
    random.shuffle(order)
    original = as_array(points, n_obj)
    shuffled = original[order]
    reference = [-4.0] * n_obj
    weights = preference_grid(n_obj, 3)
    target = original[::-1] + 1.0
    assert hypervolume(shuffled, reference) == pytest.approx(hypervolume(original, reference))
    assert sparsity(shuffled) == pytest.approx(sparsity(original))
    assert cardinality(shuffled) == cardinality(original)
    assert expected_utility(shuffled, weights) == pytest.approx(expected_utility(original, weights))
    assert igd(shuffled, target) == pytest.approx(igd(original, target))
    assert igd_plus(shuffled, target) == pytest.approx(igd_plus(original, target))
    assert np.array_equal(non_dominated(shuffled), non_dominated(original)[order])
    for tolerance in (0.05, 0.2):
        assert np.array_equal(
            non_dominated(shuffled, tolerance), non_dominated(original, tolerance)[order]
        )


@FAST
@given(st.integers(2, 3).flatmap(lambda n: point_sets(n, max_size=10)))
def test_tolerant_front_contains_the_strict_front(points):
    n_obj = len(points[0]) if points else 2
    array = as_array(points, n_obj)
    strict = non_dominated(array)
    small, large = non_dominated(array, 0.05), non_dominated(array, 0.3)
    assert np.all(small >= strict) and np.all(large >= small)


# ---------------------------------------------------------------- sparsity, cardinality


def test_sparsity_hand_example():
    # Front (0,3), (1,1), (3,0): each objective has gaps 1 and 2 -> (1+4)*2 / (3-1) = 5.
    # (0,0) is dominated and the duplicate (1,1) counts once.
    points = [[0, 3], [1, 1], [3, 0], [0, 0], [1, 1]]
    assert sparsity(points) == pytest.approx(5.0)
    assert cardinality(points) == 3


def test_sparsity_and_cardinality_of_tiny_sets():
    assert sparsity([]) == 0.0 and cardinality([]) == 0
    assert sparsity([[1.0, 2.0]]) == 0.0 and cardinality([[1.0, 2.0]]) == 1
    assert sparsity([[1.0, 2.0], [1.0, 2.0]]) == 0.0 and cardinality([[1.0, 2.0], [1.0, 2.0]]) == 1


@FAST
@given(st.integers(1, 4).flatmap(lambda n: point_sets(n, max_size=10)))
def test_sparsity_matches_brute_force(points):
    n_obj = len(points[0]) if points else 2
    assert sparsity(as_array(points, n_obj)) == pytest.approx(brute_sparsity(points))


@FAST
@given(st.integers(1, 4).flatmap(lambda n: point_sets(n, max_size=10)))
def test_margin_zero_is_plain_dominance(points):
    n_obj = len(points[0]) if points else 2
    array = as_array(points, n_obj)
    np.testing.assert_array_equal(non_dominated_by_margin(array, 0.0), non_dominated(array))


@FAST
@given(point_sets(2, min_size=1, max_size=10), st.floats(0.0, 0.5))
def test_a_margin_keeps_at_least_one_point_and_drops_only_by_its_rule(points, margin):
    array = as_array(points, 2)
    kept = non_dominated_by_margin(array, margin)
    assert kept.any()
    slack = margin * (array.max(axis=0) - array.min(axis=0))
    for i, p in enumerate(array):
        beaten = any(
            (q >= p - slack).all() and (q > p + slack).any() for j, q in enumerate(array) if j != i
        )
        assert kept[i] == (not beaten)


def test_a_margin_calls_a_near_tie_a_tie():
    # (100, 50) and (99.5, 80) with ranges 100 and 50: plain dominance keeps both; a margin of
    # 1% (1 and 0.5) makes 99.5 as good as 100, and 80 > 50.5 decides.
    points = [[0.0, 100.0], [100.0, 50.0], [99.5, 80.0]]
    assert non_dominated_by_margin(points, 0.0).tolist() == [True, True, True]
    assert non_dominated_by_margin(points, 0.01).tolist() == [True, False, True]
    with pytest.raises(ParetoscopeError, match="margin"):
        non_dominated_by_margin(points, 1.0)
    with pytest.raises(ParetoscopeError, match="margin"):
        non_dominated_by_margin(points, True)


def test_largest_gap_hand_example():
    # Front (0, 4), (1, 3), (4, 0); (0, 0) dominated, (1, 3) twice. Ranges 4 and 4, so the
    # scaled front is (0, 1), (0.25, 0.75), (1, 0): gaps sqrt(2)/4 and sqrt(2)*0.75.
    points = [[0, 4], [1, 3], [4, 0], [0, 0], [1, 3]]
    assert largest_gap(points) == pytest.approx(0.75 * math.sqrt(2))
    # Each objective scaled by its own range: doubling one objective changes nothing.
    assert largest_gap(np.asarray(points, dtype=float) * [1, 2]) == pytest.approx(
        0.75 * math.sqrt(2)
    )


def test_largest_gap_of_tiny_and_flat_sets_and_other_objective_counts():
    assert largest_gap([]) == 0.0 and largest_gap([[1.0, 2.0], [1.0, 2.0]]) == 0.0
    # Evenly spaced points on a line: every gap is the same, 1/(n-1) of the diagonal.
    line = [[i, 10 - i] for i in range(11)]
    assert largest_gap(line) == pytest.approx(math.sqrt(2) / 10)
    with pytest.raises(ParetoscopeError, match="two objectives"):
        largest_gap([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])


@FAST
@given(point_sets(2, max_size=10))
def test_largest_gap_matches_brute_force(points):
    front = [p for p in points if not any(dominates(q, p) for q in points)]
    front = sorted(set(map(tuple, front)))
    expected = 0.0
    if len(front) >= 2:
        low = [min(p[k] for p in front) for k in range(2)]
        span = [max(p[k] for p in front) - low[k] or 1.0 for k in range(2)]
        scaled = [[(p[k] - low[k]) / span[k] for k in range(2)] for p in front]
        expected = max(math.dist(a, b) for a, b in itertools.pairwise(scaled))
    assert largest_gap(as_array(points, 2)) == pytest.approx(expected)


# ---------------------------------------------------------------- utilities and distances


def test_expected_utility_hand_example():
    points = [[4.0, 0.0], [0.0, 4.0], [3.0, 3.0]]
    weights = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    # Best utilities 4, 3, 4.
    assert expected_utility(points, weights) == pytest.approx(11 / 3)


@FAST
@given(
    st.integers(2, 3).flatmap(
        lambda n: st.tuples(point_sets(n, min_size=1), point_sets(n, min_size=1))
    ),
    st.integers(1, 5),
)
def test_utilities_and_distances_match_brute_force(sets, granularity):
    points, reference = sets
    n_obj = len(points[0])
    weights = preference_grid(n_obj, granularity)
    expected_eum = sum(best_utility(points, w) for w in weights.tolist()) / len(weights)
    expected_mul = max(
        best_utility(reference, w) - best_utility(points, w) for w in weights.tolist()
    )
    assert expected_utility(points, weights) == pytest.approx(expected_eum)
    assert maximum_utility_loss(points, reference, weights) == pytest.approx(expected_mul)
    assert igd(points, reference) == pytest.approx(brute_igd(points, reference))
    assert igd_plus(points, reference) == pytest.approx(brute_igd(points, reference, plus=True))


def test_utilities_in_many_blocks(monkeypatch):
    monkeypatch.setattr(utility_module, "_BLOCK_ELEMENTS", 5)
    rng = np.random.default_rng(7)
    points = rng.normal(size=(12, 3))
    weights = random_preferences(3, 9, seed=1)
    expected = np.mean([best_utility(points.tolist(), w) for w in weights.tolist()])
    assert expected_utility(points, weights) == pytest.approx(expected)


def test_front_equal_to_reference_loses_nothing():
    front = [[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]]
    weights = preference_grid(2, 10)
    assert maximum_utility_loss(front, front, weights) == pytest.approx(0.0)
    assert igd(front, front) == pytest.approx(0.0)
    assert igd_plus([[5.0, 5.0]], front) == 0.0  # dominates every reference point
    # Plain IGD still counts the distance: the reference points are √20, √18, √20 away.
    assert igd([[5.0, 5.0]], front) == pytest.approx((2 * math.sqrt(20) + math.sqrt(18)) / 3)


def test_front_summary_agrees_with_the_single_metrics():
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 10, size=(30, 2))
    weights = preference_grid(2, 8)
    summary = front_summary(points, [0.0, 0.0], weights)
    assert summary.hypervolume == pytest.approx(hypervolume(points, [0.0, 0.0]))
    assert summary.sparsity == pytest.approx(sparsity(points))
    assert summary.cardinality == cardinality(points)
    assert summary.expected_utility == pytest.approx(expected_utility(points, weights))
    assert front_summary(points, [0.0, 0.0]).expected_utility is None


def test_front_summary_of_an_empty_set():
    summary = front_summary(np.zeros((0, 2)), [0.0, 0.0], preference_grid(2, 2))
    assert (summary.hypervolume, summary.sparsity, summary.cardinality) == (0.0, 0.0, 0)
    assert summary.expected_utility is not None and math.isnan(summary.expected_utility)


# ---------------------------------------------------------------- preference vectors


@pytest.mark.parametrize("n_obj, granularity", [(1, 3), (2, 1), (2, 10), (3, 4), (4, 3)])
def test_preference_grid_is_every_simplex_point(n_obj, granularity):
    grid = preference_grid(n_obj, granularity)
    brute = [
        tuple(c / granularity for c in counts)
        for counts in itertools.product(range(granularity + 1), repeat=n_obj)
        if sum(counts) == granularity
    ]
    assert grid.shape == (len(brute), n_obj)
    assert [tuple(row) for row in grid.tolist()] == sorted(brute)  # lexicographic order
    assert np.allclose(grid.sum(axis=1), 1.0)


def test_preference_grid_sizes():
    assert len(preference_grid(2, 10)) == 11
    assert len(preference_grid(3, 10)) == 11 * 12 // 2
    assert preference_grid(2, 2).tolist() == [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]


def test_random_preferences_are_uniform_on_the_simplex():
    draws = random_preferences(3, 20_000, seed=11)
    assert draws.shape == (20_000, 3)
    assert np.all(draws >= 0) and np.allclose(draws.sum(axis=1), 1.0)
    # Flat Dirichlet: each coordinate ~ Beta(1, 2), mean 1/3, P(x > 1/2) = 1/4.
    assert np.allclose(draws.mean(axis=0), 1 / 3, atol=0.01)
    assert np.allclose((draws > 0.5).mean(axis=0), 0.25, atol=0.015)
    assert np.array_equal(random_preferences(3, 5, seed=4), random_preferences(3, 5, seed=4))
    assert not np.array_equal(random_preferences(3, 5, seed=4), random_preferences(3, 5, seed=5))
    assert random_preferences(2, 0, seed=1).shape == (0, 2)


# ---------------------------------------------------------------- RTG following


def test_rtg_following_hand_example():
    targets = [[10.0, 20.0], [8.0, 4.0]]
    preferences = [[0.5, 0.5], [1.0, 0.0]]
    returns = [[6.0, 14.0], [10.0, 3.0]]
    result = rtg_following(targets, preferences, returns)
    # Weighted targets (5, 10), (8, 0); weighted returns (3, 7), (10, 0).
    assert result.weighted_error.tolist() == [[2.0, 3.0], [2.0, 0.0]]
    rel = result.relative_weighted_error
    assert rel[0].tolist() == pytest.approx([0.4, 0.3]) and rel[1, 0] == pytest.approx(0.25)
    assert math.isnan(rel[1, 1])  # objective 2 was not asked for: no relative error
    # Ratios (0.3, 0.7) and (10/13, 3/13) against preferences (0.5, 0.5) and (1, 0).
    assert result.ratio_error[0].tolist() == pytest.approx([0.2, 0.2])
    assert result.ratio_error[1].tolist() == pytest.approx([3 / 13, 3 / 13])
    assert result.mean_weighted_error.tolist() == pytest.approx([2.0, 1.5])
    assert result.mean_relative_weighted_error.tolist() == pytest.approx([0.325, 0.3])
    assert result.overall_weighted_error == pytest.approx(7 / 4)
    assert result.overall_relative_weighted_error == pytest.approx((0.4 + 0.3 + 0.25) / 3)
    assert result.overall_ratio_error == pytest.approx((0.4 + 6 / 13) / 4)


def test_rtg_following_ratio_undefined_for_negative_or_zero_returns():
    targets = [[1.0, 1.0]] * 3
    preferences = [[0.5, 0.5]] * 3
    returns = [[2.0, -1.0], [0.0, 0.0], [1.0, 3.0]]
    result = rtg_following(targets, preferences, returns)
    assert np.isnan(result.return_ratio[:2]).all()
    assert result.return_ratio[2].tolist() == pytest.approx([0.25, 0.75])
    assert result.mean_ratio_error.tolist() == pytest.approx([0.25, 0.25])
    all_negative = rtg_following([[1.0, 1.0]], [[0.5, 0.5]], [[-1.0, -2.0]])
    assert math.isnan(all_negative.overall_ratio_error)
    assert np.isnan(all_negative.mean_ratio_error).all()


def test_perfect_following_scores_zero():
    preferences = preference_grid(3, 4)
    targets = preferences * 1000.0 + 1.0
    result = rtg_following(targets, preferences, targets)
    assert result.overall_weighted_error == 0.0
    assert result.overall_relative_weighted_error == 0.0


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: non_dominated([[1.0, np.nan]]), "points"),
        (lambda: non_dominated([[1.0, np.inf]]), "points"),
        (lambda: non_dominated([1.0, 2.0]), "points"),
        (lambda: non_dominated(np.zeros((2, 2, 2))), "points"),
        (lambda: non_dominated([[1.0, 2.0], [3.0]]), "points"),
        (lambda: non_dominated([["a", "b"]]), "points"),
        (lambda: non_dominated(np.zeros((3, 0))), "points"),
        (lambda: non_dominated([[1.0, 2.0]], tolerance=1.0), "tolerance"),
        (lambda: non_dominated([[1.0, 2.0]], tolerance=-0.1), "tolerance"),
        (lambda: non_dominated([[1.0, 2.0]], tolerance=np.nan), "tolerance"),
        (lambda: non_dominated([[1.0, 2.0]], tolerance="0.05"), "tolerance"),
        (lambda: hypervolume([[1.0, 2.0]], [0.0, 0.0, 0.0]), "points"),
        (lambda: hypervolume([[1.0, 2.0]], [0.0]), "points"),
        (lambda: hypervolume([[1.0, 2.0]], [[0.0, 0.0]]), "reference_point"),
        (lambda: hypervolume([[1.0, 2.0]], [0.0, np.nan]), "reference_point"),
        (lambda: hypervolume([[1.0, 2.0]], []), "reference_point"),
        (lambda: hypervolume([[1.0, np.nan]], [0.0, 0.0]), "points"),
        (lambda: expected_utility([], [[0.5, 0.5]]), "points"),
        (lambda: expected_utility([[1.0, 2.0]], []), "weights"),
        (lambda: expected_utility([[1.0, 2.0]], [[1.5, -0.5]]), "weights"),
        (lambda: expected_utility([[1.0, 2.0]], [[1.0, 0.0, 0.0]]), "weights"),
        (lambda: maximum_utility_loss([], [[1.0, 2.0]], [[1.0, 0.0]]), "points"),
        (lambda: maximum_utility_loss([[1.0, 2.0]], [], [[1.0, 0.0]]), "reference_front"),
        (lambda: igd([], [[1.0, 2.0]]), "points"),
        (lambda: igd_plus([[1.0, 2.0]], []), "reference_front"),
        (lambda: igd([[1.0, 2.0]], [[1.0, 2.0, 3.0]]), "reference_front"),
        (lambda: front_summary([[1.0, 2.0]], [0.0, 0.0], [[-1.0, 2.0]]), "weights"),
        (lambda: preference_grid(0, 3), "n_obj"),
        (lambda: preference_grid(2, 0), "granularity"),
        (lambda: preference_grid(2, 2.5), "granularity"),
        (lambda: preference_grid(2, True), "granularity"),
        (lambda: preference_grid(12, 100), "granularity"),
        (lambda: random_preferences(2, -1), "count"),
        (lambda: random_preferences(0, 3), "n_obj"),
        (lambda: rtg_following([], [], []), "targets"),
        (lambda: rtg_following([[1.0, 1.0]], [[0.5, 0.5]], [[1.0, 1.0, 1.0]]), "returns"),
        (lambda: rtg_following([[1.0, 1.0]] * 2, [[0.5, 0.5]], [[1.0, 1.0]] * 2), "preferences"),
        (lambda: rtg_following([[1.0, 1.0]], [[0.7, 0.7]], [[1.0, 1.0]]), "preferences"),
        (lambda: rtg_following([[1.0, 1.0]], [[1.5, -0.5]], [[1.0, 1.0]]), "preferences"),
        (lambda: rtg_following([[1.0, 1.0]], [[0.5, 0.5]], [[np.nan, 1.0]]), "returns"),
    ],
)
def test_bad_input_raises_the_project_error_naming_the_argument(call, argument):
    with pytest.raises(ParetoscopeError, match=argument):
        call()


def test_empty_sets_give_documented_values():
    assert non_dominated([]).shape == (0,)
    assert non_dominated(np.zeros((0, 3)), tolerance=0.05).shape == (0,)
    assert pareto_front(np.zeros((0, 3))).shape == (0, 3)
    assert hypervolume([], [0.0, 0.0]) == 0.0
    assert hypervolume(np.zeros((0, 2)), [0.0, 0.0]) == 0.0
    assert cardinality(np.zeros((0, 2))) == 0
    assert sparsity(np.zeros((0, 2))) == 0.0
