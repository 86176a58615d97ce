"""A front measured against a known Pareto front: IGD, IGD+, maximum utility loss, regret.

For envs whose optimal front is known (MO-Gymnasium's `pareto_front(gamma)`): how far the
agent's front is from it (IGD, IGD+: lower is better, 0 on the front itself), the worst loss of
utility over the preferences (MUL), and per preference the regret: the best w.v on the known
front minus the agent's own w.v at that preference (its sweep's return there).
"""

from __future__ import annotations

from dataclasses import dataclass

from paretoscope.metrics._validation import FloatArray, as_point_set
from paretoscope.metrics.distance import igd, igd_plus
from paretoscope.metrics.utility import maximum_utility_loss, sweep_regret


@dataclass(frozen=True)
class FrontComparison:
    """A sweep's front against a known front (same objectives, same discount)."""

    igd: float
    igd_plus: float
    maximum_utility_loss: float
    regret: FloatArray  # (M,) per preference of the sweep, aligned with its rows

    @property
    def mean_regret(self) -> float:
        return float(self.regret.mean())


def compare_with_front(
    returns: object, preferences: object, known_front: object
) -> FrontComparison:
    """`returns` (M, n_obj): the sweep's mean return at each of its `preferences` (M, n_obj)."""
    points = as_point_set("returns", returns)
    reference = as_point_set("known_front", known_front, points.shape[1])
    weights = as_point_set("preferences", preferences, points.shape[1])
    return FrontComparison(
        igd=igd(points, reference),
        igd_plus=igd_plus(points, reference),
        maximum_utility_loss=maximum_utility_loss(points, reference, weights),
        regret=sweep_regret(reference, weights, points),
    )
