"""Tables of the dashboard: the Compare page's metrics table with the best value per column.

Pure functions on pandas; the page shows the styled table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.catalog import AgentAsset
from core.metrics import RtgFollowing, front_summary

# Column -> whether larger is better.
METRIC_COLUMNS: dict[str, bool] = {
    "hypervolume": True,
    "sparsity": False,
    "cardinality": True,
    "expected utility": True,
    "RTG weighted error": False,
    "RTG ratio error": False,
}
BEST_STYLE = "background-color: rgba(44, 160, 44, 0.25); font-weight: bold"


@dataclass(frozen=True)
class AgentMetrics:
    """What the metrics table shows for one agent."""

    name: str
    returns: np.ndarray  # (N, n_obj) per-preference mean returns
    preferences: np.ndarray  # (N, n_obj)
    rtg: RtgFollowing | None = None


def metrics_table(
    agents: Sequence[AgentMetrics],
    reference_point: Sequence[float],
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per agent: hypervolume, sparsity, cardinality, expected utility (over `weights`,
    default each agent's own preferences) and the RTG-following errors (NaN where the agent is
    not return-conditioned)."""
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
    return pd.DataFrame(rows, columns=["agent", *METRIC_COLUMNS]).set_index("agent")


def best_per_column(
    table: pd.DataFrame, directions: Mapping[str, bool] = METRIC_COLUMNS
) -> pd.DataFrame:
    """A boolean frame like `table`: True where a value is the best of its column (ties all
    marked; NaN never best; a column with fewer than two defined values marks nothing)."""
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
    """`table` with the best value per column highlighted, numbers formatted to 4 digits."""
    marks = best_per_column(table)
    styler = table.style.apply(
        lambda column: [BEST_STYLE if marked else "" for marked in marks[column.name]],
        axis=0,
    )
    return styler.format(precision=4, na_rep="—")


def distinct_labels(agents: Sequence[AgentAsset]) -> dict[str, str]:
    """Each agent's label, with its name added where two agents share a label (the metrics
    table and the legend need one row and one entry per agent)."""
    counts = Counter(agent.label for agent in agents)
    return {
        agent.name: agent.label if counts[agent.label] == 1 else f"{agent.label} ({agent.name})"
        for agent in agents
    }
