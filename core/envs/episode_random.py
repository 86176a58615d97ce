"""Episodes fixed by their seed, for envs that draw from numpy's global generator.

`reset(seed=s)` seeds an env's own generator; minecart also draws from numpy's global one: its
ore comes from scipy frozen distributions (`rvs()` defaults to the global generator), and it
draws while it is built and when it first draws itself (sprite rotations, which minecart-rgb's
observations show). Left alone, an episode would depend on what ran before it in the process.

paretoscope gives each such episode generators of its own, seeded by the episode seed: the
ore distributions get a `RandomState(seed)` (nothing to swap per step), and `reset` runs with
numpy's global generator seeded by the episode seed. The caller's global state is restored
after every call; a lock keeps rollouts in other threads out meanwhile.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

GLOBAL_NUMPY_DRAWS = "draws_from_global_numpy"  # the EnvSpec.extra flag of such envs
_LOCK = threading.Lock()


@contextlib.contextmanager
def global_numpy_random(seed: int | None = None) -> Iterator[None]:
    """Numpy's global generator seeded by `seed` (None: left as it is) while the block runs;
    as the caller left it afterwards."""
    with _LOCK:
        outside = np.random.get_state()
        try:
            if seed is not None:
                np.random.seed(int(seed) % 2**32)
            yield
        finally:
            np.random.set_state(outside)


def seed_ore(env: Any, seed: int) -> None:
    """Minecart's ore distributions draw from a generator seeded by the episode seed."""
    generator = np.random.RandomState(int(seed) % 2**32)
    for mine in getattr(env.unwrapped, "mines", ()):
        for distribution in mine.distributions:
            distribution.random_state = generator
