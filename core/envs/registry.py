"""The one registry of environments and the one way to build them: `make_env(env_id)`.

Gymnasium style: `register(env_id, spec, make=...)` adds an id; `get_spec`, `list_specs` and
`make_env` read it. A spec may be given as a function that builds it, called the first time the
spec is asked for: MO-Gymnasium's classic tasks read their spaces from the env itself, and
building all forty envs at import would cost seconds nobody asked for.

What is registered by default (`paretoscope.envs.builtin`): the D4MORL tasks of the PEDA paper
(``MO-*-v2``, ``MO-Hopper-v3``: 500 steps, rebuilt on today's MuJoCo in `paretoscope.envs.d4morl`)
and
every MO-Gymnasium id but ``mo-supermario-v0`` (passed through `mo_gymnasium.make` unchanged).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paretoscope.envs.spec import EnvSpec, Family
from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry
from paretoscope.text import QUOTE_LIMIT, briefly, quoted

if TYPE_CHECKING:
    import gymnasium as gym

SpecSource = EnvSpec | Callable[[], EnvSpec]
EnvFactory = Callable[..., "gym.Env"]


@dataclass
class Registration:
    """One registered id: its family, its spec (or how to build it) and how to make the env."""

    env_id: str
    family: Family
    source: SpecSource
    make: EnvFactory | None  # None: `mo_gymnasium.make(env_id)`
    _spec: EnvSpec | None = None

    def spec(self) -> EnvSpec:
        if self._spec is None:
            with _lock:
                if self._spec is None:
                    built = self.source if isinstance(self.source, EnvSpec) else self.source()
                    if built.id != self.env_id or built.family != self.family:
                        raise ParetoscopeError(
                            f"register: the spec built for {self.env_id!r} ({self.family}) "
                            f"says {built.id!r} ({built.family})"
                        )
                    self._spec = built
        return self._spec


def _unknown_id_message(env_id: object, known: list[str]) -> str:
    # Known ids are short: a longer text is matched by its start (no quadratic matching).
    text = (env_id if isinstance(env_id, str) else str(env_id))[:QUOTE_LIMIT]
    close = difflib.get_close_matches(text, known, n=3, cutoff=0.5)
    if not close:  # case and separators are the usual slips: MO-HalfCheetah vs mo-halfcheetah
        folded = {name.lower().replace("_", "-"): name for name in known}
        close = difflib.get_close_matches(text.lower().replace("_", "-"), list(folded), n=3)
        close = [folded[name] for name in close]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return (
        f"unknown environment id {quoted(env_id)}{hint} (`paretoscope envs` lists all {len(known)})"
    )


REGISTRY: Registry[Registration] = Registry("environment", unknown=_unknown_id_message)
_lock = threading.RLock()


def register(
    env_id: str,
    spec: SpecSource,
    make: EnvFactory | None = None,
    family: Family | None = None,
    replace: bool = False,
) -> None:
    """Add `env_id` to the registry.

    `spec` is an `EnvSpec` or a function returning one (called once, when first needed; then
    `family` must be given). `make(render_mode=..., **kwargs)` builds the env; by default
    `mo_gymnasium.make(env_id, ...)`. An id registered twice is refused unless `replace`.
    """
    if not isinstance(env_id, str) or not env_id:
        raise ParetoscopeError(f"register: expected a non-empty id, got {briefly(env_id)}")
    if isinstance(spec, EnvSpec):
        family = spec.family
    elif family is None:
        raise ParetoscopeError(
            f"register: {briefly(env_id)} needs its family when the spec is lazy"
        )
    REGISTRY.register(env_id, Registration(env_id, family, spec, make), replace=replace)


def list_ids(family: Family | None = None) -> list[str]:
    """Registered ids (of one family), in registration order; builds no spec."""
    return [entry.env_id for entry in REGISTRY.values() if family in (None, entry.family)]


def list_specs(family: Family | None = None) -> list[EnvSpec]:
    """All registered specs (of one family), D4MORL first, in registration order."""
    return [entry.spec() for entry in REGISTRY.values() if family in (None, entry.family)]


def get_spec(env_id: str) -> EnvSpec:
    """The spec of `env_id`: its objectives and units, spaces, horizon, reference point.

    Parameters
    ----------
    env_id : str
        A registered environment id (`list_ids`; ``paretoscope.list_envs()``).

    Returns
    -------
    EnvSpec

    Raises
    ------
    ParetoscopeError
        For an unknown id, naming the closest registered ids.
    """
    return REGISTRY.get(env_id).spec()


def make_env(env_id: str, render_mode: str | None = None, **kwargs: Any) -> gym.Env:
    """Build the environment `env_id`: `step` returns a float32 reward vector of shape (n_obj,).

    Parameters
    ----------
    env_id : str
        A registered environment id (`list_ids`; ``paretoscope.list_envs()``).
    render_mode : str, optional
        Gymnasium's render mode (``"rgb_array"``, ...).
    **kwargs
        Passed to the env's constructor.

    Returns
    -------
    gymnasium.Env

    Raises
    ------
    ParetoscopeError
        For an unknown id, naming the closest registered ids.
    """
    from paretoscope.envs.dependencies import headless_pygame, mo_gymnasium_make
    from paretoscope.envs.pygame_sharing import share_pygame

    entry = REGISTRY.get(env_id)
    if entry.make is not None:
        headless_pygame()  # a registered env may draw with pygame too
        share_pygame()
        return entry.make(render_mode=render_mode, **kwargs)

    return mo_gymnasium_make(env_id, render_mode=render_mode, **kwargs)
