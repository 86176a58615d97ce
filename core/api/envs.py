"""The environments: `list_envs`, `make_env`, `get_spec` (the library's own registry).

`make_env` and `get_spec` are `paretoscope.envs`' functions themselves, not wrappers: an
unknown id raises `ParetoscopeError` naming the closest registered ids.
"""

from __future__ import annotations

from paretoscope.envs import get_spec, list_ids, make_env

__all__ = ["get_spec", "list_envs", "make_env"]


def list_envs() -> list[str]:
    """The registered environment ids, in registration order (D4MORL tasks first).

    Returns
    -------
    list of str
        Every id `make_env` and `get_spec` accept (``paretoscope envs`` prints them too).
    """
    return list_ids()
