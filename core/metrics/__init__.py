"""Pareto-front metrics for maximisation on (N, n_obj) arrays of returns.

Dominance and the front (`non_dominated`, `pareto_front`), indicators of one front
(`hypervolume`, `sparsity`, `largest_gap`, `cardinality`, `front_summary`), utility indicators
(`expected_utility`, `maximum_utility_loss`), regret against a reference front per preference
(`regret_per_preference` for a set of points, `sweep_regret` for one return per preference),
distances to a reference front (`igd`, `igd_plus`), preference vectors (`preference_grid`,
`random_preferences`), the region a 2-D front dominates as shapes to draw (`dominated_region`,
`dominated_staircase`), RTG following (`rtg_following`), all of a front's distances to a
known optimal one (`compare_with_front`), and uncertainty across seeds: attainment surfaces of
the runs (`attainment_surfaces`), where one agent's EAF beats another's (`eaf_difference`) and
bootstrapped intervals of the mean front's metrics (`bootstrap_front_metrics`). Bad input raises
`paretoscope.errors.ParetoscopeError`.
"""

from paretoscope.metrics.attainment import (
    AttainmentSurfaces,
    EafDifference,
    attainment_surfaces,
    eaf_difference,
)
from paretoscope.metrics.comparison import FrontComparison, compare_with_front
from paretoscope.metrics.distance import igd, igd_plus
from paretoscope.metrics.dominance import non_dominated, non_dominated_by_margin, pareto_front
from paretoscope.metrics.indicators import (
    FrontSummary,
    cardinality,
    front_summary,
    hypervolume,
    largest_gap,
    sparsity,
)
from paretoscope.metrics.preferences import preference_grid, random_preferences
from paretoscope.metrics.region import dominated_region, dominated_staircase
from paretoscope.metrics.rtg import RtgFollowing, rtg_following
from paretoscope.metrics.uncertainty import Interval, bootstrap_front_metrics
from paretoscope.metrics.utility import (
    expected_utility,
    maximum_utility_loss,
    regret_per_preference,
    sweep_regret,
)

__all__ = [
    "AttainmentSurfaces",
    "EafDifference",
    "Interval",
    "attainment_surfaces",
    "bootstrap_front_metrics",
    "eaf_difference",
    "FrontComparison",
    "compare_with_front",
    "FrontSummary",
    "RtgFollowing",
    "cardinality",
    "dominated_region",
    "dominated_staircase",
    "expected_utility",
    "front_summary",
    "hypervolume",
    "igd",
    "igd_plus",
    "maximum_utility_loss",
    "non_dominated",
    "non_dominated_by_margin",
    "pareto_front",
    "preference_grid",
    "random_preferences",
    "regret_per_preference",
    "rtg_following",
    "largest_gap",
    "sparsity",
    "sweep_regret",
]
