"""Offscreen rendering of rollouts: GL backend choice, the renderer and frame streams, and
frames of envs that draw themselves (`core.render.env_frames`).

Importing this package does not import mujoco, so an entry point can call
``core.render.ensure_gl_backend()`` before anything else does (see `core.render.backend`);
the other names load their modules on first use. Encoding lives in `core.video`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from core.render.backend import RenderingUnavailable, ensure_gl_backend

if TYPE_CHECKING:
    from core.render.env_frames import (
        EnvFrames,
        env_id_renders_rgb,
        fit_frame,
        renders_rgb,
        text_frame,
    )
    from core.render.frames import (
        FrameRecord,
        caption_lines,
        default_every,
        playback_fps,
        side_by_side,
        stream_frames,
    )
    from core.render.renderer import DEFAULT_SIZE, FrameRenderer

_LAZY_NAMES = {
    "EnvFrames": "core.render.env_frames",
    "env_id_renders_rgb": "core.render.env_frames",
    "fit_frame": "core.render.env_frames",
    "renders_rgb": "core.render.env_frames",
    "text_frame": "core.render.env_frames",
    "DEFAULT_SIZE": "core.render.renderer",
    "FrameRenderer": "core.render.renderer",
    "FrameRecord": "core.render.frames",
    "caption_lines": "core.render.frames",
    "default_every": "core.render.frames",
    "playback_fps": "core.render.frames",
    "side_by_side": "core.render.frames",
    "stream_frames": "core.render.frames",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module 'core.render' has no attribute {name!r}")
    return getattr(importlib.import_module(module_name), name)


__all__ = [
    "DEFAULT_SIZE",
    "EnvFrames",
    "FrameRecord",
    "FrameRenderer",
    "RenderingUnavailable",
    "caption_lines",
    "default_every",
    "ensure_gl_backend",
    "env_id_renders_rgb",
    "fit_frame",
    "playback_fps",
    "renders_rgb",
    "side_by_side",
    "stream_frames",
    "text_frame",
]
