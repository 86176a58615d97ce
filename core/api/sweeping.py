"""`sweep`: an agent rolled out over a grid of preferences, as a table and its front's metrics.

The rows are `paretoscope.evaluate.sweep`'s, called as ``paretoscope evaluate`` calls it, and
the summary is `paretoscope.evaluate.summary_record`, what ``paretoscope evaluate --json``
prints: a notebook and the command line give the same numbers for the same settings.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paretoscope.api.agents import AgentSource, resolve_agent
from paretoscope.api.arguments import count, integer
from paretoscope.settings import SweepSettings
from paretoscope.text import number

if TYPE_CHECKING:
    import pandas as pd

    from paretoscope.agents.base import Agent
    from paretoscope.results_store import ResultsStore

__all__ = ["Sweep", "sweep"]

# `Sweep.summary`'s keys, in the order they are shown; the last two only for an env with a
# known front at the sweep's gamma.
_SUMMARY_KEYS = ("hypervolume", "sparsity", "cardinality", "expected_utility", "reference_point")
_KNOWN_FRONT_KEYS = ("igd", "maximum_utility_loss")


@dataclass(frozen=True, eq=False)
class Sweep:
    """One sweep's episodes and the metrics of their front.

    Attributes
    ----------
    env : str
        The environment id.
    agent : str
        The agent's name in the table (a path's last part, or kind and fingerprint).
    table : pandas.DataFrame
        One row per episode, the rows ``paretoscope evaluate`` stores: agent, env, seed,
        horizon, gamma, ``preference_*``, ``target_*``, ``return_*`` (discounted by gamma),
        length, terminated, diverged, wall_time, episode_key.
    summary : dict
        ``hypervolume`` (of the mean return per preference, against ``reference_point``),
        ``sparsity``, ``cardinality``, ``expected_utility`` (None when not finite) and
        ``reference_point``; where the env has a known Pareto front, also ``igd`` and
        ``maximum_utility_loss`` against it.
    """

    env: str
    agent: str
    table: pd.DataFrame
    summary: Mapping[str, Any]

    def __repr__(self) -> str:
        metrics = ", ".join(f"{key}={_shown(value)}" for key, value in self.summary.items())
        return f"Sweep(env={self.env!r}, agent={self.agent!r}, rows={len(self.table)}, {metrics})"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(key.replace('_', ' '))}</th>"
            f"<td style='text-align:right'>{html.escape(_shown(value))}</td></tr>"
            for key, value in self.summary.items()
        )
        title = (
            f"Sweep of {html.escape(self.agent)} on {html.escape(self.env)}: "
            f"{len(self.table)} episodes"
        )
        attributes = "(<code>.table</code>, <code>.summary</code>)"
        return f"<div><p><b>{title}</b> {attributes}</p><table>{rows}</table></div>"


def _shown(value: Any) -> str:
    """A summary value as the CLI prints it (`paretoscope.text.number`)."""
    if isinstance(value, list | tuple):
        return "(" + ", ".join(number(item, 6) for item in value) + ")"
    return number(value, 6)


def sweep(
    agent: Agent | AgentSource,
    env: str | None = None,
    granularity: int = 10,
    episodes: int = 3,
    gamma: float = 1.0,
    seed: int = 0,
    store: str | os.PathLike[str] | ResultsStore | None = None,
    backend: str = "local",
    *,
    progress: bool = True,
) -> Sweep:
    """Roll an agent out at every preference of a grid and measure the front it reaches.

    Parameters
    ----------
    agent : Agent, str or path
        An agent object, or anything `paretoscope.load_agent` accepts (a checkpoint, another
        tool's file, ``"random"``, ``"py:module:callable"``).
    env : str, optional
        The environment id; default the agent's own.
    granularity : int, default 10
        The grid: every preference whose weights are multiples of 1/granularity.
    episodes : int, default 3
        Episodes (seeds ``seed`` .. ``seed + episodes - 1``) per preference.
    gamma : float, default 1.0
        Discount of the returns, in (0, 1]; 1 is undiscounted.
    seed : int, default 0
        The first episode seed.
    store : str, path or ResultsStore, optional
        A results folder (as ``paretoscope evaluate --out``): episodes it holds are read
        instead of rolled out again, new ones are added to it.
    backend : {"local", "ray"}, default "local"
        Where the episodes run: local processes, or a Ray cluster (needs the ``ray`` extra).
    progress : bool, default True
        Show a progress bar (tqdm's notebook bar in Jupyter, a text bar elsewhere).

    Returns
    -------
    Sweep
        ``.table`` (one row per episode) and ``.summary`` (the front's metrics).

    Raises
    ------
    ParetoscopeError
        For an unknown env or backend, an agent that does not fit the env, bad settings
        (granularity or episodes below 1, gamma outside (0, 1]), or an agent that cannot be
        loaded.
    """
    from paretoscope.evaluate import summary_record
    from paretoscope.evaluate import sweep as sweep_table
    from paretoscope.results_store import ResultsStore

    settings = SweepSettings(
        granularity=count("granularity", granularity),
        episodes=count("episodes", episodes),
        gamma=gamma,
        seed=integer("seed", seed),
        backend=backend,  # type: ignore[arg-type]  # SweepSettings refuses an unknown one
    )
    loaded, env_id, name = resolve_agent(agent, env)
    if store is not None and not isinstance(store, ResultsStore):
        store = ResultsStore(Path(store))
    table = sweep_table(loaded, env_id, settings, store=store, agent_id=name, progress=progress)
    record = summary_record(table, env_id)
    summary: dict[str, Any] = {key: record[key] for key in _SUMMARY_KEYS}
    summary["reference_point"] = tuple(summary["reference_point"])
    known = record.get("known_front")
    if isinstance(known, dict):
        summary.update({key: known[key] for key in _KNOWN_FRONT_KEYS})
    return Sweep(env=env_id, agent=str(record["agent"]), table=table, summary=summary)
