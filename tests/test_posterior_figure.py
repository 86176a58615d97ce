"""The posterior figure of `paretoscope.figures.posterior`, checked against hand-made posteriors:
the segment's mass per bin, the triangle's mean, the marginal bars and their intervals."""

from __future__ import annotations

import numpy as np

from paretoscope.figures.posterior import SEGMENT_BINS, posterior_figure, segment_mass


def test_two_objectives_draw_the_mass_of_the_first_weight_on_a_segment() -> None:
    weights = np.array([[0.01, 0.99], [0.02, 0.98], [0.99, 0.01], [0.5, 0.5]])
    probabilities = np.array([0.25, 0.25, 0.4, 0.1])
    mass = segment_mass(weights, probabilities)
    expected = np.zeros(SEGMENT_BINS)
    expected[0] = 0.5  # 0.01 and 0.02 fall in [0, 0.025)
    expected[-1] = 0.4
    expected[SEGMENT_BINS // 2] = 0.1  # 0.5 opens the 21st bin
    np.testing.assert_allclose(mass, expected, atol=1e-12)
    figure = posterior_figure(
        ["run", "energy"], weights, probabilities, [0.45, 0.55], [0.01, 0.01], [0.99, 0.99]
    )
    (bars,) = figure.data
    np.testing.assert_allclose(np.asarray(bars.y), expected, atol=1e-12)
    assert figure.layout.shapes[1].x0 == 0.45  # the mean's line
    assert "weight on run" in figure.layout.xaxis.title.text


def test_three_objectives_draw_a_triangle_with_the_mean() -> None:
    rng = np.random.default_rng(1)
    weights = rng.dirichlet(np.ones(3), size=1000)
    probabilities = np.full(1000, 1e-3)
    mean = weights.mean(axis=0)
    figure = posterior_figure(["a", "b", "c"], weights, probabilities, mean, mean, mean)
    cloud, star = figure.data
    assert cloud.type == star.type == "scatterternary"
    # Every drawn particle is one of the posterior's (resampled by weight).
    drawn = np.column_stack([cloud.a, cloud.b, cloud.c])
    assert all((np.abs(weights - row).max(axis=1) < 1e-12).any() for row in drawn)
    np.testing.assert_allclose([star.a[0], star.b[0], star.c[0]], mean)


def test_more_objectives_draw_each_weight_s_mean_and_interval() -> None:
    names = ["a", "b", "c", "d", "e"]
    mean = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    low, high = mean - 0.05, mean + np.array([0.1, 0.1, 0.2, 0.05, 0.05])
    weights = np.tile(mean, (10, 1))
    figure = posterior_figure(names, weights, np.full(10, 0.1), mean, low, high)
    (bars,) = figure.data
    assert list(bars.x) == names
    np.testing.assert_allclose(bars.y, mean)
    np.testing.assert_allclose(bars.error_y.array, high - mean)
    np.testing.assert_allclose(bars.error_y.arrayminus, mean - low)
