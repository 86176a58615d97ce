"""What a report says about each agent: its sweep's summary (`paretoscope evaluate --json`'s
record), the seed-bootstrap intervals, its mean front, the known front's indicators and RTG
following. Numbers only: the page (`paretoscope.report.page`) writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from paretoscope.agents.base import Agent
from paretoscope.envs.known_fronts import AgainstKnown, against_known
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import summarize, summary_record
from paretoscope.metrics import Interval, RtgFollowing, bootstrap_front_metrics
from paretoscope.sweeps import mean_per_preference, objective_arrays


@dataclass(frozen=True)
class ReportAgent:
    """One agent's stored episodes on the report's env (one discount), and what else the report
    can show of it: `agent` (the loaded agent) to record its episodes as videos, `location`
    (its checkpoint) for the command that reproduces the sweep. `name` is the store's."""

    name: str
    table: pd.DataFrame
    agent: Agent | None = None
    location: str | None = None
    label: str | None = None

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Findings:
    """One agent measured: `record` is `paretoscope.evaluate.summary_record` of its episodes
    (what `paretoscope evaluate --json` prints), `intervals` the seed-bootstrap intervals of
    hypervolume and expected utility (None with one seed), `front` the mean returns per
    preference (`paretoscope.sweeps.mean_per_preference`)."""

    agent: ReportAgent
    record: dict[str, Any]
    intervals: dict[str, Interval] | None
    front: dict[str, np.ndarray]
    against: AgainstKnown | None
    rtg: RtgFollowing | None

    @property
    def seeds(self) -> list[int]:
        return [int(seed) for seed in self.record["seeds"]]

    @property
    def fingerprints(self) -> list[str]:
        table = self.agent.table
        if "agent_fingerprint" not in table:
            return []
        return sorted({str(value) for value in table["agent_fingerprint"].dropna()})

    @property
    def horizon(self) -> int | None:
        table = self.agent.table
        if "horizon" not in table or table["horizon"].isna().all():
            return None
        return int(table["horizon"].max())


def measure(agent: ReportAgent, env_id: str) -> Findings:
    """`agent`'s sweep summarised as `paretoscope evaluate` and the Compare page do."""
    table = agent.table
    if len(table) == 0:
        raise ParetoscopeError(f"agent {agent.name!r}: no stored episodes on {env_id}")
    summary = summarize(table, env_id)
    record = summary_record(table, env_id)
    episodes = objective_arrays(table, env_id)
    intervals = None
    if len(np.unique(episodes["seeds"])) > 1:
        # The Compare page's intervals: 95 %, 1000 resamples of the seeds, random seed 0.
        intervals = bootstrap_front_metrics(
            episodes["preferences"],
            episodes["returns"],
            episodes["seeds"],
            record["reference_point"],
        )
    front = mean_per_preference(table, env_id)
    against = against_known(env_id, summary.gamma, front["returns"], front["preferences"])
    return Findings(agent, record, intervals, front, against, summary.rtg)
