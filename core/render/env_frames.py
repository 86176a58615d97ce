"""Frames of environments that draw themselves (MO-Gymnasium's grid worlds, classic control,
highway): each picture fitted to one fixed size, or a text frame for an env that draws nothing.

These envs render with their own ``env.render()`` (pygame, headless) when made with
``render_mode="rgb_array"``, at sizes of their own choosing (deep-sea-treasure 532x512,
fruit-tree 1200x270, mo-highway 600x150), and some draw nothing at all (fishwood-v0 offers only
"human" and its render returns None). Captions, tiling and H.264 need every frame of a stream
to be the same (height, width, 3) uint8 array, so `fit_frame` scales a picture to fit inside
the requested size, keeping its aspect ratio, and centres it on dark-grey bars.

`EnvFrames` wraps one env: while the env draws, its frames are its pictures fitted; if it was
not made to draw RGB frames, or its render returns None, raises a pygame, NotImplementedError
or missing-dependency error, or returns something that is not a picture, it is marked as not
drawing (the reason kept) and every frame from then on is a `text_frame` naming the env, the
reason and the caller's lines. A failed render is never retried, so a non-drawing env costs
nothing per step. Other errors (render before reset, a bug) are raised as they are.

This module does not import mujoco (nor `paretoscope.render.renderer`, which does): it is meant for
the envs that do not need it, and must not pick MuJoCo's GL backend by accident (see
`paretoscope.render.backend`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from paretoscope.envs.render_modes import renders_rgb
from paretoscope.errors import ParetoscopeError
from paretoscope.render.exiting import drawing
from paretoscope.render.size import DEFAULT_SIZE, MAX_SIDE, check_size
from paretoscope.video import ELLIPSIS, caption_font_size, fit_text, text_font

# Dark grey rather than black: the bars stay visible against black pictures (lunar lander's
# sky, minecart's mine) and against tile_videos' black gaps, so the picture's edge shows, and
# white captions stay legible on them.
BACKGROUND = (40, 40, 40)
TEXT_COLOUR = (230, 230, 230)
TEXT_MIN_FONT = 8


def _as_rgb(frame: np.ndarray) -> np.ndarray:
    """`frame` (grey, grey+1, RGB or RGBA; uint8, or float in [0, 1]) as (h, w, 3) uint8.

    Alpha is composited over BACKGROUND, so transparent parts look like the bars.
    """
    array = np.asarray(frame)
    shape_ok = array.ndim == 2 or (array.ndim == 3 and array.shape[2] in (1, 3, 4))
    if not shape_ok or array.shape[0] < 1 or array.shape[1] < 1:
        raise ParetoscopeError(
            f"frame: expected a (height, width), (height, width, 1), (height, width, 3) or "
            f"(height, width, 4) array, got shape {array.shape}"
        )
    if np.issubdtype(array.dtype, np.floating):
        if not np.isfinite(array).all() or array.min() < 0.0 or array.max() > 1.0:
            finite = array[np.isfinite(array)]
            seen = f"from {finite.min():g} to {finite.max():g}" if finite.size else "none finite"
            if finite.size < array.size:
                seen += ", and NaN or inf"
            raise ParetoscopeError(
                f"frame: expected float values in [0, 1], got shape {array.shape} with values "
                f"{seen}"
            )
        array = np.rint(array * 255.0).astype(np.uint8)
    elif array.dtype != np.uint8:
        raise ParetoscopeError(
            f"frame: expected uint8 or float values, got dtype {array.dtype} (shape {array.shape})"
        )
    if array.ndim == 2:
        array = array[:, :, None]
    if array.shape[2] == 1:
        return np.repeat(array, 3, axis=2)
    if array.shape[2] == 4:
        alpha = array[:, :, 3:].astype(np.uint16)
        background = np.array(BACKGROUND, np.uint16)
        blended = (array[:, :, :3] * alpha + background * (255 - alpha) + 127) // 255
        return blended.astype(np.uint8)
    return np.ascontiguousarray(array)


def fit_box(frame_size: tuple[int, int], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """(left, top, width, height) of a (width, height) `frame_size` picture scaled to fit
    inside `size` with its aspect ratio kept, centred (the bars split evenly, odd pixel last).
    """
    frame_width, frame_height = frame_size
    width, height = size
    scale = min(width / frame_width, height / frame_height)
    fitted_width = min(width, max(1, round(frame_width * scale)))
    fitted_height = min(height, max(1, round(frame_height * scale)))
    return (width - fitted_width) // 2, (height - fitted_height) // 2, fitted_width, fitted_height


# A picture whose aspect ratio is within this factor of the frame's keeps the frame's size.
NEAR_ASPECT = 1.25


def own_aspect_size(frame_size: tuple[int, int], size: tuple[int, int]) -> tuple[int, int]:
    """(width, height) with the aspect ratio of a (width, height) `frame_size` picture and
    about the area of `size`, each side even (H.264's) and within `check_size`'s limits:
    fruit-tree's 1200x270 picture at 320x320 is 674x152, not a 320x72 strip between bars.
    `size` itself where the picture's shape is near enough to it that its bars are thin
    (deep-sea-treasure's 532x512 in a square)."""
    frame_width, frame_height = frame_size
    width, height = check_size(size)
    aspect = frame_width / frame_height
    if max(aspect * height / width, width / (aspect * height)) <= NEAR_ASPECT:
        return width, height
    area = width * height

    def even(value: float) -> int:
        return int(min(MAX_SIDE, max(2, 2 * round(value / 2))))

    return even((area * aspect) ** 0.5), even((area / aspect) ** 0.5)


def fit_frame(frame: np.ndarray, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """`frame` scaled to fit inside `size` = (width, height), aspect ratio kept, centred on
    BACKGROUND bars: a new C-contiguous (height, width, 3) uint8 array, whatever came in.

    Shrinking uses Lanczos (sharp, and antialiased: thin grid lines do not flicker); enlarging
    uses bicubic, which rings less than Lanczos around the hard edges of grid-world pictures.
    """
    from PIL import Image

    width, height = check_size(size)
    rgb = _as_rgb(frame)
    left, top, fitted_width, fitted_height = fit_box((rgb.shape[1], rgb.shape[0]), (width, height))
    if (fitted_width, fitted_height) != (rgb.shape[1], rgb.shape[0]):
        shrinking = fitted_width < rgb.shape[1]
        method = Image.Resampling.LANCZOS if shrinking else Image.Resampling.BICUBIC
        rgb = np.asarray(Image.fromarray(rgb).resize((fitted_width, fitted_height), method))
    canvas = np.empty((height, width, 3), np.uint8)
    canvas[:] = BACKGROUND
    canvas[top : top + fitted_height, left : left + fitted_width] = rgb
    return canvas


def text_frame(lines: Sequence[str], size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """A BACKGROUND frame of `size` with `lines` written in its middle, each line centred.

    For an env that draws no picture: the frame still says what is happening. The text is
    twice the caption size (paretoscope.video's font), smaller if the widest line needs it but not
    below the caption size; lines too wide even then are cut (and do not shrink the others),
    and lines that do not fit below each other are dropped (an ellipsis line says so).
    """
    from PIL import Image, ImageDraw

    width, height = check_size(size)
    image = Image.new("RGB", (width, height), BACKGROUND)
    texts = [str(line).replace("\t", "  ") for line in lines]
    if not texts:
        return np.asarray(image).copy()
    margin = max(2, width // 20)
    usable = width - 2 * margin
    smallest = max(TEXT_MIN_FONT, caption_font_size(height))
    # A line too wide even in the smallest font is cut anyway: it does not shrink the rest.
    sizing = [text for text in texts if text_font(smallest).getlength(text) <= usable] or texts
    font_size = 2 * smallest
    font = text_font(font_size)
    while font_size > smallest and max(font.getlength(text) for text in sizing) > usable:
        font_size -= 1
        font = text_font(font_size)
    line_height = font_size + max(1, font_size // 4)
    room = max(1, (height - 2 * margin) // line_height)
    if len(texts) > room:
        texts = [*texts[: room - 1], ELLIPSIS] if room > 1 else [ELLIPSIS]
    texts = [fit_text(text, font, usable) for text in texts]
    draw = ImageDraw.Draw(image)
    top = (height - len(texts) * line_height) / 2
    for index, text in enumerate(texts):
        left = (width - font.getlength(text)) / 2
        draw.text((left, top + index * line_height), text, font=font, fill=TEXT_COLOUR)
    return np.asarray(image).copy()


def _render_errors() -> tuple[type[BaseException], ...]:
    """The errors by which an env says it cannot draw here (not: was called wrongly)."""
    from gymnasium.error import DependencyNotInstalled

    errors: tuple[type[BaseException], ...] = (NotImplementedError, DependencyNotInstalled)
    pygame = sys.modules.get("pygame")  # an env that raised pygame.error has imported pygame
    if pygame is not None and isinstance(getattr(pygame, "error", None), type):
        errors += (pygame.error,)
    return errors


def env_name(env: Any) -> str:
    """The registered id of `env` if it has one, else its class name (for the text frames)."""
    spec = getattr(env, "spec", None)
    if spec is not None and getattr(spec, "id", None):
        return str(spec.id)
    return type(getattr(env, "unwrapped", env)).__name__


class EnvFrames:
    """Frames of the current state of one gymnasium env, all exactly `size` = (width, height)
    (with `own_aspect`: all of the size fixed at the first picture, `own_aspect_size`).

    `frame(lines)` is the env's own picture, fitted, while the env draws; once it has failed
    to (see the module docstring) it is a text frame of "<env> draws no picture", the reason
    and `lines` (say the step and the observation), and render() is not called again.
    """

    def __init__(
        self, env: Any, size: tuple[int, int] = DEFAULT_SIZE, own_aspect: bool = False
    ) -> None:
        self.env = env
        self.size = check_size(size)
        # With `own_aspect`, the size is fixed at the first picture: its aspect ratio at about
        # the area of `size` (`own_aspect_size`), so that a wide picture is not a thin strip.
        self._size_open = own_aspect
        self.name = env_name(env)
        self.failure: str | None = None
        if not renders_rgb(env):
            modes = (getattr(env, "metadata", None) or {}).get("render_modes", ())
            mode = getattr(env, "render_mode", None)
            if "rgb_array" in modes:
                self.failure = f"made with render_mode={mode!r}, not 'rgb_array'"
            else:
                self.failure = f"its render modes are {list(modes)}"

    @property
    def draws(self) -> bool:
        """Whether the frames are still the env's pictures (False once render has failed)."""
        return self.failure is None

    def frame(self, lines: Sequence[str] = ()) -> np.ndarray:
        """A (height, width, 3) uint8 frame of the env now; `lines` are used only as text."""
        if self.failure is None:
            picture = self._render()
            if picture is not None:
                try:
                    if self._size_open:
                        rgb = _as_rgb(picture)
                        self.size = own_aspect_size((rgb.shape[1], rgb.shape[0]), self.size)
                        self._size_open = False
                    return fit_frame(picture, self.size)
                except ParetoscopeError as error:
                    self.failure = f"render() gave no picture: {error}"
        return text_frame([f"{self.name} draws no picture", f"({self.failure})", *lines], self.size)

    def _render(self) -> Any:
        """env.render(), or None after setting `failure` if the env cannot draw."""
        try:
            with drawing():  # some envs draw with OpenGL (MuJoCo's own renderer)
                picture = self.env.render()
        except _render_errors() as error:
            self.failure = f"render() raised {type(error).__name__}: {error}"
            return None
        if picture is None:
            self.failure = "render() returned None"
        return picture
