"""`paretoscope.runs.fronts.front_metrics`: the metrics of fronts that are already means per
preference
(a trainer's logged evaluations), against brute force and against `step_metrics` on a table
whose episodes average to the same fronts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paretoscope.envs import get_spec
from paretoscope.runs.fronts import STEP_COLUMN, StepFront, front_metrics, step_metrics

DST = "deep-sea-treasure-v0"


def _fronts() -> list[StepFront]:
    preferences = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    first = np.array([[1.0, -1.0], [2.0, -3.0], [1.5, -4.0]])  # the last point dominated
    second = np.array([[5.0, -5.0], [8.0, -7.0], [0.7, -1.0]])
    # Out of order on purpose: rows come back by step.
    return [StepFront(20, second, preferences), StepFront(10, first, preferences)]


def test_front_metrics_match_brute_force() -> None:
    reference = (0.0, -10.0)
    metrics = front_metrics(_fronts(), DST, reference)
    assert list(metrics[STEP_COLUMN]) == [10, 20]
    ordered = sorted(_fronts(), key=lambda front: front.step)
    for row, front in zip(metrics.itertuples(), ordered, strict=True):
        points = front.returns
        undominated = [
            p for p in points if not any((q >= p).all() and (q > p).any() for q in points)
        ]
        # The union of the boxes from the reference point, by inclusion-exclusion on a grid.
        xs = np.unique(np.concatenate([[reference[0]], points[:, 0]]))
        ys = np.unique(np.concatenate([[reference[1]], points[:, 1]]))
        volume = 0.0
        for x0, x1 in zip(xs, xs[1:], strict=False):
            for y0, y1 in zip(ys, ys[1:], strict=False):
                if any(p[0] >= x1 and p[1] >= y1 for p in points):
                    volume += (x1 - x0) * (y1 - y0)
        utility = np.mean([max(w @ p for p in points) for w in front.preferences])
        assert row.hypervolume == pytest.approx(volume)
        assert row.expected_utility == pytest.approx(utility)
        assert row.cardinality == len(undominated)
        assert row.preferences == 3
        assert np.isfinite(row.igd)  # deep-sea-treasure's front is known


def test_front_metrics_equal_step_metrics_on_the_same_means() -> None:
    spec = get_spec(DST)
    rows = []
    for front in _fronts():
        for preference, returns in zip(front.preferences, front.returns, strict=True):
            # Two seeds whose mean is the front's point.
            for seed, shift in ((0, -0.5), (1, 0.5)):
                row = {STEP_COLUMN: front.step, "seed": seed, "gamma": 1.0}
                for index, name in enumerate(spec.objective_names):
                    row[f"preference_{name}"] = preference[index]
                    row[f"target_{name}"] = 0.0
                    row[f"return_{name}"] = returns[index] + shift
                rows.append(row)
    table = pd.DataFrame(rows)
    expected = step_metrics(table, DST, (0.0, -10.0))
    got = front_metrics(_fronts(), DST, (0.0, -10.0))
    for column in ("step", "hypervolume", "expected_utility", "cardinality", "sparsity", "igd"):
        np.testing.assert_allclose(got[column], expected[column], rtol=1e-12)
