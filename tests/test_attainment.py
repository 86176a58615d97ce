"""Attainment surfaces and EAF differences against moocore's documented outputs on its shipped
data and against the definitions, counted by brute force."""

from __future__ import annotations

import moocore
import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import attainment_surfaces, eaf_difference

# moocore.eaf's docstring: input1.dat (10 runs, minimised) at percentiles 0 and 100.
INPUT1_BEST = [
    [0.17470556, 8.89066343],
    [0.20816431, 4.62275469],
    [0.22997367, 1.11772205],
    [0.58799475, 0.73891181],
    [1.54506255, 0.38303122],
    [8.57911868, 0.35169752],
]
INPUT1_MEDIAN_HEAD = [[0.53173087, 9.73244829], [0.62230271, 9.02211752]]
INPUT1_WORST = [
    [1.13096306, 9.72645436],
    [2.71891214, 8.84691923],
    [3.34035397, 7.49376946],
    [4.43498452, 6.94327481],
    [4.96525837, 6.20957074],
    [7.92511295, 3.92669598],
]


def attained_by(points: np.ndarray, runs: np.ndarray, z: np.ndarray) -> int:
    """How many runs have a point weakly dominating z (>= in every objective)."""
    return len({run for point, run in zip(points, runs, strict=True) if np.all(point >= z)})


def dominated_by_surface(surface: np.ndarray, z: np.ndarray) -> bool:
    return any(np.all(point >= z) for point in surface)


def random_runs(rng: np.random.Generator, runs: int, size: int, n_obj: int = 2):  # noqa: ANN201
    points, ids = [], []
    for run in range(runs):
        angle = rng.uniform(0.0, np.pi / 2, size=(size, n_obj - 1))
        radius = rng.uniform(0.6, 1.0, size=(size, 1))
        if n_obj == 2:
            cloud = radius * np.column_stack([np.cos(angle[:, 0]), np.sin(angle[:, 0])])
        else:
            cloud = radius * rng.dirichlet(np.ones(n_obj), size=size)
        points.append(np.round(cloud * 10, 1))  # ties between runs on purpose
        ids += [run * 7 + 3] * size  # ids need not be 0..n-1
    return np.vstack(points), np.asarray(ids)


def test_surfaces_match_moocores_documented_output() -> None:
    data = moocore.get_dataset("input1.dat")
    surfaces = attainment_surfaces(-data[:, :-1], data[:, -1])
    assert surfaces.runs == 10 and surfaces.levels == ("best", "median", "worst")

    def as_minimised(level: str) -> np.ndarray:
        minimised = -surfaces.surfaces[level]
        return minimised[np.argsort(minimised[:, 0])]

    np.testing.assert_allclose(as_minimised("best"), INPUT1_BEST, rtol=1e-7)
    np.testing.assert_allclose(as_minimised("worst"), INPUT1_WORST, rtol=1e-7)
    median = as_minimised("median")
    assert len(median) == 15  # the docstring's percentile-50 rows
    np.testing.assert_allclose(median[:2], INPUT1_MEDIAN_HEAD, rtol=1e-7)


@pytest.mark.parametrize(("runs", "n_obj"), [(1, 2), (4, 2), (5, 2), (3, 3)])
def test_surfaces_follow_the_definition(runs: int, n_obj: int) -> None:
    rng = np.random.default_rng(runs * 10 + n_obj)
    points, ids = random_runs(rng, runs, 8, n_obj)
    order = rng.permutation(len(points))  # runs interleaved: the function groups them
    points, ids = points[order], ids[order]
    result = attainment_surfaces(points, ids)
    assert result.runs == runs
    wanted = {"best": 1, "median": (runs + 1) // 2, "worst": runs}
    low, high = points.min(axis=0) - 1.0, points.max(axis=0) + 1.0
    samples = rng.uniform(low, high, size=(300, n_obj))
    for level, count in wanted.items():
        surface = result.surfaces[level]
        assert surface.shape[1] == n_obj and len(surface) > 0
        for point in surface:
            assert attained_by(points, ids, point) >= count
            for axis in range(n_obj):  # just beyond, in any one objective: not attained
                beyond = point.copy()
                beyond[axis] += 1e-6
                assert attained_by(points, ids, beyond) < count
        for z in samples:
            assert (attained_by(points, ids, z) >= count) == dominated_by_surface(surface, z)


def test_one_run_gives_its_own_front_at_every_level() -> None:
    points = np.array([[1.0, 3.0], [2.0, 2.0], [1.5, 1.5], [3.0, 1.0]])
    result = attainment_surfaces(points, [0, 0, 0, 0])
    for level in result.levels:
        np.testing.assert_array_equal(result.surfaces[level], [[1, 3], [2, 2], [3, 1]])


def test_eaf_difference_matches_moocores_documented_example() -> None:
    # moocore.eafdiff's docstring (minimised), three runs a side.
    a = np.array([[3, 2, 1], [2, 3, 1], [2.5, 1, 2], [1, 2, 2], [1, 2, 3]], dtype=float)
    b = np.array(
        [[4, 2.5, 1], [3, 3, 1], [2.5, 3.5, 1], [3, 3, 2], [2.5, 3.5, 2], [2, 1, 3]], dtype=float
    )
    result = eaf_difference(-a[:, :2], a[:, 2], -b[:, :2], b[:, 2])
    assert result.runs == 3
    # The docstring's one rectangle in favour of y: [2, 2.5] x [1, 2] with -1 (of 3 runs).
    np.testing.assert_allclose(result.b_better, [[-2.5, -2.0, -2.0, -1.0, 1 / 3]])
    expected_a = {
        (-2.0, -np.inf, -1.0, -2.0, 2 / 3),
        (-3.0, -3.0, -2.0, -2.0, 1 / 3),
        (-2.5, -np.inf, -2.0, -3.5, 2 / 3),
        (-3.0, -3.5, -2.0, -3.0, 2 / 3),
        (-4.0, -3.0, -3.0, -2.5, 2 / 3),
        (-np.inf, -2.5, -3.0, -2.0, 2 / 3),
        (-np.inf, -3.0, -4.0, -2.5, 1 / 3),
    }
    got = {tuple(np.round(row, 9)) for row in result.a_better}
    assert got == {tuple(np.round(row, 9)) for row in expected_a}


@pytest.mark.parametrize("runs", [1, 3, 4])
def test_eaf_difference_agrees_with_counting_on_a_grid(runs: int) -> None:
    rng = np.random.default_rng(runs)
    points_a, ids_a = random_runs(rng, runs, 6)
    points_b, ids_b = random_runs(rng, runs, 6)
    points_b[:, 0] += 0.5  # B a little better in the first objective
    result = eaf_difference(points_a, ids_a, points_b, ids_b)
    assert result.runs == runs
    assert (result.a_better[:, 4] > 0).all() and (result.b_better[:, 4] > 0).all()
    every = np.vstack([points_a, points_b])
    # Midpoints between distinct coordinates (and below / above them): never on a box edge.
    axes = []
    for column in every.T:
        values = np.unique(column)
        axes.append(
            np.concatenate([[values[0] - 1], (values[1:] + values[:-1]) / 2, [values[-1] + 1]])
        )
    checked = 0
    for x in axes[0]:
        for y in axes[1]:
            z = np.array([x, y])
            expected = (attained_by(points_a, ids_a, z) - attained_by(points_b, ids_b, z)) / runs
            for boxes, sign in ((result.a_better, 1.0), (result.b_better, -1.0)):
                inside = boxes[
                    (boxes[:, 0] < x) & (x < boxes[:, 2]) & (boxes[:, 1] < y) & (y < boxes[:, 3])
                ]
                if expected * sign > 0:
                    assert len(inside) >= 1, (z, expected)
                    np.testing.assert_allclose(inside[:, 4], abs(expected))
                else:
                    assert len(inside) == 0, (z, expected, inside)
            checked += 1
    assert checked > 100


def test_equal_eafs_have_no_difference() -> None:
    # The same front, and fronts that differ only by a dominated point: attained alike
    # everywhere (moocore itself fails on its empty answer).
    front = np.array([[1.0, -5.0], [2.0, -20.0]])
    with_dominated = np.vstack([front, [[0.0, -10.0]]])
    for other in (front.copy(), with_dominated):
        result = eaf_difference(front, np.zeros(len(front)), other, np.zeros(len(other)))
        assert result.runs == 1
        assert result.a_better.shape == (0, 5) and result.b_better.shape == (0, 5)


def test_bad_input_is_a_paretoscope_error() -> None:
    points = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ParetoscopeError, match="run_ids"):
        attainment_surfaces(points, [0])
    with pytest.raises(ParetoscopeError, match="points.*finite"):
        attainment_surfaces([[1.0, np.nan], [2.0, 1.0]], [0, 1])
    with pytest.raises(ParetoscopeError, match="run ids"):
        attainment_surfaces(points, [0.0, np.nan])
    with pytest.raises(ParetoscopeError, match="2 or 3 objectives"):
        attainment_surfaces(np.ones((2, 4)), [0, 1])
    with pytest.raises(ParetoscopeError, match="points"):
        attainment_surfaces(np.zeros((0, 2)), [])
    three = np.ones((2, 3))
    with pytest.raises(ParetoscopeError, match="points_a.*2 objectives"):
        eaf_difference(three, [0, 1], three, [0, 1])
    with pytest.raises(ParetoscopeError, match="points_b"):
        eaf_difference(points, [0, 1], three, [0, 1])
    with pytest.raises(ParetoscopeError, match="runs_b"):
        eaf_difference(points, [0, 1], points, [0])
    with pytest.raises(ParetoscopeError, match="runs_b: expected as many runs"):
        eaf_difference(points, [0, 1], points, [0, 0])
    with pytest.raises(ParetoscopeError, match="points_b.*finite"):
        eaf_difference(points, [0, 1], [[np.inf, 1.0], [1.0, 1.0]], [0, 1])
