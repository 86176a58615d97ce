"""The known Pareto fronts of MO-Gymnasium's environments: `known_front(env_id, gamma)`.

Only a few environments define their front (`env.unwrapped.pareto_front(gamma)`); the table
below names them, so an id missing from it has no front (`known_front` gives None) rather
than a probe of every environment at run time. The points are MO-Gymnasium's own, for the
given discount gamma, with three caveats a caller should know:

- minecart's front is an approximation by MO-Gymnasium's enumeration of action patterns, not
  guaranteed optimal (its issue tracker says so): an agent can beat it, and a regret against
  it can be negative. Those entries have `exact=False`.
- deep-sea-treasure's list holds one point per treasure at every gamma, also where another
  treasure dominates it (convex map: gamma <= 0.9722, where 22.4 is worth at least 23.7;
  concave and mirrored maps: gamma <= 0.9036, 16 against 24). They are kept: each is still the
  exact return of a policy. Use `paretoscope.metrics.pareto_front` where only the front is wanted.
- resource-gathering's points discount a reward collected on step t (t = 1, 2, ...) by
  gamma ** t, one factor of gamma more than sum_t gamma ** t * r_t counted from t = 0 (the
  convention of the other fronts); both agree at gamma 1.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from paretoscope.discount import check_gamma
from paretoscope.envs.episode_random import global_numpy_random
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics.comparison import FrontComparison, compare_with_front
from paretoscope.text import briefly

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class _Source:
    """How to get one environment's front: whether it is exact, the extra `pareto_front`
    arguments, and the sentence that says where the points come from."""

    exact: bool
    source: str
    arguments: dict[str, Any] = field(default_factory=dict)


def _exact(env_id: str, detail: str = "") -> tuple[str, _Source]:
    return env_id, _Source(True, f"MO-Gymnasium's {env_id} pareto_front(gamma){detail}")


def _approximate(env_id: str, **arguments: Any) -> tuple[str, _Source]:
    spelled = "".join(f", {name}={value!r}" for name, value in arguments.items())
    sentence = (
        f"MO-Gymnasium's {env_id} pareto_front(gamma{spelled}): approximate, not guaranteed optimal"
    )
    return env_id, _Source(False, sentence, arguments)


# Every MO-Gymnasium id (1.3.2) whose environment defines `pareto_front`; the tests check
# that no other registered id has one. minecart's `symmetric=True` is MO-Gymnasium's default,
# spelled out because it changes the front: `symmetric=False` enumerates more patterns (32
# points instead of 20 at gamma 0.99) and prints them to stdout; the default is the front
# MORL-Baselines reports against.
_SOURCES: dict[str, _Source] = dict(
    [
        _exact("deep-sea-treasure-v0"),
        _exact("deep-sea-treasure-concave-v0"),
        _exact("deep-sea-treasure-mirrored-v0"),
        # mo_gymnasium.make("fruit-tree-v0") builds depth 6: each of its 64 leaves is on the
        # front, reached in 6 steps, so the front is the leaf table times gamma ** 5.
        _exact("fruit-tree-v0", " (depth 6, the default: 64 leaves)"),
        _exact(
            "resource-gathering-v0",
            ": expected returns, a reward on step t = 1, 2, ... discounted by gamma ** t",
        ),
        _approximate("minecart-v0", symmetric=True),
        _approximate("minecart-deterministic-v0", symmetric=True),
        _approximate("minecart-rgb-v0", symmetric=True),
    ]
)

KNOWN_FRONT_IDS: tuple[str, ...] = tuple(_SOURCES)
"""The MO-Gymnasium ids that `known_front` has a front for."""


@dataclass(frozen=True)
class KnownFront:
    """The known front of `env_id` at discount `gamma`: `points` (K, n_obj), read-only.

    `exact` is False where the front is an approximation (an agent may beat it); `source`
    says in one sentence where the points come from.
    """

    env_id: str
    points: FloatArray
    exact: bool
    gamma: float
    source: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: plain floats and lists, without the env id (the caller's key)."""
        return {
            "points": self.points.tolist(),
            "exact": bool(self.exact),
            "gamma": float(self.gamma),
            "source": self.source,
        }


@functools.lru_cache(maxsize=64)
def _front_points(env_id: str, gamma: float) -> FloatArray:
    """MO-Gymnasium's front for (env_id, gamma), deduplicated and sorted, read-only."""
    import mo_gymnasium

    source = _SOURCES[env_id]
    # minecart's constructor draws mine positions from numpy's global generator (the config
    # then overwrites them): reading a constant must not move the caller's random stream.
    with global_numpy_random():
        with warnings.catch_warnings():
            # gymnasium warns that the reward spaces' float64 bounds are cast to float32:
            # noise here, the front does not use the spaces.
            warnings.simplefilter("ignore", UserWarning)
            env = mo_gymnasium.make(env_id)
        try:
            unwrapped: Any = env.unwrapped  # gymnasium's Env type has no pareto_front
            raw = unwrapped.pareto_front(gamma, **source.arguments)
        finally:
            env.close()

    points = np.asarray(raw, dtype=np.float64)
    if points.ndim != 2 or len(points) == 0 or not np.isfinite(points).all():
        raise RuntimeError(
            f"MO-Gymnasium's {env_id} pareto_front({gamma}) gave no finite (K, n_obj) array "
            f"(shape {points.shape}); has its API changed?"
        )
    # MO-Gymnasium's order is incidental (resource-gathering builds its list from a Python
    # set, minecart from a filter's output): sorting lexicographically gives one front one
    # order, so it serialises, caches and plots the same every time. An exact duplicate says
    # nothing new and would count twice in indicators that average over the reference front
    # (IGD, IGD+). Adding 0.0 turns -0.0 into 0.0, so JSON never shows "-0.0".
    points = np.unique(points, axis=0) + 0.0
    points.flags.writeable = False
    return points


def known_front(env_id: str, gamma: float = 1.0) -> KnownFront | None:
    """The known front of MO-Gymnasium's `env_id` at discount `gamma`, or None if it has none.

    Built once per (env_id, gamma) and cached (a few milliseconds; building minecart's
    environment the first time takes longer). `points` is read-only: copy it to change it.
    A gamma outside (0, 1] or a non-string id raises ParetoscopeError.
    """
    if not isinstance(env_id, str):
        raise ParetoscopeError(f"env_id: expected an environment id string, got {briefly(env_id)}")
    value = check_gamma(gamma)
    source = _SOURCES.get(env_id)
    if source is None:
        return None
    # A read-only view of the read-only cached array: unlike the array itself, a view of it
    # cannot be made writeable again, so no caller can change what the next one gets.
    points = _front_points(env_id, value).view()
    points.flags.writeable = False
    return KnownFront(
        env_id=env_id, points=points, exact=source.exact, gamma=value, source=source.source
    )


@dataclass(frozen=True)
class AgainstKnown:
    """An env's known front at one discount, and an agent's front measured against it (None
    when the agent has no point yet)."""

    front: KnownFront
    comparison: FrontComparison | None

    @property
    def regret(self) -> npt.NDArray[np.float64] | None:
        return None if self.comparison is None else self.comparison.regret


def against_known(
    env_id: str, gamma: float, returns: object, preferences: object
) -> AgainstKnown | None:
    """The known front of `env_id` at `gamma` and the agent's points against it (`returns`:
    mean return per preference, aligned with `preferences`, both (N, n_obj)); None when the
    env has no known front."""
    front = known_front(env_id, gamma)
    if front is None:
        return None
    points = np.asarray(returns, dtype=np.float64)
    comparison = compare_with_front(points, preferences, front.points) if len(points) else None
    return AgainstKnown(front, comparison)
