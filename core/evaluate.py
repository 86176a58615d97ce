"""Preference sweeps: an agent rolled out over a grid of preferences (targets, seeds) -> a table.

`sweep` returns a pandas DataFrame with one row per episode:
agent, agent_fingerprint, env, seed, horizon, gamma, preference_<objective>, target_<objective>,
return_<objective> (discounted by gamma), length, terminated, diverged, wall_time, episode_key.
With a `ResultsStore`, episodes already stored are read instead of recomputed and each finished
batch is stored at once, so an interrupted sweep resumes with only what is missing.
"""

from __future__ import annotations

import atexit
import math
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from paretoscope.agents.base import Agent, agent_fingerprint
from paretoscope.discount import check_gamma, table_gamma
from paretoscope.envs import EnvSpec, get_spec
from paretoscope.envs.known_fronts import KnownFront, against_known
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import (
    FrontComparison,
    FrontSummary,
    RtgFollowing,
    front_summary,
    preference_grid,
    rtg_following,
)
from paretoscope.results_store import (
    KEY_COLUMN,
    STEP_COLUMN,
    ResultsStore,
    episode_key,
    objective_columns,
)
from paretoscope.rollout import check_agent_fits, check_horizon, check_preferences
from paretoscope.settings import SweepSettings
from paretoscope.sweep_batch import SweepEpisode, evaluate_batch

# A finished batch waits for others until this many rows or seconds, then all go in one shard.
_SHARD_ROWS = 64
_SHARD_SECONDS = 2.0


def build_requests(spec: EnvSpec, settings: SweepSettings) -> list[SweepEpisode]:
    """Validate a sweep's preferences and targets and expand them to one `SweepEpisode` per
    episode."""
    if settings.preferences is None:
        assert settings.grid is not None
        grid = preference_grid(spec.n_obj, settings.grid)
    else:
        grid = check_preferences(np.asarray(settings.preferences), spec.n_obj)
    seed_list = list(settings.episode_seeds)
    target_rows: list[tuple[float, ...] | None] = [None] * len(grid)
    if settings.targets is not None:
        target_array = np.asarray(settings.targets, dtype=np.float64)
        if target_array.shape != grid.shape or not np.isfinite(target_array).all():
            raise ParetoscopeError(
                f"targets: expected finite values of shape {grid.shape} (one target per "
                f"preference), got shape {target_array.shape}: "
                f"{np.array2string(target_array, threshold=8)}"
            )
        target_rows = [tuple(map(float, row)) for row in target_array]
    return [
        SweepEpisode(tuple(map(float, preference)), target, seed)
        for preference, target in zip(grid, target_rows, strict=True)
        for seed in seed_list
    ]


def _chunks(items: Sequence[SweepEpisode], size: int) -> Iterator[list[SweepEpisode]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _key_of(
    fingerprint: str, env_id: str, request: SweepEpisode, horizon: int, gamma: float
) -> str:
    return episode_key(
        fingerprint, env_id, request.preference, request.target, request.seed, horizon, gamma
    )


def count_missing(
    agent: Agent, env_id: str, settings: SweepSettings, store: ResultsStore | None = None
) -> int:
    """How many episodes of `sweep(agent, env_id, settings)` `store` does not hold yet (what
    the sweep would compute)."""
    spec = get_spec(env_id)
    requests = build_requests(spec, settings)
    horizon = check_horizon(settings.horizon, spec)
    gamma = check_gamma(settings.gamma)
    fingerprint = agent_fingerprint(agent)
    keys = {_key_of(fingerprint, env_id, request, horizon, gamma) for request in requests}
    if store is None:
        return len(keys)
    stored = store.read(env_id, keys)
    return len(keys - (set(stored[KEY_COLUMN]) if len(stored) else set()))


def sweep(
    agent: Agent,
    env_id: str,
    settings: SweepSettings | None = None,
    *,
    store: ResultsStore | None = None,
    agent_id: str | None = None,
    progress: bool = True,
    step: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Evaluate `agent` on `env_id` at every (preference, seed) and return one row per episode.

    `settings` (`paretoscope.settings.SweepSettings`; its defaults without it) says which:
    its ``preferences`` (M, n_obj) or the grid ``preference_grid(n_obj, granularity)``; its
    seeds (``seeds``, or ``seed`` .. ``seed + episodes - 1``), the same for every preference;
    ``targets`` (M, n_obj) override the agent's initial target per preference. ``gamma``
    discounts the returns (reward of step t counts gamma**t); it is a column of the table and
    part of each episode's key, so sweeps at different discounts never mix.
    ``backend="local"`` shards batches of ``batch_size`` episodes over ``workers`` processes
    (default: all cores; 1 runs in this process); ``backend="ray"`` uses a Ray cluster at
    ``address`` (or a local one). Same settings give the same table. With a `store`, episodes
    it holds are read, not recomputed; `agent_id` names the agent in the table. `step` (a
    run snapshot's training step) is the table's and the store's ``step`` column; without
    it the store's ``step`` is null and the table has no such column.
    `on_progress(done, total)` is told the episodes ready (stored or computed) before the first
    batch and after each one (the dashboard's progress bar); it may raise to stop the sweep.
    """
    settings = settings or SweepSettings()
    spec = get_spec(env_id)
    check_agent_fits(agent, env_id)
    requests = build_requests(spec, settings)
    horizon = check_horizon(settings.horizon, spec)
    gamma = check_gamma(settings.gamma)
    fingerprint = agent_fingerprint(agent)
    name = agent_id or f"{agent.spec.kind}-{fingerprint[:8]}"
    keys = [_key_of(fingerprint, env_id, request, horizon, gamma) for request in requests]

    stored = store.read(env_id, set(keys)) if store is not None else pd.DataFrame()
    done = set(stored[KEY_COLUMN]) if len(stored) else set()
    key_of = dict(zip(requests, keys, strict=True))
    missing = [request for request, key in key_of.items() if key not in done]
    # An agent that reads neither preference nor target plays the same episode at every
    # preference for a seed: one episode per seed serves them all.
    sharing = _episodes_by_seed(missing) if preference_blind(agent) else None
    simulated = list(sharing) if sharing is not None else missing

    def finish(batch: list[SweepEpisode], table: pd.DataFrame) -> pd.DataFrame:
        if sharing is not None:
            batch, table = _shared(batch, table, sharing, spec, agent)
        table.insert(0, "agent", name)
        table.insert(1, STEP_COLUMN, pd.array([step] * len(table), dtype="Int64"))
        table.insert(2, "agent_fingerprint", fingerprint)
        table.insert(3, "env", env_id)
        table[KEY_COLUMN] = [key_of[request] for request in batch]
        return table

    batches = list(_chunks(simulated, settings.batch_size))
    computed: list[pd.DataFrame] = []
    unstored: list[pd.DataFrame] = []
    last_write = time.monotonic()

    def write_unstored() -> None:
        nonlocal last_write
        if store is not None and unstored:
            store.write(env_id, pd.concat(unstored, ignore_index=True))
        unstored.clear()
        last_write = time.monotonic()

    with tqdm(
        total=len(requests),
        initial=len(requests) - len(missing),
        desc=f"sweep {name} on {env_id}",
        unit="episode",
        disable=not progress,
    ) as bar:
        done_count = len(requests) - len(missing)
        try:
            if on_progress is not None:
                on_progress(done_count, len(requests))
            for batch, table in _run_batches(agent, env_id, batches, horizon, gamma, settings):
                computed.append(finish(batch, table))
                unstored.append(computed[-1])
                bar.update(len(computed[-1]))
                done_count += len(computed[-1])
                if on_progress is not None:
                    on_progress(done_count, len(requests))
                # Small batches are grouped into one shard; a kill loses at most a few seconds.
                pending = sum(len(part) for part in unstored)
                if pending >= _SHARD_ROWS or time.monotonic() - last_write >= _SHARD_SECONDS:
                    write_unstored()
        finally:
            # Keep what was computed, also when interrupted (Ctrl-C) or on a worker's error.
            write_unstored()

    table = pd.concat([stored, *computed], ignore_index=True) if computed else stored
    if len(table) == 0:
        return table
    # Present rows in request order whatever order they were computed or stored in.
    order = {key: index for index, key in enumerate(keys)}
    table = table[table[KEY_COLUMN].isin(order)].copy()
    table["_order"] = table[KEY_COLUMN].map(order)
    table = table.sort_values("_order").drop(columns="_order").reset_index(drop=True)
    table["agent"] = name
    if step is None:
        table = table.drop(columns=STEP_COLUMN, errors="ignore")
    else:  # this run's step, also for an episode stored earlier under another snapshot's
        table[STEP_COLUMN] = int(step)
    # Episodes stored before discounting existed have no gamma column: they are undiscounted.
    table["gamma"] = table["gamma"].fillna(1.0) if "gamma" in table else 1.0
    return table


def preference_blind(agent: Agent) -> bool:
    """The agent declares (`preference_blind = True`) that its actions depend on neither the
    preference nor the target (the `random` baseline). `Conditioning` cannot say it: it names
    a network's inputs, and a policy set reads no preference input yet picks by preference."""
    return getattr(agent, "preference_blind", False) is True


def _episodes_by_seed(
    requests: Sequence[SweepEpisode],
) -> dict[SweepEpisode, list[SweepEpisode]]:
    """The first request of each seed, and every request that its episode answers."""
    groups: dict[int, list[SweepEpisode]] = {}
    for request in requests:
        groups.setdefault(request.seed, []).append(request)
    return {group[0]: group for group in groups.values()}


def _shared(
    batch: list[SweepEpisode],
    table: pd.DataFrame,
    sharing: dict[SweepEpisode, list[SweepEpisode]],
    spec: EnvSpec,
    agent: Agent,
) -> tuple[list[SweepEpisode], pd.DataFrame]:
    """Each simulated episode's row repeated for every request it answers, with that request's
    preference and target (the episode's wall time shared among them)."""
    answered = [request for simulated in batch for request in sharing[simulated]]
    positions = [row for row, simulated in enumerate(batch) for _ in sharing[simulated]]
    rows = table.iloc[positions].reset_index(drop=True)
    preferences = np.array([request.preference for request in answered])
    targets = np.asarray(agent.initial_target(preferences), dtype=np.float64).reshape(
        len(answered), spec.n_obj
    )
    for row, request in enumerate(answered):
        if request.target is not None:
            targets[row] = request.target
    for prefix, block in (("preference", preferences), ("target", targets)):
        for column, values in zip(objective_columns(prefix, spec), block.T, strict=True):
            rows[column] = values
    rows["explicit_target"] = [request.target is not None for request in answered]
    counts = np.array([len(sharing[simulated]) for simulated in batch])[positions]
    rows["wall_time"] = rows["wall_time"].to_numpy() / counts
    return answered, rows


def _run_batches(
    agent: Agent,
    env_id: str,
    batches: list[list[SweepEpisode]],
    horizon: int,
    gamma: float,
    settings: SweepSettings,
) -> Iterator[tuple[list[SweepEpisode], pd.DataFrame]]:
    """Yield (batch, rows) as each batch finishes, on the settings' backend."""
    if not batches:
        return
    if settings.backend == "ray":
        from paretoscope.ray_backend import run_batches_on_ray

        yield from run_batches_on_ray(agent, env_id, batches, horizon, settings.address, gamma)
        return
    worker_count = (os.cpu_count() or 1) if settings.workers is None else settings.workers
    worker_count = min(worker_count, len(batches))
    if worker_count == 1 or not _workers_can_load(agent):
        for batch in batches:
            yield batch, evaluate_batch(agent, env_id, batch, horizon, gamma)
        return
    pool = _worker_pool(worker_count)
    futures = {
        pool.submit(evaluate_batch, agent, env_id, batch, horizon, gamma): batch
        for batch in batches
    }
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BrokenProcessPool:
        _POOLS.pop(worker_count, None)
        raise ParetoscopeError(
            "a sweep worker process died (out of memory, or killed); the episodes stored so "
            "far are kept: run the sweep again to compute the rest"
        ) from None
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def _workers_can_load(agent: Agent) -> bool:
    """Whether a worker (a fresh interpreter, spawned) can unpickle the agent: not when it is
    made of code defined in ``__main__`` (a notebook's cells, a script), nor when it does not
    pickle at all; such an agent's batches run in this process. (The pickle names each class
    by its module; a false match only costs the workers.)"""
    try:
        payload = pickle.dumps(agent)
    except Exception:  # noqa: BLE001 - whatever stops pickling also stops the workers
        return False
    return b"__main__" not in payload


# Worker processes outlive one sweep: starting one (a fresh interpreter importing torch and
# mujoco) costs seconds, more than a small sweep itself.
_POOLS: dict[int, ProcessPoolExecutor] = {}


def _worker_pool(worker_count: int) -> ProcessPoolExecutor:
    """The process pool of `worker_count` workers, started on first use and kept until exit."""
    pool = _POOLS.get(worker_count)
    if pool is None:
        # Fresh interpreters: forking a process that already runs torch/OpenMP threads can hang.
        pool = ProcessPoolExecutor(
            worker_count, mp_context=get_context("spawn"), initializer=_one_thread_per_worker
        )
        _POOLS[worker_count] = pool
    return pool


def shutdown_worker_pools() -> None:
    """Stop the sweep worker processes (they are also stopped when the interpreter exits)."""
    while _POOLS:
        _, pool = _POOLS.popitem()
        pool.shutdown(cancel_futures=True)


atexit.register(shutdown_worker_pools)


def _one_thread_per_worker() -> None:
    # Each worker is one of N processes on N cores: extra torch threads only contend.
    import torch

    torch.set_num_threads(1)


@dataclass(frozen=True)
class SweepSummary:
    """Mean return per preference, the metrics of that front, and RTG following; for envs with
    a known Pareto front (at the sweep's gamma), that front and the sweep measured against it."""

    per_preference: pd.DataFrame
    front: FrontSummary
    rtg: RtgFollowing | None
    gamma: float = 1.0
    known_front: KnownFront | None = None
    against_known: FrontComparison | None = None


def summarize(
    table: pd.DataFrame,
    env_id: str,
    weights: np.ndarray | None = None,
    reference_point: Sequence[float] | None = None,
) -> SweepSummary:
    """Average episodes per preference, then compute the front's metrics and RTG following.

    Expected utility uses `weights` (default: the sweep's own preferences). RTG following
    compares each preference's mean return with its target (rows whose agent ignores targets
    carry zero targets; the numbers are still defined, just meaningless for such agents).
    """
    spec = get_spec(env_id)
    preference_columns = objective_columns("preference", spec)
    target_columns = objective_columns("target", spec)
    return_columns = objective_columns("return", spec)
    if len(table) == 0:
        raise ParetoscopeError("cannot summarise an empty sweep table")
    missing = [c for c in (*preference_columns, *return_columns) if c not in table.columns]
    if missing:
        raise ParetoscopeError(f"sweep table for {env_id}: missing columns {missing}")
    table_gamma(table, f"sweep table for {env_id}", "summarise")
    grouped = table.groupby(preference_columns + target_columns, sort=False, as_index=False)
    per_preference = grouped[return_columns].mean()
    per_preference["episodes"] = grouped.size()["size"].to_numpy()
    returns = per_preference[return_columns].to_numpy(dtype=np.float64)
    prefs = per_preference[preference_columns].to_numpy(dtype=np.float64)
    reference = spec.reference_point if reference_point is None else tuple(reference_point)
    front = front_summary(returns, reference, prefs if weights is None else weights)
    targets = per_preference[target_columns].to_numpy(dtype=np.float64)
    rtg = rtg_following(targets, prefs, returns) if np.abs(targets).sum() > 0 else None
    gamma = float(table["gamma"].fillna(1.0).iloc[0]) if "gamma" in table else 1.0
    against = against_known(env_id, gamma, returns, prefs)
    return SweepSummary(
        per_preference=per_preference,
        front=front,
        rtg=rtg,
        gamma=gamma,
        known_front=None if against is None else against.front,
        against_known=None if against is None else against.comparison,
    )


def finite_or_none(value: float | None) -> float | None:
    """`value` as a float, or None when it is missing or not finite (JSON has no inf or nan)."""
    return None if value is None or not math.isfinite(value) else float(value)


def summary_record(table: pd.DataFrame, env_id: str) -> dict[str, Any]:
    """The summary of one sweep's rows as plain, JSON-friendly data: what `paretoscope evaluate
    --json` prints and `paretoscope.sweep` returns as ``Sweep.summary``'s source.

    Holds env, agent, episodes, preferences, gamma, seeds, hypervolume with its reference point,
    sparsity, cardinality, expected utility (None when not finite), diverged episodes and the
    mean returns per preference; ``known_front`` (igd, igd_plus, maximum_utility_loss,
    mean_regret) where the env has a known front at the sweep's gamma; the RTG-following errors
    where the rows carry targets.
    """
    summary = summarize(table, env_id)
    spec = get_spec(env_id)
    record: dict[str, Any] = {
        "env": env_id,
        "agent": str(table["agent"].iloc[0]),
        "episodes": len(table),
        "preferences": len(summary.per_preference),
        "gamma": float(table["gamma"].iloc[0]),
        "seeds": sorted(int(seed) for seed in table["seed"].unique()),
        "hypervolume": summary.front.hypervolume,
        "reference_point": list(spec.reference_point),
        "sparsity": summary.front.sparsity,
        "cardinality": summary.front.cardinality,
        "expected_utility": finite_or_none(summary.front.expected_utility),
        "diverged_episodes": int(table["diverged"].sum()),
        "mean_returns": summary.per_preference[
            objective_columns("preference", spec) + objective_columns("return", spec)
        ].to_dict(orient="records"),
    }
    if summary.known_front is not None and summary.against_known is not None:
        against = summary.against_known
        record["known_front"] = {
            "exact": summary.known_front.exact,
            "source": summary.known_front.source,
            "points": len(summary.known_front.points),
            "igd": against.igd,
            "igd_plus": against.igd_plus,
            "maximum_utility_loss": against.maximum_utility_loss,
            "mean_regret": against.mean_regret,
        }
    if summary.rtg is not None:
        record["rtg_weighted_error"] = finite_or_none(summary.rtg.overall_weighted_error)
        record["rtg_relative_weighted_error"] = finite_or_none(
            summary.rtg.overall_relative_weighted_error
        )
        record["rtg_ratio_error"] = finite_or_none(summary.rtg.overall_ratio_error)
    return record
