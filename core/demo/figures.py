"""The demo's figures, computed from its sweeps, and the quality targets (issues 9 and 21).

Everything here is a pure function of sweep tables (`paretoscope.evaluate.sweep` rows) and of the
figures already computed, so the manifest can be rebuilt from the ledger without rollouts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from paretoscope.demo.recipe import DemoRecipe
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import objective_columns, summarize
from paretoscope.metrics import hypervolume, largest_gap, non_dominated

# MO-HalfCheetah-v2 per-step rewards (docs/reference.md#d4morl-environments):
# run = min(4, v) + 1, energy = 5 - Σa².
HALFCHEETAH_RUN_OFFSET = 1.0
HALFCHEETAH_ENERGY_OFFSET = 5.0


def _number(value: float | None) -> float | None:
    """JSON-friendly: None for a missing or non-finite value."""
    return None if value is None or not math.isfinite(float(value)) else float(value)


def front_figures(
    table: pd.DataFrame, env_id: str, return_conditioned: bool = True
) -> dict[str, Any]:
    """Hypervolume, sparsity, cardinality, expected utility (and RTG-following errors for a
    return-conditioned agent) of a sweep."""
    summary = summarize(table, env_id)
    figures: dict[str, Any] = {
        "episodes": len(table),
        "preferences": len(summary.per_preference),
        "hypervolume": _number(summary.front.hypervolume),
        "reference_point": list(get_spec(env_id).reference_point),
        "sparsity": _number(summary.front.sparsity),
        "cardinality": int(summary.front.cardinality),
        "expected_utility": _number(summary.front.expected_utility),
        "diverged_episodes": int(table["diverged"].sum()) if "diverged" in table else 0,
    }
    if get_spec(env_id).n_obj == 2:
        returns = summary.per_preference[objective_columns("return", get_spec(env_id))]
        figures["largest_gap"] = _number(largest_gap(returns.to_numpy(dtype=np.float64)))
    if return_conditioned and summary.rtg is not None:
        figures["rtg_weighted_error"] = _number(summary.rtg.overall_weighted_error)
        figures["rtg_relative_weighted_error"] = _number(
            summary.rtg.overall_relative_weighted_error
        )
        figures["rtg_ratio_error"] = _number(summary.rtg.overall_ratio_error)
    return figures


def known_front_figures(table: pd.DataFrame, env_id: str) -> dict[str, Any]:
    """A sweep (at one discount) against its env's known front at that discount: both
    hypervolumes (the env's reference point), their ratio, the known points reached (an agent
    point within 1e-6 of each coordinate), IGD and the mean regret."""
    summary = summarize(table, env_id)
    known = summary.known_front
    if known is None:
        raise ParetoscopeError(f"{env_id} has no known front to measure a sweep against")
    reference = get_spec(env_id).reference_point
    agent_points = summary.per_preference[objective_columns("return", get_spec(env_id))]
    points = agent_points.to_numpy(dtype=np.float64)
    known_volume = hypervolume(known.points, reference)
    volume = float(summary.front.hypervolume)
    reached = [bool(np.any(np.all(np.abs(points - row) <= 1e-6, axis=1))) for row in known.points]
    comparison = summary.against_known
    return {
        "gamma": summary.gamma,
        "hypervolume": _number(volume),
        "known_front_hypervolume": _number(known_volume),
        "fraction_of_known_front": _number(volume / known_volume) if known_volume > 0 else None,
        "known_points": len(known.points),
        "known_points_reached": int(sum(reached)),
        "igd": None if comparison is None else _number(comparison.igd),
        "mean_regret": None if comparison is None else _number(comparison.mean_regret),
        "source": known.source,
    }


def member_figures(table: pd.DataFrame, env_id: str) -> dict[str, Any]:
    """Each behaviour member evaluated at its own preference: mean returns, non-dominated count.

    `table` holds the sweep at the members' preferences (several seeds each).
    """
    spec = get_spec(env_id)
    preference_columns = objective_columns("preference", spec)
    return_columns = objective_columns("return", spec)
    grouped = table.groupby(preference_columns, sort=False)
    means = grouped[return_columns].mean()
    returns = means.to_numpy(dtype=np.float64)
    mask = non_dominated(returns)
    members = [
        {
            "preference": [float(value) for value in preference],
            "mean_return": [float(value) for value in row],
            "non_dominated": bool(flag),
        }
        for preference, row, flag in zip(means.index.to_list(), returns, mask, strict=True)
    ]
    return {"members": members, "non_dominated_members": int(mask.sum())}


def halfcheetah_motion(table: pd.DataFrame, preference: Sequence[float]) -> dict[str, Any]:
    """Mean forward speed (m/s, capped at 4 by the reward) and mean Σa² per step at `preference`.

    Read back from the returns: run = min(4, v) + 1 and energy = 5 - Σa² per step.
    """
    rows = table[
        np.isclose(table["preference_run"], preference[0])
        & np.isclose(table["preference_energy"], preference[1])
    ]
    lengths = rows["length"].to_numpy(dtype=np.float64)
    speed = rows["return_run"].to_numpy() / lengths - HALFCHEETAH_RUN_OFFSET
    cost = HALFCHEETAH_ENERGY_OFFSET - rows["return_energy"].to_numpy() / lengths
    return {
        "preference": [float(value) for value in preference],
        "mean_speed": float(np.mean(speed)),
        "mean_action_cost": float(np.mean(cost)),
        "episodes": len(rows),
    }


@dataclass(frozen=True)
class QualityCheck:
    """One quality target, its measured value, and whether it is met."""

    artefact: str
    target: str
    value: float | None
    met: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "artefact": self.artefact,
            "target": self.target,
            "value": self.value,
            "met": self.met,
        }

    def line(self) -> str:
        shown = "missing" if self.value is None else f"{self.value:.4g}"
        return f"{'met' if self.met else 'NOT met':>7}  {self.artefact}: {self.target} ({shown})"


def hypervolume_fractions(
    recipe: DemoRecipe, figures: Mapping[str, Mapping[str, Any]]
) -> dict[str, float | None]:
    """Each offline agent's hypervolume over its env's behaviour set's (same grid and seeds)."""
    fractions: dict[str, float | None] = {}
    for env in recipe.envs:
        behaviour = (figures.get(env.behaviour_name) or {}).get("hypervolume")
        for agent in env.agents:
            own = (figures.get(env.agent_name(agent)) or {}).get("hypervolume")
            if own is None or not behaviour:
                fractions[env.agent_name(agent)] = None
            else:
                fractions[env.agent_name(agent)] = float(own) / float(behaviour)
    return fractions


def quality_checks(
    recipe: DemoRecipe, figures: Mapping[str, Mapping[str, Any]]
) -> list[QualityCheck]:
    """The issue's quality targets on the figures (a missing figure is a miss, never hidden)."""
    targets = recipe.targets
    most_dominated = dict(targets.max_dominated_members)
    fewest_non_dominated = dict(targets.min_non_dominated_members)
    largest_gaps = dict(targets.max_front_gap)
    checks: list[QualityCheck] = []
    for env in recipe.envs:
        behaviour = figures.get(env.behaviour_name) or {}
        if env.env_id in most_dominated or env.env_id in fewest_non_dominated:
            count = behaviour.get("non_dominated_members")
            total = len(behaviour.get("members") or [])
            needed = max(
                total - most_dominated.get(env.env_id, total),
                fewest_non_dominated.get(env.env_id, 0),
                1,
            )
            checks.append(
                QualityCheck(
                    env.behaviour_name,
                    f"at least {needed} members non-dominated (of {total})",
                    None if count is None else float(count),
                    count is not None and count >= needed,
                )
            )
        if env.env_id in largest_gaps:
            gap = behaviour.get("largest_gap")
            checks.append(
                QualityCheck(
                    env.behaviour_name,
                    f"largest normalised gap between neighbouring front points <= "
                    f"{largest_gaps[env.env_id]:g}",
                    gap,
                    gap is not None and gap <= largest_gaps[env.env_id],
                )
            )
        if env.motion_figures:
            run_most = behaviour.get("run_most") or {}
            speed = run_most.get("mean_speed")
            checks.append(
                QualityCheck(
                    env.behaviour_name,
                    f"run-most member averages >= {targets.run_most_min_speed:g} m/s forward",
                    speed,
                    speed is not None and speed >= targets.run_most_min_speed,
                )
            )
            energy_most = behaviour.get("energy_most") or {}
            speed = energy_most.get("mean_speed")
            cost = energy_most.get("mean_action_cost")
            checks.append(
                QualityCheck(
                    env.behaviour_name,
                    f"energy-most member moves little (|speed| <= "
                    f"{targets.energy_most_max_speed:g} m/s)",
                    speed,
                    speed is not None and abs(speed) <= targets.energy_most_max_speed,
                )
            )
            checks.append(
                QualityCheck(
                    env.behaviour_name,
                    f"energy-most member spends little (sum of squared actions <= "
                    f"{targets.energy_most_max_action_cost:g} per step)",
                    cost,
                    cost is not None and cost <= targets.energy_most_max_action_cost,
                )
            )
    fractions = hypervolume_fractions(recipe, figures)
    for env in recipe.envs:
        for agent in env.agents:
            minimum = dict(targets.min_hypervolume_fraction).get(agent.kind)
            if minimum is None:
                continue
            name = env.agent_name(agent)
            fraction = fractions.get(name)
            held_out = (figures.get(name) or {}).get("held_out_seeds") is True
            checks.append(
                QualityCheck(
                    name,
                    f"hypervolume >= {minimum:.0%} of {env.behaviour_name}'s (held-out seeds)",
                    fraction,
                    fraction is not None and fraction >= minimum and held_out,
                )
            )
    for imported in recipe.morlb:
        if imported.front_gamma is None:
            continue  # no known front to be measured against: its figures are reported only
        known = (figures.get(imported.name) or {}).get("known_front") or {}
        fraction = known.get("fraction_of_known_front")
        minimum = targets.min_known_front_fraction
        checks.append(
            QualityCheck(
                imported.name,
                f"hypervolume >= {minimum:.0%} of the known front's (gamma "
                f"{imported.front_gamma:g})",
                fraction,
                fraction is not None and fraction >= minimum,
            )
        )
    return checks
