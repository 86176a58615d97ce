"""Sweeping every snapshot of a run.

`sweep_run` runs `paretoscope.evaluate.sweep` on each snapshot in turn (the same settings:
grid, seeds, horizon and discount), so everything a sweep does holds here too: episodes go to
the results store as they finish, a rerun computes only what is missing, batches run on local
processes or Ray. Each snapshot is its own agent in the store (its fingerprint differs), and
the table and the store gain a ``step`` column (the snapshot's training step). A snapshot that
fails to load is left out with a notice; one whose network differs from the others stops the
sweep naming it (a folder mixing two experiments).
Its fronts and metrics step by step: `paretoscope.runs.fronts`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from paretoscope.errors import ParetoscopeError
from paretoscope.runs.fronts import STEP_COLUMN
from paretoscope.runs.run import RunNotice, Snapshot, TrainingRun
from paretoscope.settings import SweepSettings

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.agents.importers import ImportAnswers
    from paretoscope.results_store import ResultsStore


@dataclass
class RunSweep:
    """Every snapshot's episodes (one row each, with its ``step``) and what was left out."""

    table: pd.DataFrame
    notices: list[RunNotice] = field(default_factory=list)

    @property
    def steps(self) -> list[int]:
        if len(self.table) == 0:
            return []
        return sorted(int(step) for step in self.table[STEP_COLUMN].unique())


def snapshot_agent_id(run: TrainingRun, snapshot: Snapshot) -> str:
    """The name a snapshot's episodes carry in the `agent` column."""
    return f"{run.name}@{snapshot.label}"


def tensor_shapes(agent: Agent) -> dict[str, tuple[int, ...]] | None:
    """The shapes of the agent's weights (None for agents that do not expose them)."""
    tensors: Any = None
    if callable(getattr(agent, "checkpoint_tensors", None)):
        tensors = agent.checkpoint_tensors()  # type: ignore[attr-defined]
    elif callable(getattr(agent, "checkpoint_state", None)):
        tensors = agent.checkpoint_state()[1]  # type: ignore[attr-defined]
    if not isinstance(tensors, dict):
        return None
    return {name: tuple(int(n) for n in value.shape) for name, value in tensors.items()}


def sweep_run(
    run: TrainingRun,
    env_id: str,
    settings: SweepSettings | None = None,
    *,
    store: ResultsStore | None = None,
    answers: ImportAnswers | None = None,
    device: str = "cpu",
    progress: bool = True,
    steps: Sequence[int] | None = None,
) -> RunSweep:
    """Sweep each snapshot of `run` (only `steps` when given) with the same `settings`
    (`paretoscope.evaluate.sweep`'s); see the module docstring."""
    from paretoscope.evaluate import sweep

    settings = settings or SweepSettings()
    chosen = run.snapshots if steps is None else tuple(run.snapshot(step) for step in steps)
    notices = list(run.notices)
    if not chosen:
        raise ParetoscopeError(f"run {run.root}: no snapshot to sweep")
    n_episodes = _episode_count(env_id, settings)
    # One snapshot's episodes are a batch or two: split them so every worker has a share.
    if settings.backend == "local":
        worker_count = (os.cpu_count() or 1) if settings.workers is None else settings.workers
        per_snapshot_batch = max(1, min(settings.batch_size, math.ceil(n_episodes / worker_count)))
        settings = replace(settings, batch_size=per_snapshot_batch)
    tables: list[pd.DataFrame] = []
    reference: tuple[Snapshot, dict[str, tuple[int, ...]]] | None = None
    bar = tqdm(
        total=len(chosen) * n_episodes,
        desc=f"run {run.name}",
        unit="episode",
        disable=not progress,
        dynamic_ncols=True,
    )
    with bar:
        for snapshot in chosen:
            bar.set_postfix_str(snapshot.label)
            try:
                agent = run.load(snapshot, answers, device)
            except ParetoscopeError as error:
                notices.append(RunNotice(snapshot.path, f"skipped: {error}"))
                bar.update(n_episodes)
                continue
            reference = _check_same_network(run, snapshot, agent, reference)
            table = sweep(
                agent,
                env_id,
                settings,
                store=store,
                agent_id=snapshot_agent_id(run, snapshot),
                progress=False,
                step=snapshot.step,  # stored with the episodes too
            )
            tables.append(table)
            bar.update(n_episodes)
    if not tables:
        left_out = "; ".join(str(notice) for notice in notices)
        raise ParetoscopeError(f"run {run.root}: no snapshot could be evaluated ({left_out})")
    return RunSweep(pd.concat(tables, ignore_index=True), notices)


def _episode_count(env_id: str, settings: SweepSettings) -> int:
    from paretoscope.envs import get_spec
    from paretoscope.metrics import preference_grid

    n_seeds = len(settings.episode_seeds)
    if settings.preferences is not None:
        return len(np.atleast_2d(np.asarray(settings.preferences))) * n_seeds
    assert settings.grid is not None
    return len(preference_grid(get_spec(env_id).n_obj, settings.grid)) * n_seeds


def _check_same_network(
    run: TrainingRun,
    snapshot: Snapshot,
    agent: Agent,
    reference: tuple[Snapshot, dict[str, tuple[int, ...]]] | None,
) -> tuple[Snapshot, dict[str, tuple[int, ...]]] | None:
    """The first snapshot's weight shapes; raises naming `snapshot` when its differ."""
    shapes = tensor_shapes(agent)
    if shapes is None:
        return reference
    if reference is None:
        return snapshot, shapes
    first, expected = reference
    if shapes != expected:
        changed = sorted(
            name for name in set(shapes) | set(expected) if shapes.get(name) != expected.get(name)
        )
        detail = ", ".join(
            f"{name} {shapes.get(name, 'absent')} vs {expected.get(name, 'absent')}"
            for name in changed[:3]
        )
        raise ParetoscopeError(
            f"run {run.root} mixes architectures: {snapshot.label} ({snapshot.path}) has other "
            f"weight shapes than {first.label} ({detail}); move the odd snapshot out of the "
            "folder or evaluate it on its own"
        )
    return reference
