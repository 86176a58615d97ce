"""Closing one pygame-drawn env leaves every other env of the process drawing.

Each env shuts pygame down in its close(); `paretoscope.envs.pygame_sharing` makes that a
reference count. The truth checked: the env still open draws, after the other's close, the very
picture it drew of the same state before (and a picture, not a blank).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from paretoscope.envs.pygame_sharing import pygame_users
from paretoscope.envs.registry import make_env

# Every registered env that draws itself with pygame (MO-Gymnasium's grid worlds and minecart,
# Gymnasium's classic control and Box2D, highway-env). mo-highway-v0 is here for its close()
# (a bare pygame.quit()), not its pictures: headless, highway-env 1.10 draws all-black frames.
PYGAME_ENVS = [
    "deep-sea-treasure-v0",
    "fruit-tree-v0",
    "resource-gathering-v0",
    "four-room-v0",
    "breakable-bottles-v0",
    "water-reservoir-v0",
    "minecart-v0",
    "mo-mountaincar-v0",
    "mo-lunar-lander-v3",
]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def drawing(env_id: str):  # type: ignore[no-untyped-def]
    env = make_env(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render() is not None  # pygame started by this env
    return env


def assert_picture(frame: object) -> None:
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.dtype == np.uint8
    assert frame.reshape(-1, frame.shape[-1]).std(axis=0).max() > 0  # not one colour


def assert_draws_as_before(env, before: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    after = env.render()
    assert_picture(after)
    np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize("env_id", PYGAME_ENVS)
def test_closing_one_env_leaves_its_twin_drawing(env_id: str) -> None:
    closed, open_ = drawing(env_id), drawing(env_id)
    before = open_.render()
    closed.close()
    assert_draws_as_before(open_, before)
    open_.step(open_.action_space.sample())
    assert open_.render() is not None  # and it goes on drawing new states
    open_.close()


def test_closing_one_kind_of_env_leaves_another_kind_drawing() -> None:
    import pygame

    users = pygame_users()
    # Envs that pair their pygame.init() with a pygame.quit() in close() (minecart and four-room,
    # drawing rgb_array, never quit; fruit-tree has no close()).
    treasure, gathering, highway = (
        drawing(env_id)
        for env_id in ("deep-sea-treasure-v0", "resource-gathering-v0", "mo-highway-v0")
    )
    treasure_before = treasure.render()
    highway.close()  # highway-env quits pygame without a display.quit() first
    gathering.close()
    assert_draws_as_before(treasure, treasure_before)
    fresh = drawing("resource-gathering-v0")  # a new env draws too, beside the old one
    assert_picture(fresh.render())
    assert_draws_as_before(treasure, treasure_before)
    treasure.close()
    fresh.close()
    assert pygame_users() == users
    if users == 0:  # the last user gone: pygame really quit (nothing left initialised)
        assert not pygame.get_init()


class ScriptedAgent:
    """Plays `actions` (deep-sea-treasure: 1 down, 3 right), then repeats the last one."""

    def __init__(self, env_id: str, actions: Sequence[int]) -> None:
        from paretoscope.agents.base import AgentSpec, Conditioning
        from paretoscope.envs import get_spec

        self.actions = list(actions)
        self.spec = AgentSpec.for_env(
            get_spec(env_id), "policy_set", Conditioning(return_conditioned=False)
        )
        self.fingerprint = f"scripted-{env_id}-{self.actions}"
        self.calls = 0

    def reset(self, batch_size: int) -> None:
        self.calls = 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        action = self.actions[min(self.calls, len(self.actions) - 1)]
        self.calls += 1
        return np.full((len(observations), 1), action, dtype=np.float64)

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))


def colourful(tile: np.ndarray) -> bool:
    """Whether `tile` shows a picture: a "draws no picture" text frame is grey only."""
    rgb = tile.astype(int)
    return bool((np.abs(rgb[..., 0] - rgb[..., 2]) > 60).mean() > 0.05)


def test_compare_tiles_keep_drawing_after_one_episode_ends() -> None:
    """The issue's Compare case: one agent finds a treasure at step 3 (right, down, down: the
    8.2 in the second column) and its env is closed, while the other swims right to the
    horizon; every frame of the swimmer's tile stays a picture of the sea."""
    from paretoscope.recordings import SideBySideRequest

    diver = ScriptedAgent("deep-sea-treasure-v0", [3, 1, 1])
    swimmer = ScriptedAgent("deep-sea-treasure-v0", [3])
    request = SideBySideRequest(
        fingerprints=(diver.fingerprint, swimmer.fingerprint),
        labels=("down", "right"),
        env_id="deep-sea-treasure-v0",
        preference=(0.5, 0.5),
        seed=0,
        size=64,
        horizon=12,
        every=1,
        columns=2,
    )
    images: list[np.ndarray] = []
    recording = request.record([diver, swimmer], on_frame=lambda frame: images.append(frame.image))
    assert recording.frame_steps[0, -1] == 3  # the diver's episode ended on the treasure
    np.testing.assert_allclose(recording.returns[0], [8.2, -3.0])
    assert recording.frame_steps[1, -1] == 12  # the swimmer's went on to the horizon
    assert len(images) == 12
    for image in images:
        assert image is not None
        swimmer_tile = image[:, image.shape[1] - 64 :]
        assert colourful(swimmer_tile)
