"""The guard against mixing environments: fronts of different env ids are never drawn on one
axes or ranked in one table.

Two ids are two tasks even when their names look alike: D4MORL's ``MO-HalfCheetah-v2`` (500
steps, its own reward terms) and MO-Gymnasium's ``mo-halfcheetah-v5`` (1000 steps) have
objectives of the same names and different scales, so a figure or table that put them
together would rank agents on numbers that do not compare. Whatever builds such a figure or
table calls `one_env` with what it was given.
"""

from __future__ import annotations

from collections.abc import Iterable

from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly


def one_env(entries: Iterable[tuple[str, str]], what: str = "fronts") -> str | None:
    """The env id that every (name, env id) entry shares; None when there is no entry.

    Raises `ParetoscopeError` naming each env and its entries when they differ: `what` says
    what was being built ("fronts", "the metrics table").
    """
    by_env: dict[str, list[str]] = {}
    for name, env_id in entries:
        if not isinstance(env_id, str) or not env_id:
            raise ParetoscopeError(
                f"{what}: {briefly(name)} has no environment id ({briefly(env_id)})"
            )
        by_env.setdefault(env_id, []).append(name)
    if len(by_env) > 1:
        listed = "; ".join(
            f"{env_id}: {', '.join(repr(name) for name in names[:5])}"
            + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            for env_id, names in by_env.items()
        )
        raise ParetoscopeError(
            f"{what}: entries of different environments cannot be drawn or ranked together "
            f"(different tasks, returns that do not compare): {listed}"
        )
    return next(iter(by_env), None)
