"""The env's known Pareto front beside an agent's: the front (core's, at the sweep's discount)
and the agent's indicators against it, in the words every page uses.

Computing is core's (`core.envs.known_fronts.known_front`, `core.metrics.compare_with_front`);
this module only picks them for a page and says what they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.envs.known_fronts import KnownFront, known_front
from core.metrics import FrontComparison, compare_with_front
from dashboard.messages import inert

# The indicators a page shows against a known front, in order: (label, attribute).
INDICATORS = (
    ("IGD", "igd"),
    ("IGD+", "igd_plus"),
    ("max utility loss", "maximum_utility_loss"),
    ("mean regret", "mean_regret"),
)


@dataclass(frozen=True)
class AgainstKnown:
    """An env's known front at one discount, and one agent's front measured against it (None
    when the agent has no point yet)."""

    front: KnownFront
    comparison: FrontComparison | None

    def values(self) -> dict[str, float]:
        """Indicator label -> value (empty without a comparison)."""
        if self.comparison is None:
            return {}
        return {label: float(getattr(self.comparison, name)) for label, name in INDICATORS}

    @property
    def regret(self) -> np.ndarray | None:
        return None if self.comparison is None else self.comparison.regret


def against_known(
    env_id: str, gamma: float, returns: np.ndarray, preferences: np.ndarray
) -> AgainstKnown | None:
    """The known front of `env_id` at `gamma` and the agent's points (mean returns per
    preference, `returns` and `preferences` (N, n_obj)) against it; None when the env has none."""
    front = known_front(env_id, gamma)
    if front is None:
        return None
    points = np.asarray(returns, dtype=np.float64)
    comparison = None
    if len(points):
        comparison = compare_with_front(points, preferences, front.points)
    return AgainstKnown(front, comparison)


def describe_front(front: KnownFront) -> str:
    """One sentence on the front: exact or approximate, its discount, where it comes from."""
    kind = "exact" if front.exact else "approximate: an agent can beat it, a regret can be < 0"
    return f"Known front ({kind}; γ = {front.gamma:g}; {len(front.points)} points): " + inert(
        front.source, 300
    )


def indicators_text(against: AgainstKnown) -> str:
    """ "IGD 1.2 · IGD+ 0.8 · max utility loss 3 · mean regret 1.1" (lower is better)."""
    values = against.values()
    if not values:
        return "no points yet to measure against it"
    shown = " · ".join(f"{label} {value:.4g}" for label, value in values.items())
    return shown + " (lower is better; each point's regret is in its hover)"
