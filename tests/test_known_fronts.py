"""Known fronts against MO-Gymnasium's own `pareto_front`, and the per-preference regrets
against brute-force definitions written here in plain loops (never paretoscope.metrics)."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import gymnasium
import mo_gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import load_env_creator
from mo_gymnasium.envs.fruit_tree.fruit_tree import FRUITS

from paretoscope.envs.known_fronts import KNOWN_FRONT_IDS, KnownFront, known_front
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import (
    maximum_utility_loss,
    preference_grid,
    regret_per_preference,
    sweep_regret,
)

EXACT = {
    "deep-sea-treasure-v0": True,
    "deep-sea-treasure-concave-v0": True,
    "deep-sea-treasure-mirrored-v0": True,
    "fruit-tree-v0": True,
    "resource-gathering-v0": True,
    "minecart-v0": False,
    "minecart-deterministic-v0": False,
    "minecart-rgb-v0": False,
}


def make_quietly(env_id: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # gymnasium's float32 space casts
        return mo_gymnasium.make(env_id)


def mo_gymnasium_front(env_id: str, gamma: float) -> np.ndarray:
    """MO-Gymnasium's own list, as it gives it (default arguments)."""
    env = make_quietly(env_id)
    try:
        return np.asarray(env.unwrapped.pareto_front(gamma), dtype=np.float64)
    finally:
        env.close()


def front_of(env_id: str, gamma: float = 1.0) -> KnownFront:
    front = known_front(env_id, gamma)
    assert front is not None
    return front


# ---------------------------------------------------------------- known fronts


def test_the_table_is_the_expected_ids_with_their_exact_flags() -> None:
    assert set(KNOWN_FRONT_IDS) == set(EXACT)
    for env_id, exact in EXACT.items():
        front = front_of(env_id)
        assert front.exact is exact, env_id
        assert front.env_id == env_id
        assert "MO-Gymnasium" in front.source and env_id in front.source
        assert ("approximate" in front.source) is (not exact)


@pytest.mark.parametrize("gamma", [1.0, 0.99])
@pytest.mark.parametrize("env_id", KNOWN_FRONT_IDS)
def test_front_is_mo_gymnasiums_own_set_of_points(env_id: str, gamma: float) -> None:
    front = front_of(env_id, gamma)
    theirs = mo_gymnasium_front(env_id, gamma)
    assert front.gamma == gamma
    assert front.points.dtype == np.float64
    assert front.points.shape == theirs.shape  # nothing dropped: MO-Gymnasium has no duplicates
    # Same set: every row of each is a row of the other, exactly.
    ours = {tuple(row) for row in front.points.tolist()}
    assert ours == {tuple(row) for row in theirs.tolist()}
    # Sorted lexicographically (first objective first), whatever order MO-Gymnasium used.
    keys = [tuple(row) for row in front.points.tolist()]
    assert keys == sorted(keys)


def test_deep_sea_treasure_at_gamma_099() -> None:
    points = front_of("deep-sea-treasure-v0", 0.99).points
    assert points.shape == (10, 2)
    # The nearest treasure is one step away: its reward comes at t = 0, undiscounted.
    assert points[0].tolist() == [0.7, -1.0]
    # The farthest, 23.7, is 19 steps away: discounted 18 times, 19 time penalties.
    assert points[-1, 0] == pytest.approx(23.7 * 0.99**18, rel=1e-12)
    assert points[-1, 1] == pytest.approx(-sum(0.99**t for t in range(19)), rel=1e-12)


def test_deep_sea_treasure_keeps_treasures_another_one_dominates() -> None:
    # At gamma 0.9, 23.7 (19 steps) is worth less than 22.4 (17 steps), and more: MO-Gymnasium
    # still lists every treasure, and so does known_front (each is the return of a policy).
    points = front_of("deep-sea-treasure-v0", 0.9).points.tolist()
    assert len(points) == 10

    def dominated(p: list[float]) -> bool:
        return any(q != p and all(a >= b for a, b in zip(q, p, strict=True)) for q in points)

    farthest = [23.7 * 0.9**18, -sum(0.9**t for t in range(19))]
    (row,) = [p for p in points if p == pytest.approx(farthest, rel=1e-12)]
    assert dominated(row)


def test_fruit_tree_is_the_depth_6_leaves_discounted_five_times() -> None:
    front = front_of("fruit-tree-v0", 0.9)
    leaves = np.asarray(FRUITS["6"], dtype=np.float64) * 0.9**5
    assert front.points.shape == (64, 6)
    np.testing.assert_allclose(front.points, np.unique(leaves, axis=0), rtol=1e-12)


def test_resource_gathering_discounts_one_step_more_than_a_rollout() -> None:
    # What the docstring warns about: the diamond run is 10 steps and pays on the 10th, which
    # sum_t gamma^t r_t (t from 0) counts as gamma^9; MO-Gymnasium's front has gamma^10.
    gamma = 0.9
    env = make_quietly("resource-gathering-v0")
    env.reset(seed=0)
    discounted = np.zeros(3)
    for t, action in enumerate([3, 3, 0, 0, 0, 1, 1, 1, 2, 2]):  # right, up to R2, back home
        _, reward, terminated, _, _ = env.step(action)
        discounted += gamma**t * np.asarray(reward, dtype=np.float64)
    env.close()
    assert terminated
    assert discounted.tolist() == pytest.approx([0.0, 0.0, gamma**9])
    assert [0.0, 0.0, gamma**10] in front_of("resource-gathering-v0", gamma).points.tolist()


@pytest.mark.parametrize(
    "env_id", ["four-room-v0", "mo-halfcheetah-v5", "MO-HalfCheetah-v2", "no-such-env-v0"]
)
def test_envs_without_a_front_give_none(env_id: str) -> None:
    assert known_front(env_id) is None
    assert known_front(env_id, 0.99) is None


@pytest.mark.parametrize("gamma", [0, 0.0, -0.5, 1.0001, 2, math.nan, math.inf, "0.9", None, True])
def test_bad_gamma_is_refused(gamma: Any) -> None:
    for env_id in ("deep-sea-treasure-v0", "four-room-v0"):
        with pytest.raises(ParetoscopeError, match="gamma"):
            known_front(env_id, gamma)


def test_a_non_string_id_is_refused() -> None:
    with pytest.raises(ParetoscopeError, match="env_id"):
        known_front(["deep-sea-treasure-v0"])  # type: ignore[arg-type]


def test_gamma_of_any_real_type_is_the_same_front() -> None:
    reference = front_of("deep-sea-treasure-v0", 1.0)
    for gamma in (1, np.float32(1.0), np.int64(1)):
        front = front_of("deep-sea-treasure-v0", gamma)
        assert type(front.gamma) is float and front.gamma == 1.0
        np.testing.assert_array_equal(front.points, reference.points)


def test_a_caller_cannot_change_the_cached_front() -> None:
    front = front_of("deep-sea-treasure-v0", 0.99)
    original = front.points.copy()
    with pytest.raises(ValueError):
        front.points[0, 0] = 99.0
    with pytest.raises(ValueError):
        front.points.flags.writeable = True
    front.to_dict()["points"][0][0] = 99.0
    again = front_of("deep-sea-treasure-v0", 0.99)
    np.testing.assert_array_equal(again.points, original)
    with pytest.raises(AttributeError):
        front.gamma = 0.5  # type: ignore[misc]


def test_to_dict_is_json_ready() -> None:
    front = front_of("minecart-deterministic-v0", 0.98)
    data = front.to_dict()
    assert set(data) == {"points", "exact", "gamma", "source"}
    assert json.loads(json.dumps(data)) == data
    assert all(type(x) is float for row in data["points"] for x in row)
    assert data["points"] == front.points.tolist()
    assert data["exact"] is False and data["gamma"] == 0.98
    assert "-0.0" not in json.dumps(front_of("resource-gathering-v0").to_dict())


def test_building_a_front_leaves_numpys_global_random_stream_alone() -> None:
    # minecart's constructor draws mine positions from np.random; a gamma no other test uses
    # makes sure the env is really built here, not read from the cache.
    np.random.seed(123)
    expected = np.random.random(3)
    np.random.seed(123)
    known_front("minecart-v0", 0.7531)
    np.testing.assert_array_equal(np.random.random(3), expected)


@pytest.mark.filterwarnings("ignore:builtin type:DeprecationWarning")  # Box2D's SWIG types
def test_no_mo_gymnasium_env_has_a_front_the_table_forgot() -> None:
    # Read the classes only (no env is built); mario needs nes_py, and has no front anyway.
    entry_points = {
        env_id: spec.entry_point
        for env_id, spec in gymnasium.registry.items()
        if isinstance(spec.entry_point, str)
        and "mo_gymnasium" in spec.entry_point
        and env_id != "mo-supermario-v0"
    }
    assert len(entry_points) > 30  # the registry is really MO-Gymnasium's, not a stub
    with_front = {
        env_id
        for env_id, entry_point in entry_points.items()
        if hasattr(load_env_creator(entry_point), "pareto_front")
    }
    assert with_front == set(KNOWN_FRONT_IDS)


# ---------------------------------------------------------------- regret


def brute_best(points: list[list[float]], weight: list[float]) -> float:
    return max(sum(w * v for w, v in zip(weight, p, strict=True)) for p in points)


def brute_regret_per_preference(points, reference, weights) -> list[float]:
    return [brute_best(reference, w) - brute_best(points, w) for w in weights]


def brute_sweep_regret(reference, weights, returns) -> list[float]:
    return [
        brute_best(reference, w) - sum(wi * ri for wi, ri in zip(w, r, strict=True))
        for w, r in zip(weights, returns, strict=True)
    ]


@pytest.mark.parametrize("seed", range(12))
def test_regrets_match_the_brute_force_definitions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_obj = int(rng.integers(2, 5))
    points = rng.integers(-3, 6, size=(int(rng.integers(1, 7)), n_obj)).astype(float)
    reference = rng.integers(-3, 6, size=(int(rng.integers(1, 7)), n_obj)).astype(float)
    weights = rng.integers(0, 4, size=(int(rng.integers(1, 6)), n_obj)).astype(float) / 3
    returns = rng.integers(-3, 6, size=(len(weights), n_obj)).astype(float)

    per_preference = regret_per_preference(points, reference, weights)
    assert per_preference.shape == (len(weights),)
    np.testing.assert_allclose(
        per_preference,
        brute_regret_per_preference(points.tolist(), reference.tolist(), weights.tolist()),
        atol=1e-12,
    )
    assert maximum_utility_loss(points, reference, weights) == pytest.approx(per_preference.max())
    sweep = sweep_regret(reference, weights, returns)
    assert sweep.shape == (len(weights),)
    np.testing.assert_allclose(
        sweep,
        brute_sweep_regret(reference.tolist(), weights.tolist(), returns.tolist()),
        atol=1e-12,
    )


def test_regrets_hand_example() -> None:
    reference = [[0.0, 10.0], [6.0, 6.0], [10.0, 0.0]]
    weights = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    # Reference utilities: 10, 6, 10. The set's best: 5 (5,5), 5 (5,5), 8 (0,8).
    points = [[5.0, 5.0], [0.0, 8.0]]
    np.testing.assert_allclose(regret_per_preference(points, reference, weights), [5.0, 1.0, 2.0])
    # A sweep is judged row by row: (0, 8) for w = (1, 0) earns 0, although (5, 5) was there.
    returns = [[0.0, 8.0], [5.0, 5.0], [5.0, 5.0]]
    np.testing.assert_allclose(sweep_regret(reference, weights, returns), [10.0, 1.0, 5.0])


def test_regret_is_zero_on_the_reference_front_itself() -> None:
    front = front_of("deep-sea-treasure-v0", 0.99).points
    weights = preference_grid(2, 20)
    np.testing.assert_array_equal(regret_per_preference(front, front, weights), 0.0)
    # A sweep that reaches, for each preference, the reference point best for it.
    best = front[np.argmax(weights @ front.T, axis=1)]
    np.testing.assert_allclose(sweep_regret(front, weights, best), 0.0, atol=1e-12)


def test_regret_is_negative_where_the_agent_beats_the_reference() -> None:
    reference = [[1.0, 1.0]]
    np.testing.assert_allclose(regret_per_preference([[2.0, 1.0]], reference, [[1.0, 0.0]]), [-1.0])
    np.testing.assert_allclose(sweep_regret(reference, [[0.0, 1.0]], [[0.0, 3.0]]), [-2.0])


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: regret_per_preference([], [[1.0, 2.0]], [[1.0, 0.0]]), "points"),
        (lambda: regret_per_preference([[1.0, 2.0]], [], [[1.0, 0.0]]), "reference_front"),
        (lambda: regret_per_preference([[1.0, 2.0]], [[1.0, 2.0, 3.0]], [[1.0, 0.0]]), "reference"),
        (lambda: regret_per_preference([[1.0, 2.0]], [[1.0, 2.0]], [[1.0, 0.0, 0.0]]), "weights"),
        (lambda: regret_per_preference([[1.0, 2.0]], [[1.0, 2.0]], [1.0, 0.0]), "weights"),
        (lambda: regret_per_preference([[1.0, 2.0]], [[1.0, 2.0]], [[1.5, -0.5]]), "weights"),
        (lambda: regret_per_preference([[1.0, np.nan]], [[1.0, 2.0]], [[1.0, 0.0]]), "points"),
        (lambda: sweep_regret([], [[1.0, 0.0]], [[1.0, 2.0]]), "reference_front"),
        (lambda: sweep_regret([[1.0, 2.0]], [], []), "weights"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0, 0.0]], [[1.0, 2.0]]), "weights"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0]], [[1.0, 2.0, 3.0]]), "returns"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0]] * 2, [[1.0, 2.0]]), "returns"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0]], [[1.0, 2.0]] * 3), "returns"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0]], [1.0, 2.0]), "returns"),
        (lambda: sweep_regret([[1.0, 2.0]], [[1.0, 0.0]], [[1.0, math.inf]]), "returns"),
    ],
)
def test_regret_bad_input_names_the_argument(call: Any, name: str) -> None:
    with pytest.raises(ParetoscopeError, match=name):
        call()
