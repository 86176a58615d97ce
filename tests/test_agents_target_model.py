"""The linear model of the initial target: fit, published values, serialisation."""

from __future__ import annotations

import numpy as np
import pytest

from paretoscope.agents.target_model import (
    LinearTargetModel,
    fit_linear_target_model,
    published_target_model,
)
from paretoscope.errors import ParetoscopeError


def test_fit_recovers_an_exact_linear_model() -> None:
    rng = np.random.default_rng(0)
    corner = rng.uniform(-200, 900, size=(3, 3))
    preferences = rng.dirichlet(np.ones(3), size=40)
    model = fit_linear_target_model(preferences, preferences @ corner.T)
    np.testing.assert_allclose(model.corner_returns, corner, atol=1e-8)


def test_fit_equals_least_squares_with_intercept_on_the_simplex() -> None:
    # PEDA fits scikit-learn's LinearRegression (with an intercept); on the simplex the
    # intercept is redundant, so predictions must agree with that fit exactly.
    rng = np.random.default_rng(1)
    preferences = rng.dirichlet(np.ones(2), size=200)
    returns = np.column_stack(
        [
            800 * preferences[:, 0] + 50 + rng.normal(0, 40, 200),
            600 * preferences[:, 1] ** 2 + rng.normal(0, 40, 200),
        ]
    )
    model = fit_linear_target_model(preferences, returns)
    design = np.column_stack([np.ones(200), preferences])
    coefficients, *_ = np.linalg.lstsq(design, returns, rcond=None)
    grid = np.column_stack([np.linspace(0, 1, 11), 1 - np.linspace(0, 1, 11)])
    expected = np.column_stack([np.ones(11), grid]) @ coefficients
    np.testing.assert_allclose(model(grid), expected, rtol=1e-9, atol=1e-7)


def test_published_models_match_reference_table() -> None:
    hopper = published_target_model("MO-Hopper-v3")
    assert hopper is not None
    # docs/reference.md#initial-target-at-evaluation: row = objective, column = pure preference.
    np.testing.assert_allclose(hopper(np.array([0.0, 1.0, 0.0])), [194.4, 391.8, 458.9])
    third = np.full(3, 1 / 3)
    expected = [
        (515.0 + 194.4 - 113.0) / 3,
        (149.1 + 391.8 + 81.8) / 3,
        (441.2 + 458.9 + 523.7) / 3,
    ]
    np.testing.assert_allclose(hopper(third), expected)
    # The two-objective tables, typed in again here: at e_j each model returns column j.
    for env, table in (
        ("MO-HalfCheetah-v2", [[923.7, -95.5], [259.6, 578.5]]),
        ("MO-Hopper-v2", [[611.3, 32.9], [74.4, 436.3]]),
        ("MO-Walker2d-v2", [[517.1, 12.6], [122.9, 615.2]]),
        ("MO-Ant-v2", [[513.3, 102.8], [157.5, 493.2]]),
        ("MO-Swimmer-v2", [[314.5, 198.6], [156.3, 629.4]]),
    ):
        model = published_target_model(env)
        assert model is not None, env
        for j, corner in enumerate(np.eye(2)):
            np.testing.assert_allclose(model(corner), np.asarray(table)[:, j], err_msg=env)
        np.testing.assert_allclose(model(np.full(2, 0.5)), np.mean(table, axis=1), err_msg=env)
    assert published_target_model("mo-hopper-v5") is None


def test_round_trip_and_bad_input() -> None:
    model = LinearTargetModel(((1.0, 2.0), (3.0, 4.0)), source="x")
    assert LinearTargetModel.from_dict(model.to_dict(), 2) == model
    assert model(np.array([[0.25, 0.75]])).shape == (1, 2)
    with pytest.raises(ParetoscopeError, match="square"):
        LinearTargetModel(((1.0, 2.0),))
    with pytest.raises(ParetoscopeError, match="expected 3 x 3"):
        LinearTargetModel.from_dict(model.to_dict(), 3)
    with pytest.raises(ParetoscopeError, match="type 'linear'"):
        LinearTargetModel.from_dict({"corner_returns": [[1.0]]}, 1)
    with pytest.raises(ParetoscopeError, match="preferences"):
        model(np.ones((2, 3)))
    with pytest.raises(ParetoscopeError, match="at least 2"):
        fit_linear_target_model(np.ones((1, 2)) / 2, np.ones((1, 2)))
    with pytest.raises(ParetoscopeError, match="finite"):
        fit_linear_target_model(np.full((3, 2), 0.5), np.full((3, 2), np.nan))
