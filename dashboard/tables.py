"""Tables of the dashboard: the Compare page's metrics table with the best value per column
(and, where seeds allow, bootstrapped confidence intervals beside hypervolume and expected
utility).

Pure functions on pandas; the page shows the styled table. One table ranks agents of one env
only (`paretoscope.mixing.one_env`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from paretoscope.catalog import AgentAsset
from paretoscope.metrics import Interval, RtgFollowing, compare_with_front, front_summary
from paretoscope.mixing import one_env
from paretoscope.text import MISSING, number

if TYPE_CHECKING:
    from paretoscope.envs.known_fronts import KnownFront

# Column -> whether larger is better.
METRIC_COLUMNS: dict[str, bool] = {
    "hypervolume": True,
    "sparsity": False,
    "cardinality": True,
    "expected utility": True,
    "RTG weighted error": False,
    "RTG ratio error": False,
}
# Columns against the env's known front (only when it has one); all: lower is better.
KNOWN_FRONT_COLUMNS: dict[str, bool] = {
    "IGD": False,
    "IGD+": False,
    "max utility loss": False,
    "mean regret": False,
}
# Metrics that can carry a bootstrapped interval across seeds (`AgentMetrics.intervals`).
INTERVAL_METRICS = ("hypervolume", "expected utility")
BEST_STYLE = "background-color: rgba(44, 160, 44, 0.25); font-weight: bold"


@dataclass(frozen=True)
class AgentMetrics:
    """What the metrics table shows for one agent (of `env_id`: one table, one env)."""

    name: str
    returns: np.ndarray  # (N, n_obj) per-preference mean returns
    preferences: np.ndarray  # (N, n_obj)
    rtg: RtgFollowing | None = None
    env_id: str = field(kw_only=True)
    # metric name -> bootstrapped interval across seeds; None: not measured (e.g. one seed).
    intervals: Mapping[str, Interval] | None = field(default=None, kw_only=True)


def interval_columns(level: float) -> dict[str, tuple[str, str]]:
    """Metric -> its (low, high) column names, e.g. "hypervolume 95% CI low"."""
    return {
        metric: (f"{metric} {level:.0%} CI low", f"{metric} {level:.0%} CI high")
        for metric in INTERVAL_METRICS
    }


def metrics_table(
    agents: Sequence[AgentMetrics],
    reference_point: Sequence[float],
    weights: np.ndarray | None = None,
    known_front: KnownFront | None = None,
) -> pd.DataFrame:
    """One row per agent: hypervolume, sparsity, cardinality, expected utility (over `weights`,
    default each agent's own preferences) and the RTG-following errors (NaN where the agent is
    not return-conditioned); with the env's `known_front`, IGD, IGD+, maximum utility loss
    and mean regret against it (each agent's own preferences). When an agent has `intervals`,
    each of hypervolume and expected utility gets "<metric> <level> CI low" / "... high"
    columns after it (NaN for agents without), never marked best.

    Agents of different envs (or a known front of another env) raise `ParetoscopeError`."""
    env_id = one_env([(agent.name, agent.env_id) for agent in agents], "metrics table")
    if known_front is not None and env_id is not None:
        one_env([("known front", known_front.env_id), ("the agents", env_id)], "metrics table")
    columns = [*METRIC_COLUMNS, *(KNOWN_FRONT_COLUMNS if known_front is not None else ())]
    levels = [
        interval.level
        for agent in agents
        if agent.intervals
        for interval in agent.intervals.values()
    ]
    bounds = interval_columns(levels[0]) if levels else {}
    for metric, pair in bounds.items():
        at = columns.index(metric) + 1
        columns[at:at] = list(pair)
    rows = []
    for agent in agents:
        summary = front_summary(
            agent.returns, reference_point, agent.preferences if weights is None else weights
        )
        rows.append(
            {
                "agent": agent.name,
                "hypervolume": summary.hypervolume,
                "sparsity": summary.sparsity,
                "cardinality": summary.cardinality,
                "expected utility": np.nan
                if summary.expected_utility is None
                else summary.expected_utility,
                "RTG weighted error": np.nan
                if agent.rtg is None
                else agent.rtg.overall_weighted_error,
                "RTG ratio error": np.nan if agent.rtg is None else agent.rtg.overall_ratio_error,
            }
        )
        for metric, (low, high) in bounds.items():
            interval = (agent.intervals or {}).get(metric)
            rows[-1][low] = np.nan if interval is None else interval.low
            rows[-1][high] = np.nan if interval is None else interval.high
        if known_front is not None:
            rows[-1].update(_against(agent, known_front))
    return pd.DataFrame(rows, columns=["agent", *columns]).set_index("agent")


def _against(agent: AgentMetrics, known_front: KnownFront) -> dict[str, float]:
    if len(agent.returns) == 0:
        return dict.fromkeys(KNOWN_FRONT_COLUMNS, np.nan)
    compared = compare_with_front(agent.returns, agent.preferences, known_front.points)
    return {
        "IGD": compared.igd,
        "IGD+": compared.igd_plus,
        "max utility loss": compared.maximum_utility_loss,
        "mean regret": compared.mean_regret,
    }


def best_per_column(
    table: pd.DataFrame, directions: Mapping[str, bool] | None = None
) -> pd.DataFrame:
    """A boolean frame like `table`: True where a value is the best of its column (ties all
    marked; NaN never best; a column with fewer than two defined values marks nothing)."""
    if directions is None:
        directions = {**METRIC_COLUMNS, **KNOWN_FRONT_COLUMNS}
    marks = pd.DataFrame(False, index=table.index, columns=table.columns)
    for column, larger_is_better in directions.items():
        if column not in table.columns:
            continue
        values = pd.to_numeric(table[column], errors="coerce")
        if values.notna().sum() < 2:
            continue
        best = values.max() if larger_is_better else values.min()
        marks[column] = np.isclose(values.to_numpy(dtype=float), best, rtol=1e-12, atol=0.0)
    return marks


def styled_metrics(table: pd.DataFrame) -> pd.io.formats.style.Styler:
    """`table` with the best value per column highlighted, its numbers written by the one
    formatter (`paretoscope.text.number`), "—" where a value is missing."""
    marks = best_per_column(table)
    styler = table.style.apply(
        lambda column: [BEST_STYLE if marked else "" for marked in marks[column.name]],
        axis=0,
    )
    return styler.format(number, na_rep=MISSING)


def distinct_labels(agents: Sequence[AgentAsset]) -> dict[str, str]:
    """Each agent's label, with its name added where two agents share a label (the metrics
    table and the legend need one row and one entry per agent)."""
    counts = Counter(agent.label for agent in agents)
    return {
        agent.name: agent.label if counts[agent.label] == 1 else f"{agent.label} ({agent.name})"
        for agent in agents
    }
