"""The Ray backend of `paretoscope.evaluate.sweep`: batches of episodes as Ray tasks.

The batches are exactly the local backend's, and each is evaluated by the same function
(`paretoscope.sweep_batch.evaluate_batch`), so the same seeds give the same table on both.
Connects to a running cluster by `address` (every node needs paretoscope installed), or starts
a local Ray instance for the sweep (`paretoscope.cluster.connect`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from paretoscope.agents.base import Agent
from paretoscope.cluster.connect import connect
from paretoscope.sweep_batch import SweepEpisode, evaluate_batch

if TYPE_CHECKING:
    import pandas as pd


def run_batches_on_ray(
    agent: Agent,
    env_id: str,
    batches: Sequence[list[SweepEpisode]],
    horizon: int,
    address: str | None = None,
    gamma: float = 1.0,
) -> Iterator[tuple[list[SweepEpisode], pd.DataFrame]]:
    """Yield (batch, rows) as each Ray task finishes."""
    ray, started_here = connect(address)
    try:
        remote_evaluate = ray.remote(evaluate_batch)
        agent_reference = ray.put(agent)
        pending = {
            remote_evaluate.remote(agent_reference, env_id, batch, horizon, gamma): batch
            for batch in batches
        }
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for reference in ready:
                yield pending.pop(reference), ray.get(reference)
    finally:
        if started_here:
            ray.shutdown()
