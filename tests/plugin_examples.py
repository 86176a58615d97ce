"""Plug-in policies for the tests, as a user's own module (`py:tests.plugin_examples:NAME`).

- `walk_then_dive` (deep-sea-treasure only): walk right for a number of steps that grows with
  the treasure weight, then dive; it keeps a per-row step counter (so it needs `reset`).
- `surface_then_dive` (the dashboard's tests): on deep-sea-treasure-v0 (observation: row,
  column) it sails right along the surface to the last column, then dives: the deepest
  treasure, 19 steps. On any other discrete env it always takes action 0; on a continuous one,
  the middle of the action box. Preference-blind.
- `fruit_picker` (fruit-tree-v0, 6 objectives): walks to the fruit with the best weighted sum
  for its preference: an optimal policy per weight vector, many distinct points on the front.
- the rest are mistakes a user's module can make.
"""

from __future__ import annotations

import numpy as np

from paretoscope.envs import get_spec

RIGHT, DOWN = 3, 1


class WalkThenDive:
    def __init__(self, env_id: str) -> None:
        self.env_id = env_id
        self.steps = np.zeros(0, dtype=int)

    def reset(self, batch_size: int) -> None:
        self.steps = np.zeros(batch_size, dtype=int)

    def act(self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray):
        walk = np.rint(preferences[:, 0] * 9).astype(int)
        actions = np.where(self.steps < walk, RIGHT, DOWN)
        self.steps += 1
        return actions[:, None]  # (B, 1): a common way to write discrete actions


def walk_then_dive(env_id: str) -> WalkThenDive:
    if env_id != "deep-sea-treasure-v0":
        raise ValueError(f"walk_then_dive plays deep-sea-treasure-v0 only, not {env_id}")
    return WalkThenDive(env_id)


walk_then_dive.env_ids = ("deep-sea-treasure-v0",)  # type: ignore[attr-defined]


class _Constant:
    """Always the middle of the action box; reads its target (return-conditioned)."""

    spec = {"return_conditioned": True, "preference_in_state": False}

    def __init__(self, act_dim: int, n_obj: int) -> None:
        self.act_dim, self.n_obj = act_dim, n_obj

    def act(self, observations, preferences, targets):
        return np.zeros((len(observations), self.act_dim))

    def initial_target(self, preferences):
        return np.asarray(preferences) * 100.0


def constant(env_id: str) -> _Constant:
    spec = get_spec(env_id)
    return _Constant(spec.act_dim, spec.n_obj)


class _Wrong:
    def act(self, observations, preferences, targets):
        return np.zeros((len(observations), 5))


def wrong_shape(env_id: str) -> _Wrong:
    return _Wrong()


def broken(env_id: str) -> object:
    raise RuntimeError("the user's factory failed")


def not_a_policy(env_id: str) -> object:
    return object()


LAST_COLUMN = 9


class SurfaceThenDive:
    """Deterministic, preference-blind."""

    preference_blind = True

    def __init__(self, env_id: str) -> None:
        self.env = get_spec(env_id)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        del preferences, targets
        rows = len(observations)
        if self.env.id == "deep-sea-treasure-v0":
            columns = np.asarray(observations)[:, 1]
            return np.where(columns < LAST_COLUMN, RIGHT, DOWN).astype(np.int64)
        if self.env.discrete:
            return np.zeros(rows, dtype=np.int64)
        low = np.asarray(self.env.action_low, dtype=np.float64)
        high = np.asarray(self.env.action_high, dtype=np.float64)
        return np.tile((low + high) / 2, (rows, 1))


def surface_then_dive(env_id: str) -> SurfaceThenDive:
    return SurfaceThenDive(env_id)


class FruitPicker:
    """Deterministic and stateless: the observation's row says which bit of the chosen fruit's
    leaf index to follow (left 0, right 1, most significant first)."""

    def __init__(self, env_id: str) -> None:
        import mo_gymnasium

        env = mo_gymnasium.make(env_id)
        tree = env.unwrapped
        self.depth = int(tree.tree_depth)
        self.fruits = np.asarray(tree.tree[-(2**self.depth) :], dtype=np.float64)
        env.close()

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        leaves = np.argmax(np.asarray(preferences) @ self.fruits.T, axis=1)
        rows = np.asarray(observations)[:, 0].astype(np.int64)
        return ((leaves >> (self.depth - 1 - rows)) & 1).astype(np.int64)


def fruit_picker(env_id: str) -> FruitPicker:
    if env_id != "fruit-tree-v0":
        raise ValueError(f"fruit_picker plays fruit-tree-v0 only, not {env_id}")
    return FruitPicker(env_id)


fruit_picker.env_ids = ("fruit-tree-v0",)  # type: ignore[attr-defined]
