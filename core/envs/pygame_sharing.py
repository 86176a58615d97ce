"""One pygame for every env of the process: closing an env quits pygame only for the last one.

Pygame is one library per process, yet every pygame-drawn env (MO-Gymnasium's grid worlds and
minecart, Gymnasium's classic control and Box2D, highway-env) calls `pygame.init()` when it
first draws and `pygame.quit()` (most also `pygame.display.quit()`) in its `close()`. Closing
one env would so shut pygame down for all the others of the process: their fonts and surfaces
die, and their next render raises "Library not initialized" (the Compare tile whose agent is
still playing, a tour's other stop, a pool worker's other jobs).

`share_pygame()` (idempotent, thread-safe) turns those calls into a reference count: each
`pygame.init()` is one user more, each `pygame.quit()` one user less, and pygame really quits
only when the last user quits (the display likewise, when at most the quitting user is left).
An env that never calls `close()` keeps pygame initialised, which costs nothing headless.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from typing import Any

_lock = threading.RLock()
_users = 0
_shared = False


def share_pygame() -> None:
    """Count pygame's users from now on (nothing to do when pygame is not installed)."""
    global _shared
    with _lock:
        if _shared or importlib.util.find_spec("pygame") is None:
            return
        import pygame

        _install(pygame)
        _shared = True


def pygame_users() -> int:
    """How many `pygame.init()` calls have not been matched by a `pygame.quit()` yet."""
    return _users


def _install(pygame: Any) -> None:
    real_init: Callable[[], Any] = pygame.init
    real_quit: Callable[[], None] = pygame.quit
    real_display_quit: Callable[[], None] = pygame.display.quit

    def init() -> Any:
        global _users
        with _lock:
            _users += 1
            return real_init()

    def quit() -> None:  # noqa: A001 (pygame's own name)
        global _users
        with _lock:
            _users = max(0, _users - 1)
            if _users == 0:
                real_quit()

    def display_quit() -> None:
        # Envs call it just before pygame.quit(), while they still count themselves.
        with _lock:
            if _users <= 1:
                real_display_quit()

    init.__doc__ = real_init.__doc__
    quit.__doc__ = real_quit.__doc__
    display_quit.__doc__ = real_display_quit.__doc__
    pygame.init = init
    pygame.quit = quit
    pygame.display.quit = display_quit
