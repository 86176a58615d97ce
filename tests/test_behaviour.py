"""paretoscope.behaviour against definitions: the spread selection by brute force on small
fronts, descriptors of hand-made trajectories, seeded clustering, and the return difference of
two stored episodes against their own cumulative rewards."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from paretoscope.behaviour import (
    BodyTrack,
    Descriptors,
    EpisodeStates,
    cluster,
    describe,
    divergent_steps,
    embed,
    return_difference,
    spread_seeds,
    spread_selection,
    stride_frequency,
)
from paretoscope.behaviour.descriptors import BODY_DESCRIPTORS
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings import Recording, read_recording, write_recording

# --- spread selection: brute force from the definition -----------------------------------


def _dominated(points: np.ndarray, row: int) -> bool:
    return any(
        all(points[o] >= points[row]) and any(points[o] > points[row])
        for o in range(len(points))
        if o != row
    )


def _brute_spread(points: np.ndarray, count: int) -> list[int]:
    """Double loops: front scaling over the non-dominated rows, the knee (largest sum of scaled
    objectives), the best row of each objective, then farthest-point additions."""
    front = [r for r in range(len(points)) if not _dominated(points, r)]
    low = [min(points[r][j] for r in front) for j in range(points.shape[1])]
    high = [max(points[r][j] for r in front) for j in range(points.shape[1])]

    def scaled(r: int) -> list[float]:
        return [
            (points[r][j] - low[j]) / (high[j] - low[j]) if high[j] > low[j] else 0.0
            for j in range(points.shape[1])
        ]

    # Sums within 1e-12 of the largest tie (2/6 + 1 and 1/2 + 5/6 differ in their last bit):
    # the lowest row wins.
    largest = max(sum(scaled(r)) for r in front)
    knee = min(r for r in front if sum(scaled(r)) >= largest - 1e-12 * max(1.0, largest))
    chosen = [knee]
    for j in range(points.shape[1]):
        best = max(front, key=lambda r: (points[r][j], -r))
        if not any(list(points[best]) == list(points[c]) for c in chosen):
            chosen.append(best)
    chosen = chosen[:count]
    for pool in (front, [r for r in range(len(points)) if r not in front]):
        while len(chosen) < count:
            left = [
                r
                for r in pool
                if not any(list(points[r]) == list(points[c]) for c in chosen)
                and not any(list(points[r]) == list(points[q]) for q in pool if q < r)
            ]
            if not left:
                break

            def nearest(r: int) -> float:
                return min(
                    sum((a - b) ** 2 for a, b in zip(scaled(r), scaled(c), strict=True)) ** 0.5
                    for c in chosen
                )

            far = max(nearest(r) for r in left)
            chosen.append(min(r for r in left if nearest(r) >= far - 1e-12))
    return chosen


small_fronts = st.integers(2, 3).flatmap(
    lambda k: st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k), min_size=1, max_size=9)
)


@settings(max_examples=80, deadline=None)
@given(small_fronts, st.integers(1, 10))
@example([[0, 2, 6], [0, 3, 5], [0, 6, 0], [1, 0, 0]], 1)  # a knee tie up to rounding
def test_spread_selection_matches_brute_force(rows: list[list[int]], count: int) -> None:
    points = np.asarray(rows, dtype=np.float64)
    assert spread_selection(points, count).tolist() == _brute_spread(points, count)


def test_spread_selection_covers_a_front_better_than_any_other_choice_by_half() -> None:
    # Farthest-point sampling is a 2-approximation of the best covering: check it by brute
    # force over every subset of the front.
    angles = np.linspace(0, np.pi / 2, 12)
    points = np.stack([np.cos(angles) * 10, np.sin(angles)], axis=1)
    scaled = (points - points.min(0)) / np.ptp(points, axis=0)

    def radius(chosen: list[int] | np.ndarray) -> float:
        gaps = np.linalg.norm(scaled[:, None] - scaled[list(chosen)][None], axis=2)
        return float(gaps.min(axis=1).max())

    picked = spread_selection(points, 4)
    best = min(radius(list(subset)) for subset in itertools.combinations(range(12), 4))
    assert len(set(picked.tolist())) == 4
    assert radius(picked) <= 2 * best + 1e-12


def test_spread_starts_from_the_knee_and_the_extremes() -> None:
    points = np.array([[0.0, 10.0], [9.0, 9.0], [10.0, 0.0], [5.0, 5.0], [4.0, 8.0]])
    assert spread_seeds(points) == [1, 2, 0]
    assert spread_selection(points, 2).tolist() == [1, 2]
    with pytest.raises(ParetoscopeError, match="count"):
        spread_selection(points, 0)


# --- descriptors on hand-made trajectories ------------------------------------------------


def _track(steps: int = 200, dt: float = 0.05, speed: float = 2.0, hz: float = 2.0) -> BodyTrack:
    time = np.arange(steps) * dt
    wave = np.sin(2 * np.pi * hz * time)
    return BodyTrack(
        time=time,
        x=speed * time,
        height=0.5 + 0.1 * wave,
        pitch=np.full(steps, 0.2),
        joint_velocities=np.stack([3 * wave, -3 * wave], axis=1),
        contacts=np.where(np.arange(steps) % 2 == 0, 2, 0),
    )


def test_body_descriptors_of_a_hand_made_gait() -> None:
    episode = EpisodeStates(np.zeros((200, 3)), np.zeros((200, 2)), _track())
    values = dict(zip(describe([episode]).names, describe([episode]).values[0], strict=True))
    assert values["forward speed"] == pytest.approx(2.0)
    assert values["mean height"] == pytest.approx(0.5, abs=1e-3)
    assert values["height spread"] == pytest.approx(0.1 / np.sqrt(2), rel=1e-2)
    assert values["mean pitch"] == pytest.approx(0.2)
    assert values["pitch spread"] == pytest.approx(0.0)
    assert values["joint speed"] == pytest.approx(3 / np.sqrt(2), rel=1e-2)
    assert values["stride frequency"] == pytest.approx(2.0)
    assert values["contacts per step"] == pytest.approx(1.0)


def test_stride_frequency_of_a_still_body_is_zero() -> None:
    assert stride_frequency(np.ones((50, 2)), np.arange(50) * 0.1) == 0.0
    assert stride_frequency(np.zeros((50, 0)), np.arange(50) * 0.1) == 0.0


def test_state_visitation_histograms_for_an_env_without_a_body() -> None:
    # Entry 0 visits 0..3 evenly in episode a and stays at 0 in episode b; bins span 0..3.
    a = EpisodeStates(np.array([[0.0], [1.0], [2.0], [3.0]]), np.zeros((4, 1)))
    b = EpisodeStates(np.array([[0.0], [0.0], [0.0], [0.0]]), np.zeros((4, 1)))
    found = describe([a, b])
    assert found.values.tolist() == [[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]]
    assert found.names[0] == "time at obs[0] in 0..0.75"


# --- embedding and clustering -------------------------------------------------------------


def _two_gaits(seed: int) -> Descriptors:
    rng = np.random.default_rng(seed)
    fast = rng.normal([4.0, 0.5, 0.02, 0.3, 0.1, 6.0, 3.0, 1.0], 0.05, (6, 8))
    slow = rng.normal([0.5, 0.7, 0.02, -0.1, 0.1, 1.0, 3.0, 2.0], 0.05, (5, 8))
    return Descriptors(BODY_DESCRIPTORS, np.concatenate([fast, slow]))


def test_clustering_finds_the_two_gaits_reproducibly_and_names_them() -> None:
    descriptors = _two_gaits(1)
    first, again = cluster(descriptors, seed=7), cluster(descriptors, seed=7)
    assert first.labels.tolist() == again.labels.tolist() == [0] * 6 + [1] * 5
    assert first.names == again.names
    assert "fast" in first.names[0] and "slow" in first.names[1]
    assert first.silhouette == pytest.approx(_brute_silhouette(descriptors.values, first.labels))


def _brute_silhouette(values: np.ndarray, labels: np.ndarray) -> float:
    """Rousseeuw's silhouette with loops, on the z-scored descriptors."""
    z = (values - values.mean(0)) / values.std(0)
    scores = []
    for i in range(len(z)):

        def mean_gap(label: int, i: int = i) -> float:
            others = [j for j in range(len(z)) if labels[j] == label and j != i]
            return sum(float(np.linalg.norm(z[i] - z[j])) for j in others) / len(others)

        inside = mean_gap(labels[i])
        outside = min(mean_gap(c) for c in set(labels.tolist()) if c != labels[i])
        scores.append((outside - inside) / max(inside, outside))
    return sum(scores) / len(scores)


def test_embedding_keeps_the_gaits_apart_and_has_a_fixed_orientation() -> None:
    descriptors = _two_gaits(2)
    flat = embed(descriptors.values)
    assert flat.shape == (11, 2)
    assert np.sign(flat[:6, 0]).tolist() == [np.sign(flat[0, 0])] * 6
    assert np.sign(flat[6:, 0]).tolist() == [-np.sign(flat[0, 0])] * 5
    assert np.array_equal(flat, embed(descriptors.values))


def test_one_cluster_when_the_episodes_are_alike() -> None:
    same = Descriptors(BODY_DESCRIPTORS, np.ones((4, 8)))
    assert cluster(same).labels.tolist() == [0, 0, 0, 0]
    assert cluster(same).names == ("typical",)


# --- where two episodes differ ------------------------------------------------------------


def test_return_difference_is_the_difference_of_two_stored_cumulative_rewards(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(0)
    a_rewards, b_rewards = rng.normal(size=(1, 7, 2)), rng.normal(size=(1, 5, 2))
    steps_a, steps_b = np.arange(1, 8)[None] * 2, np.arange(1, 6)[None] * 2
    meta = {"every": 2}
    write_recording(tmp_path, "a", Recording(b"a", 10.0, ("a",), a_rewards, steps_a, meta))
    write_recording(tmp_path, "b", Recording(b"b", 10.0, ("b",), b_rewards, steps_b, meta))
    stored_a, stored_b = read_recording([tmp_path], "a"), read_recording([tmp_path], "b")
    assert stored_a is not None and stored_b is not None
    curve = return_difference(stored_a, stored_b)
    b_held = np.concatenate(
        [np.cumsum(b_rewards[0], 0), np.repeat(b_rewards[0].sum(0)[None], 2, 0)]
    )
    assert np.allclose(curve.difference, np.cumsum(a_rewards[0], 0) - b_held)
    assert curve.steps.tolist() == list(range(2, 16, 2))
    assert np.allclose(curve.difference[-1], a_rewards[0].sum(0) - b_rewards[0].sum(0))


def test_frames_at_are_the_videos_frames_at_or_after_each_step() -> None:
    """Frame i of a hand-made video is flat grey 20 * i; frame i shows step 3 * (i + 1)."""
    from paretoscope.behaviour.difference import frame_index, frames_at
    from paretoscope.video import encode_mp4

    count = 8
    video = encode_mp4((np.full((32, 48, 3), 20 * i, np.uint8) for i in range(count)), 10.0)
    steps = np.arange(1, count + 1)[None] * 3
    recording = Recording(video, 10.0, ("a",), np.zeros((1, count, 2)), steps, {"every": 3})
    asked = np.array([1, 3, 4, 24, 99])  # -> frames 0, 0, 1, 7, 7 (past the end: the last)
    assert [frame_index(recording, int(step)) for step in asked] == [0, 0, 1, 7, 7]
    frames = frames_at(recording, asked)
    assert [frame.shape for frame in frames] == [(32, 48, 3)] * len(asked)
    assert [round(float(frame.mean()) / 20) for frame in frames] == [0, 0, 1, 7, 7]
    with pytest.raises(ParetoscopeError, match="no video"):
        frames_at(Recording(b"", 10.0, ("a",), np.zeros((1, 2, 2)), steps[:, :2], {}), asked)


def test_divergent_steps_find_where_the_states_part() -> None:
    base = np.zeros((50, 2))
    other = base.copy()
    other[9] = [5.0, 0.0]  # step 10
    other[39] = [0.0, 3.0]  # step 40
    a, b = EpisodeStates(base, np.zeros((50, 1))), EpisodeStates(other, np.zeros((50, 1)))
    assert divergent_steps(a, b, count=2).tolist() == [10, 40]


def test_re_run_states_are_the_episode_the_rollout_gives() -> None:
    from paretoscope.agents.builtin import load_agent
    from paretoscope.behaviour import episode_states
    from paretoscope.rollout import rollout_batch

    env = "MO-HalfCheetah-v2"
    agent = load_agent(str(Path(__file__).parents[1] / "assets/agents/halfcheetah-behaviour"), env)
    states = episode_states(agent, env, [0.3, 0.7], seed=1, horizon=40)
    batch = rollout_batch(agent, env, np.array([[0.3, 0.7]]), [1], horizon=40)
    assert states.steps == 40 and states.body is not None
    assert np.allclose(states.rewards.sum(axis=0), batch.returns[0])
    assert states.body.joint_velocities.shape == (40, 6)  # the cheetah's six leg joints
    assert np.all(np.diff(states.body.time) > 0)
