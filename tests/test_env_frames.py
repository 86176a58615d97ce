"""Frames of envs that draw themselves: fitting into one size, text frames, real MO-Gymnasium envs.

The fitted geometry is checked against boxes worked out by hand, and the real envs' frames
against a resize of the raw `env.render()` done here.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image

from paretoscope.envs.render_modes import env_id_renders_rgb, renders_rgb
from paretoscope.errors import ParetoscopeError
from paretoscope.render.env_frames import (
    BACKGROUND,
    EnvFrames,
    fit_frame,
    own_aspect_size,
    text_frame,
)

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

RED = (255, 0, 0)
BLUE = (0, 0, 255)


def two_colours(vertical: bool = False) -> np.ndarray:
    """A 2x1 picture (red left, blue right), or 1x2 (red top, blue bottom)."""
    frame = np.array([[RED, BLUE]], np.uint8)
    return np.ascontiguousarray(frame.transpose(1, 0, 2)) if vertical else frame


def is_colour(region: np.ndarray, colour: tuple[int, int, int], tolerance: int = 2) -> bool:
    return bool(np.abs(region.astype(int) - np.array(colour)).max() <= tolerance)


def content_box(frame: np.ndarray) -> tuple[int, int, int, int]:
    """(left, top, width, height) of the pixels that are not BACKGROUND."""
    rows, columns = np.nonzero((frame != np.array(BACKGROUND, np.uint8)).any(axis=2))
    return (
        int(columns.min()),
        int(rows.min()),
        int(columns.max() - columns.min() + 1),
        int(rows.max() - rows.min() + 1),
    )


def check_output(frame: np.ndarray, size: tuple[int, int]) -> None:
    assert frame.shape == (size[1], size[0], 3)
    assert frame.dtype == np.uint8
    assert frame.flags.c_contiguous


# --- fit_frame on hand-made frames ---------------------------------------------------------


def test_wide_picture_is_letterboxed_with_bars_where_computed() -> None:
    # 2x1 into 100x80: scale min(100/2, 80/1) = 50 -> 100x50, top bar (80 - 50) // 2 = 15 rows.
    frame = fit_frame(two_colours(), (100, 80))
    check_output(frame, (100, 80))
    assert is_colour(frame[:15], BACKGROUND, 0)
    assert is_colour(frame[65:], BACKGROUND, 0)
    assert is_colour(frame[15:65, :25], RED)  # the outer quarters are clear of the blend
    assert is_colour(frame[15:65, 75:], BLUE)
    assert content_box(frame) == (0, 15, 100, 50)


def test_tall_picture_is_pillarboxed_with_bars_where_computed() -> None:
    # 1x2 into 90x40: scale min(90/1, 40/2) = 20 -> 20x40, left bar (90 - 20) // 2 = 35 columns.
    frame = fit_frame(two_colours(vertical=True), (90, 40))
    check_output(frame, (90, 40))
    assert is_colour(frame[:, :35], BACKGROUND, 0)
    assert is_colour(frame[:, 55:], BACKGROUND, 0)
    assert is_colour(frame[:10, 35:55], RED)
    assert is_colour(frame[30:, 35:55], BLUE)
    assert content_box(frame) == (35, 0, 20, 40)


@pytest.mark.parametrize(
    ("picture", "size"),
    [((532, 512), (480, 480)), ((1200, 270), (481, 361)), ((7, 3), (101, 77)), ((3, 7), (33, 2))],
)
def test_aspect_ratio_kept_within_a_pixel_and_size_exact(
    picture: tuple[int, int], size: tuple[int, int]
) -> None:
    width, height = picture
    rng = np.random.default_rng(0)
    # Bright pixels only, so that the content box is every pixel that is not the bar colour.
    raw = rng.integers(120, 256, (height, width, 3), dtype=np.uint8)
    frame = fit_frame(raw, size)
    check_output(frame, size)
    left, top, fitted_width, fitted_height = content_box(frame)
    assert fitted_width == size[0] or fitted_height == size[1]  # touches one pair of sides
    assert abs(fitted_width / fitted_height - width / height) * fitted_height <= 1.0
    assert abs(left - (size[0] - left - fitted_width)) <= 1  # centred
    assert abs(top - (size[1] - top - fitted_height)) <= 1


def test_same_size_picture_is_unchanged() -> None:
    raw = np.random.default_rng(1).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    frame = fit_frame(raw[:, ::-1], (64, 48))  # a non-contiguous view comes out contiguous
    check_output(frame, (64, 48))
    np.testing.assert_array_equal(frame, raw[:, ::-1])


def test_float_grey_and_rgba_pictures() -> None:
    floats = np.zeros((4, 4, 3))
    floats[:, :2] = (1.0, 0.0, 0.0)
    floats[:, 2:] = (0.0, 0.0, 1.0)
    np.testing.assert_array_equal(
        fit_frame(floats, (4, 4)),
        fit_frame(np.array([[RED] * 2 + [BLUE] * 2] * 4, np.uint8), (4, 4)),
    )
    grey = np.full((4, 4), 200, np.uint8)
    assert is_colour(fit_frame(grey, (8, 8)), (200, 200, 200), 0)
    assert is_colour(fit_frame(grey[:, :, None].astype(np.float32) / 255, (4, 4)), (200,) * 3, 0)
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[0] = (255, 255, 255, 255)  # opaque white row; transparent row shows the bars
    out = fit_frame(rgba, (2, 2))
    assert is_colour(out[0], (255, 255, 255), 0)
    assert is_colour(out[1], BACKGROUND, 0)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((4, 4, 2), np.uint8),
        np.zeros((2, 4, 4, 3), np.uint8),
        np.zeros(5, np.uint8),
        np.zeros((0, 4, 3), np.uint8),
    ],
    ids=lambda array: str(array.shape),
)
def test_bad_shapes_are_refused_naming_the_shape(bad: np.ndarray) -> None:
    with pytest.raises(ParetoscopeError, match=rf"got shape \({bad.shape[0]},"):
        fit_frame(bad, (10, 10))


def test_bad_values_and_sizes_are_refused() -> None:
    with pytest.raises(ParetoscopeError, match=r"\[0, 1\].*from 2 to 2"):
        fit_frame(np.full((2, 2, 3), 2.0), (4, 4))
    with pytest.raises(ParetoscopeError, match="NaN"):
        fit_frame(np.full((2, 2, 3), np.nan), (4, 4))
    with pytest.raises(ParetoscopeError, match="dtype int64"):
        fit_frame(np.zeros((2, 2, 3), np.int64), (4, 4))
    with pytest.raises(ParetoscopeError, match="size"):
        fit_frame(two_colours(), (0, 10))
    with pytest.raises(ParetoscopeError, match="size"):
        fit_frame(two_colours(), "big")  # type: ignore[arg-type]


# --- text_frame ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(480, 480), (161, 91), (2, 2)])
def test_text_frame_has_the_size_and_writes_in_the_middle(size: tuple[int, int]) -> None:
    frame = text_frame(["fishwood-v0 draws no picture", "step 12", "obs " + "0.5 " * 100], size)
    check_output(frame, size)
    if size == (2, 2):
        return
    written = (frame != np.array(BACKGROUND, np.uint8)).any(axis=2)
    assert written.any()
    rows, columns = np.nonzero(written)
    assert abs((rows.min() + rows.max()) / 2 - size[1] / 2) < size[1] / 8
    assert abs((columns.min() + columns.max()) / 2 - size[0] / 2) < size[0] / 8


def test_text_frame_without_lines_is_plain_and_many_lines_fit() -> None:
    assert is_colour(text_frame([], (40, 30)), BACKGROUND, 0)
    check_output(text_frame([f"line {index}" for index in range(200)], (120, 60)), (120, 60))


# --- real envs -----------------------------------------------------------------------------


@pytest.fixture
def make() -> Iterator[Any]:
    import mo_gymnasium

    envs: list[Any] = []

    def build(env_id: str, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gymnasium's precision and render-mode warnings
            env = mo_gymnasium.make(env_id, **kwargs)
            env.reset(seed=0)
        envs.append(env)
        return env

    yield build
    for env in envs:
        env.close()


def test_deep_sea_treasure_frame_is_its_picture_resized(make: Any) -> None:
    env = make("deep-sea-treasure-v0", render_mode="rgb_array")
    raw = env.render()
    assert raw.shape == (512, 532, 3)
    frames = EnvFrames(env, (480, 480))
    frame = frames.frame(["step 0"])
    check_output(frame, (480, 480))
    assert frames.draws
    # 532x512 into 480x480: scale 480/532 -> 480 x round(512 * 480 / 532) = 462; top (480-462)//2.
    top = 9
    assert is_colour(frame[:top], BACKGROUND, 0)
    assert is_colour(frame[top + 462 :], BACKGROUND, 0)
    content = frame[top : top + 462].astype(int)
    same_filter = np.asarray(Image.fromarray(raw).resize((480, 462), Image.Resampling.LANCZOS))
    assert np.abs(content - same_filter).max() <= 1
    # Against a plain area average too: the filter is a fair resize, not just the same call.
    area = np.asarray(Image.fromarray(raw).resize((480, 462), Image.Resampling.BOX)).astype(int)
    assert np.abs(content - area).mean() < 4


def test_fishwood_gives_the_text_frame_without_rendering(make: Any) -> None:
    env = make("fishwood-v0", render_mode="rgb_array")
    assert not renders_rgb(env)
    frames = EnvFrames(env, (320, 240))
    assert not frames.draws and "human" in str(frames.failure)
    frame = frames.frame(["step 12", "obs [0]"])
    check_output(frame, (320, 240))
    expected = text_frame(
        ["fishwood-v0 draws no picture", f"({frames.failure})", "step 12", "obs [0]"], (320, 240)
    )
    np.testing.assert_array_equal(frame, expected)


def test_env_made_without_render_mode_gives_text(make: Any) -> None:
    frames = EnvFrames(make("deep-sea-treasure-v0"), (64, 64))
    assert not frames.draws and "render_mode=None" in str(frames.failure)
    check_output(frames.frame(), (64, 64))


@pytest.mark.parametrize(
    ("env_id", "raw_shape"), [("minecart-v0", (480, 480, 3)), ("fruit-tree-v0", (270, 1200, 3))]
)
def test_other_envs_come_out_at_the_requested_size(
    make: Any, env_id: str, raw_shape: tuple[int, int, int]
) -> None:
    env = make(env_id, render_mode="rgb_array")
    assert renders_rgb(env)
    assert env.render().shape == raw_shape
    frames = EnvFrames(env, (480, 360))
    check_output(frames.frame(), (480, 360))
    env.step(env.action_space.sample())
    check_output(frames.frame(), (480, 360))
    assert frames.draws


def test_own_aspect_size_keeps_the_picture_s_shape_at_about_the_box_s_area() -> None:
    # fruit-tree's 1200x270 in a 320x320 box: sqrt(320² * 1200/270) = 674.6 -> 674 wide,
    # sqrt(320² * 270/1200) = 151.8 -> 152 high (even sides).
    assert own_aspect_size((1200, 270), (320, 320)) == (674, 152)
    assert own_aspect_size((480, 480), (320, 240)) == (278, 278)  # sqrt(76800) = 277.1
    assert own_aspect_size((10, 4000), (4096, 4096))[1] == 4096  # never past MAX_SIDE
    # Near the box's shape (532/512 = 1.04, within 1.25): the box itself, thin bars.
    assert own_aspect_size((532, 512), (240, 240)) == (240, 240)
    assert own_aspect_size((600, 480), (320, 320)) == (320, 320)  # 1.25 exactly


def test_fruit_tree_keeps_its_aspect_ratio_with_no_bars(make: Any) -> None:
    env = make("fruit-tree-v0", render_mode="rgb_array")
    raw = env.render()
    assert raw.shape == (270, 1200, 3)
    frames = EnvFrames(env, (320, 320), own_aspect=True)
    first = frames.frame()
    check_output(first, (674, 152))
    # The picture fills the frame: 674/152 = 4.43 against 1200/270 = 4.44, and no bar rows or
    # columns (a letterbox in a square frame left 124 rows above and below a 320x72 strip).
    assert abs(first.shape[1] / first.shape[0] - 1200 / 270) < 0.02
    assert content_box(first) == (0, 0, 674, 152)
    same_filter = np.asarray(Image.fromarray(raw).resize((674, 152), Image.Resampling.LANCZOS))
    assert np.abs(first.astype(int) - same_filter).max() <= 1
    env.step(env.action_space.sample())
    check_output(frames.frame(), (674, 152))  # every later frame the same size


def test_stream_frames_of_fruit_tree_keep_its_aspect_ratio_and_a_tour_its_square() -> None:
    from paretoscope.agents.random_agent import RandomAgent
    from paretoscope.render.frames import stream_frames

    agent = RandomAgent("fruit-tree-v0")
    frames = list(stream_frames(agent, "fruit-tree-v0", [1 / 6] * 6, 0, size=(320, 320)))
    assert frames and {frame.frame.shape for frame in frames} == {(152, 674, 3)}
    square = next(
        stream_frames(agent, "fruit-tree-v0", [1 / 6] * 6, 0, size=(320, 320), env_aspect=False)
    )
    assert square.frame.shape == (320, 320, 3)


def test_env_id_renders_rgb() -> None:
    assert env_id_renders_rgb("deep-sea-treasure-v0")
    assert env_id_renders_rgb("minecart-v0")
    assert not env_id_renders_rgb("fishwood-v0")
    with pytest.raises(ParetoscopeError, match="no-such-env-v0"):
        env_id_renders_rgb("no-such-env-v0")


# --- failures are decided once --------------------------------------------------------------


class FakeEnv:
    """A minimal env whose render gives `result` (an exception is raised), counting calls."""

    metadata = {"render_modes": ["rgb_array"]}
    render_mode = "rgb_array"
    spec = None

    def __init__(self, result: Any) -> None:
        self.result = result
        self.calls = 0

    def render(self) -> Any:
        self.calls += 1
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


def pygame_error() -> BaseException:
    import pygame

    return pygame.error("no video device")


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (None, "returned None"),
        (NotImplementedError("nope"), "NotImplementedError: nope"),
        ("pygame", "error: no video device"),
        ("some text", "gave no picture"),
    ],
    ids=["None", "NotImplementedError", "pygame.error", "not-a-picture"],
)
def test_a_failing_render_is_tried_once(result: Any, reason: str) -> None:
    env = FakeEnv(pygame_error() if result == "pygame" else result)
    frames = EnvFrames(env, (50, 40))
    for _ in range(3):
        check_output(frames.frame(["step"]), (50, 40))
    assert env.calls == 1
    assert not frames.draws and reason in str(frames.failure)
    assert frames.name == "FakeEnv"  # no spec: the class name heads the text


def test_other_render_errors_are_raised() -> None:
    frames = EnvFrames(FakeEnv(RuntimeError("a bug")), (50, 40))
    with pytest.raises(RuntimeError, match="a bug"):
        frames.frame()
    assert frames.draws  # not mistaken for an env that cannot draw


def test_exported_from_core_render() -> None:
    import paretoscope.render

    assert paretoscope.render.fit_frame is fit_frame
    assert paretoscope.render.EnvFrames is EnvFrames
