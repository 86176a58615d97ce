"""Whether an env draws RGB pictures itself (its render modes), told from a made env or from a
registered id without making one. The steppers ask it to choose how an episode is drawn;
`paretoscope.render.env_frames` asks it before calling `env.render()`.
"""

from __future__ import annotations

from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.text import quoted


def renders_rgb(env: Any) -> bool:
    """Whether `env` (a gymnasium env, wrapped or not) will return RGB pictures from render():
    its class lists "rgb_array" among its render modes and it was made with that mode.

    fishwood-v0 accepts render_mode="rgb_array" but lists only "human" (and returns None).
    """
    modes = (getattr(env, "metadata", None) or {}).get("render_modes", ())
    return "rgb_array" in modes and getattr(env, "render_mode", None) == "rgb_array"


def env_id_renders_rgb(env_id: str) -> bool:
    """Whether the registered gymnasium env `env_id` can draw RGB pictures at all, from its
    class's metadata (the class is imported, no env is made); an unknown id, or one whose
    module cannot be imported (a missing optional dependency), is a ParetoscopeError.
    """
    import gymnasium
    import mo_gymnasium  # noqa: F401 - registers the MO-Gymnasium ids
    from gymnasium.envs.registration import load_env_creator

    try:
        spec = gymnasium.spec(env_id)
    except gymnasium.error.Error as error:
        raise ParetoscopeError(
            f"unknown environment id {quoted(env_id)}: {quoted(str(error))}"
        ) from None
    entry_point = spec.entry_point
    try:
        creator = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    except ImportError as error:
        raise ParetoscopeError(f"{env_id}: cannot be loaded ({error})") from None
    modes = (getattr(creator, "metadata", None) or {}).get("render_modes", ())
    return "rgb_array" in modes
