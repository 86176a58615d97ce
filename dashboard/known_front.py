"""The env's known Pareto front beside an agent's, in the words every page uses.

Computing is core's (`paretoscope.envs.known_fronts.against_known`: the front at the sweep's
discount
and the agent's indicators against it); this module only says what they are.
"""

from __future__ import annotations

from paretoscope.dashboard.messages import inert
from paretoscope.envs.known_fronts import AgainstKnown, KnownFront
from paretoscope.text import number

# The indicators a page shows against a known front, in order: (label, attribute).
INDICATORS = (
    ("IGD", "igd"),
    ("IGD+", "igd_plus"),
    ("max utility loss", "maximum_utility_loss"),
    ("mean regret", "mean_regret"),
)


def indicator_values(against: AgainstKnown) -> dict[str, float]:
    """Indicator label -> value (empty when the agent has no point yet)."""
    if against.comparison is None:
        return {}
    return {label: float(getattr(against.comparison, name)) for label, name in INDICATORS}


def describe_front(front: KnownFront) -> str:
    """One sentence on the front: exact or approximate, its discount, where it comes from."""
    kind = "exact" if front.exact else "approximate: an agent can beat it, a regret can be < 0"
    return f"Known front ({kind}; γ = {front.gamma:g}; {len(front.points)} points): " + inert(
        front.source, 300
    )


def indicators_text(against: AgainstKnown) -> str:
    """ "IGD 1.2 · IGD+ 0.8 · max utility loss 3 · mean regret 1.1" (lower is better)."""
    values = indicator_values(against)
    if not values:
        return "no points yet to measure against it"
    shown = " · ".join(f"{label} {number(value)}" for label, value in values.items())
    return shown + " (lower is better; each point's regret is in its hover)"
