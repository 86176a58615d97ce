"""One algorithm's runs taken together (`paretoscope.runs.seeds`): the spread of their curves
against a step-by-step brute force and MORL-Baselines' own logged values, their final fronts
against the tables W&B wrote, and the attainment of those fronts by definition."""

from __future__ import annotations

import itertools
import statistics

import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import attainment_surfaces
from paretoscope.runs.fronts import StepFront, logged_step_fronts
from paretoscope.runs.run import open_run
from paretoscope.runs.seeds import curve_spread, final_fronts, seed_groups
from tests.test_runs_wandb import _run_folder, _tables_by_wandb_step

MORLB_SEEDS = ("morlb", "morlb-seed1", "morlb-seed2")  # Envelope on deep-sea-treasure, seeds 0-2


def _brute_spread(curves: list[tuple[list[int], list[float]]]) -> dict[int, list[float]]:
    """At each step any run evaluated at (finite), each run's latest finite value so far."""
    steps = sorted(
        {
            s
            for run_steps, values in curves
            for s, v in zip(run_steps, values, strict=True)
            if np.isfinite(v)
        }
    )
    found = {}
    for step in steps:
        latest = []
        for run_steps, values in curves:
            before = [
                (s, v)
                for s, v in zip(run_steps, values, strict=True)
                if s <= step and np.isfinite(v)
            ]
            if before:
                latest.append(max(before, key=lambda pair: pair[0])[1])
        found[step] = latest
    return found


def test_the_spread_is_each_steps_latest_values_median_and_range() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        curves = []
        for _ in range(int(rng.integers(1, 5))):
            steps = sorted(rng.choice(200, size=int(rng.integers(1, 8)), replace=False).tolist())
            values = rng.normal(size=len(steps)).tolist()
            if len(values) > 1 and rng.random() < 0.3:
                values[int(rng.integers(len(values)))] = float("nan")  # not an evaluation
            curves.append((steps[::-1], values[::-1]))  # any order
        if not any(np.isfinite(values).any() for _, values in curves):
            continue
        spread = curve_spread(curves)
        expected = _brute_spread(curves)
        assert spread.steps.tolist() == list(expected)
        for index, latest in enumerate(expected.values()):
            assert spread.median[index] == pytest.approx(statistics.median(latest))
            assert spread.low[index] == min(latest)
            assert spread.high[index] == max(latest)
            assert spread.runs[index] == len(latest)


def test_a_spread_by_hand() -> None:
    spread = curve_spread([([0, 10, 20], [1.0, 2.0, 3.0]), ([5, 20], [10.0, 0.0])])
    assert spread.steps.tolist() == [0, 5, 10, 20]
    assert spread.runs.tolist() == [1, 2, 2, 2]  # the second run starts at step 5
    assert spread.low.tolist() == [1.0, 1.0, 2.0, 0.0]
    assert spread.high.tolist() == [1.0, 10.0, 10.0, 3.0]
    assert spread.median.tolist() == [1.0, 5.5, 6.0, 1.5]


def test_spread_refuses_what_it_cannot_spread() -> None:
    with pytest.raises(ParetoscopeError, match="2 steps but 1 values"):
        curve_spread([([1, 2], [1.0])])
    with pytest.raises(ParetoscopeError, match="no run has a finite value"):
        curve_spread([([1], [float("nan")]), ([], [])])


def test_runs_are_grouped_by_algorithm_and_unknown_ones_stand_alone() -> None:
    groups = seed_groups({"a0": "Envelope", "p": "PGMORL", "a1": "Envelope", "x": None, "y": None})
    assert groups == {"Envelope": ["a0", "a1"], "PGMORL": ["p"], "x": ["x"], "y": ["y"]}


def test_final_fronts_are_each_runs_last_step_with_its_finite_points() -> None:
    def front(step: int, rows: list[list[float]]) -> StepFront:
        returns = np.asarray(rows, dtype=np.float64)
        return StepFront(step, returns, np.full(returns.shape, np.nan))

    first = [front(200, [[1.0, 2.0], [np.nan, 1.0]]), front(100, [[9.0, 9.0]])]
    second: list[StepFront] = []
    third = [front(50, [[3.0, 0.0], [0.0, 3.0]])]
    points, owners = final_fronts([first, second, third])
    assert points.tolist() == [[1.0, 2.0], [3.0, 0.0], [0.0, 3.0]]
    assert owners.tolist() == [0, 2, 2]
    with pytest.raises(ParetoscopeError, match="no run has a front"):
        final_fronts([[], [front(1, [[np.nan, 0.0]])]])


def _morlb_runs() -> list:
    runs = [open_run(_run_folder(name)) for name in MORLB_SEEDS]
    assert {run.kind for run in runs} == {"Envelope"}  # MORL-Baselines' algo, in each config
    return runs


def test_three_envelope_seeds_spread_as_morl_baselines_logged_them() -> None:
    """The median and range of MORL-Baselines' own logged eval/hypervolume across its three
    seeds, step by step."""
    logged = []
    for run in _morlb_runs():
        fronts, notices = run.logged_fronts()
        assert not notices
        logged.append(
            (
                [front.step for front in fronts],
                [front.scalars["eval/hypervolume"] for front in fronts],
            )
        )
    spread = curve_spread(logged)
    assert spread.steps.tolist() == [500, 1000, 1500]
    for index in range(3):
        values = [run_values[index] for _, run_values in logged]
        assert spread.median[index] == pytest.approx(statistics.median(values))
        assert (spread.low[index], spread.high[index]) == (min(values), max(values))


def test_three_envelope_seeds_final_fronts_and_their_attainment() -> None:
    """The final fronts are the last tables W&B wrote; the median surface holds exactly the
    undominated corners attained by at least two of the three runs (by definition)."""
    fronts = [logged_step_fronts(run.logged_fronts()[0]) for run in _morlb_runs()]
    points, owners = final_fronts(fronts)
    for index, name in enumerate(MORLB_SEEDS):
        last_table = np.asarray(_tables_by_wandb_step(_run_folder(name))[-1], dtype=np.float64)
        assert sorted(map(tuple, points[owners == index])) == sorted(map(tuple, last_table))
    surfaces = attainment_surfaces(points, owners)

    def attained_by(z: np.ndarray) -> int:
        return sum(bool((points[owners == run] >= z).all(axis=1).any()) for run in range(3))

    candidates = {(float(a[0]), float(b[1])) for a, b in itertools.product(points, repeat=2)}
    attained = [np.array(z) for z in candidates if attained_by(np.array(z)) >= 2]
    undominated = [
        z for z in attained if not any((o >= z).all() and (o > z).any() for o in attained)
    ]
    assert sorted(map(tuple, surfaces.surfaces["median"])) == sorted(map(tuple, undominated))
