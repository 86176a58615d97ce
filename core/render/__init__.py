"""Offscreen rendering of rollouts: GL backend choice, the renderer and frame streams, and
frames of envs that draw themselves (`paretoscope.render.env_frames`).

Importing this package does not import mujoco, so an entry point can call
``paretoscope.render.ensure_gl_backend()`` before anything else does (see
`paretoscope.render.backend`);
the other names load their modules on first use. Encoding lives in `paretoscope.video`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from paretoscope.render.backend import RenderingUnavailable, ensure_gl_backend

if TYPE_CHECKING:
    from paretoscope.envs.render_modes import env_id_renders_rgb, renders_rgb
    from paretoscope.render.env_frames import EnvFrames, fit_frame, text_frame
    from paretoscope.render.frames import (
        FrameRecord,
        caption_lines,
        side_by_side,
        stream_frames,
    )
    from paretoscope.render.playback import (
        MAX_FPS,
        MIN_SECONDS,
        default_every,
        playback_fps,
        playback_speed,
        speed_words,
    )
    from paretoscope.render.renderer import DEFAULT_SIZE, FrameRenderer

_LAZY_NAMES = {
    "EnvFrames": "paretoscope.render.env_frames",
    "env_id_renders_rgb": "paretoscope.envs.render_modes",
    "fit_frame": "paretoscope.render.env_frames",
    "renders_rgb": "paretoscope.envs.render_modes",
    "text_frame": "paretoscope.render.env_frames",
    "DEFAULT_SIZE": "paretoscope.render.renderer",
    "FrameRenderer": "paretoscope.render.renderer",
    "FrameRecord": "paretoscope.render.frames",
    "caption_lines": "paretoscope.render.frames",
    "MAX_FPS": "paretoscope.render.playback",
    "MIN_SECONDS": "paretoscope.render.playback",
    "default_every": "paretoscope.render.playback",
    "playback_fps": "paretoscope.render.playback",
    "playback_speed": "paretoscope.render.playback",
    "speed_words": "paretoscope.render.playback",
    "side_by_side": "paretoscope.render.frames",
    "stream_frames": "paretoscope.render.frames",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module 'paretoscope.render' has no attribute {name!r}")
    return getattr(importlib.import_module(module_name), name)


__all__ = [
    "DEFAULT_SIZE",
    "EnvFrames",
    "FrameRecord",
    "FrameRenderer",
    "MAX_FPS",
    "MIN_SECONDS",
    "RenderingUnavailable",
    "caption_lines",
    "default_every",
    "ensure_gl_backend",
    "env_id_renders_rgb",
    "fit_frame",
    "playback_fps",
    "playback_speed",
    "renders_rgb",
    "side_by_side",
    "speed_words",
    "stream_frames",
    "text_frame",
]
