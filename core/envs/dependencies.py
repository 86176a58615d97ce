"""`mo_gymnasium.make` with its missing-package failures turned into one clear message.

The default install brings every package MO-Gymnasium's tasks need (pygame, Box2D,
highway-env); a trimmed install, or a user-registered env, can still lack one. Gymnasium then
raises `DependencyNotInstalled` or a bare `ImportError` from deep inside the env: the message
here names the package to install and the env that wanted it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from paretoscope.envs.pygame_sharing import share_pygame
from paretoscope.errors import ParetoscopeError

if TYPE_CHECKING:
    import gymnasium as gym

# Python module -> the pip package that provides it (where the names differ).
_PACKAGE_OF_MODULE = {"Box2D": "box2d", "highway_env": "highway-env", "pygame": "pygame"}


class MissingDependency(ParetoscopeError):
    """An env needs a package that is not installed; the message names it."""


def mo_gymnasium_make(env_id: str, render_mode: str | None = None, **kwargs: Any) -> gym.Env:
    """`mo_gymnasium.make(env_id, ...)`, or a `MissingDependency` naming the package."""
    headless_pygame()
    share_pygame()
    try:
        import mo_gymnasium
        from gymnasium.error import DependencyNotInstalled
    except ImportError as error:
        raise MissingDependency(_message(env_id, error)) from None
    try:
        return mo_gymnasium.make(env_id, render_mode=render_mode, **kwargs)
    except (ImportError, DependencyNotInstalled) as error:
        raise MissingDependency(_message(env_id, error)) from None


def headless_pygame() -> None:
    """Pygame draws offscreen and stays quiet unless the user chose otherwise: servers and CI
    have no display and no sound card (ALSA would print its errors for every env)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def _message(env_id: str, error: BaseException) -> str:
    module = getattr(error, "name", None) or _module_named_in(str(error))
    package = _PACKAGE_OF_MODULE.get(module or "", module)
    if package:
        return (
            f"{env_id} needs the Python package {package!r}, which is not installed: "
            f"`pip install {package}` (or reinstall paretoscope, which depends on it)"
        )
    return f"{env_id} needs a package that is not installed: {error}"


def _module_named_in(text: str) -> str | None:
    """The package a gymnasium `DependencyNotInstalled` message names, if it names one we know."""
    lowered = text.lower()
    for module, package in _PACKAGE_OF_MODULE.items():
        if module.lower() in lowered or package in lowered:
            return module
    return None
