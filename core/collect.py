"""Collect a D4MORL-style dataset by rolling out an agent over sampled preferences.

Seeded and reproducible: episode i's preference, env seed and (amateur) action noise depend only
on (seed, i), never on the batch size (`paretoscope.data.collection_plan`). Episodes stream into
a native dataset batch by batch; a D4MORL pickle can be written from it afterwards. A service:
it drives agents (`paretoscope.agents.behaviour`) through rollouts into the data formats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.agents.behaviour import behaviour_agent, check_behaviour
from paretoscope.data.collection_plan import episode_plan
from paretoscope.data.d4morl import write_d4morl
from paretoscope.data.native import NativeWriter, open_native
from paretoscope.data.preferences import DISTRIBUTION_NAMES, check_bounds
from paretoscope.data.progress import counter_bar
from paretoscope.data.trajectories import DatasetInfo, Trajectory
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.settings.limits import BATCH_SIZES, HORIZONS


def collect(
    agent: Agent,
    env_id: str,
    episodes: int,
    out: str | Path,
    distribution: str = "uniform",
    quality: str = "expert",
    seed: int = 0,
    preference_bounds: object = None,
    batch_size: int = 16,
    horizon: int | None = None,
    d4morl_out: str | Path | None = None,
    overwrite: bool = False,
    progress: bool = False,
    agent_name: str = "",
    action_noise: float = 0.0,
) -> Path:
    """Roll out `agent` for `episodes` episodes and write them as a native dataset at `out`.

    Interrupted runs resume: calling again with the same settings continues after the last
    finished batch, and gives the same data as an uninterrupted run.

    Preferences come from the D4MORL `distribution` within `preference_bounds` ((n_obj, 2)
    [low, high] rows; [0, 1] each when None), actions get the `quality`'s noise, and expert ones
    Gaussian noise of `action_noise` times half the action range (`paretoscope.agents.behaviour`).
    Episodes that diverge before their first step are left out (counted in the info's
    ``extra``). With `d4morl_out`, also writes the same data as a D4MORL pickle. Returns `out`.
    """
    from paretoscope.rollout import rollout_batch

    spec = get_spec(env_id)
    if episodes < 1:
        raise ParetoscopeError(f"episodes must be >= 1, got {episodes}")
    for name, value, bounds in (
        ("batch_size", batch_size, BATCH_SIZES),
        ("horizon", horizon, HORIZONS),
    ):
        problem = None if value is None else bounds.problem(int(value))
        if problem is not None:
            raise ParetoscopeError(f"{name}: {problem}")
    if distribution not in DISTRIBUTION_NAMES:
        raise ParetoscopeError(
            f"distribution {distribution!r}: expected one of {', '.join(DISTRIBUTION_NAMES)}"
        )
    action_noise = check_behaviour(quality, action_noise)
    low, high = check_bounds(preference_bounds, spec.n_obj)
    preferences, env_seeds, noise_seeds = episode_plan(
        seed, episodes, spec.n_obj, distribution, np.stack([low, high], axis=1)
    )
    extra: dict[str, Any] = {
        "collected_by": "paretoscope data collect",
        "agent": agent_name or type(agent).__name__,
        "seed": seed,
        "episodes_requested": episodes,
        "preference_bounds": np.stack([low, high], axis=1).tolist(),
        "horizon": spec.horizon if horizon is None else int(horizon),
    }
    if action_noise:  # recorded only when used: noiseless sets keep their headers and keys
        extra["action_noise"] = action_noise
    info = DatasetInfo.for_env(
        env_id,
        source=f"collect:{agent_name or type(agent).__name__}",
        quality=quality,
        preference_distribution=distribution,
        extra=extra,
    )
    # What makes the episodes what they are; a partial run with the same key is resumed.
    resume_key = {
        "env_id": env_id,
        "episodes": episodes,
        "distribution": distribution,
        "quality": quality,
        "seed": seed,
        "preference_bounds": extra["preference_bounds"],
        "horizon": extra["horizon"],
        "agent": agent_name or type(agent).__name__,
        "agent_fingerprint": str(getattr(agent, "fingerprint", "")),
        **({"action_noise": extra["action_noise"]} if action_noise else {}),
    }
    bar = counter_bar(episodes, f"collecting {env_id}", progress, "ep")
    with bar, NativeWriter(out, info, overwrite=overwrite, resume_key=resume_key) as writer:
        first_episode = int(writer.resumed_state.get("next_episode", 0))
        dropped = int(writer.resumed_state.get("dropped", 0))
        bar.update(first_episode)
        for start in range(first_episode, episodes, batch_size):
            rows = slice(start, min(start + batch_size, episodes))
            batch_agent = behaviour_agent(agent, quality, env_id, noise_seeds[rows], action_noise)
            result = rollout_batch(
                batch_agent,
                env_id,
                preferences[rows],
                env_seeds[rows],
                horizon=horizon,
                record=True,
            )
            assert result.trajectories is not None
            for preference, steps in zip(preferences[rows], result.trajectories, strict=True):
                if len(steps["observations"]) == 0:
                    dropped += 1
                    continue
                writer.append(
                    Trajectory.from_step_arrays(
                        observations=steps["observations"],
                        actions=steps["actions"],
                        next_observations=steps["next_observations"],
                        raw_rewards=steps["raw_rewards"],
                        terminals=steps["terminals"],
                        preference=preference,
                    )
                )
            writer.checkpoint({"next_episode": rows.stop, "dropped": dropped})
            bar.update(rows.stop - rows.start)
        # `extra` is the info's own dict: the count lands in the header when the writer closes.
        extra["episodes_dropped_diverged"] = dropped
    out_path = Path(out)
    if d4morl_out is not None:
        write_d4morl(open_native(out_path), d4morl_out, overwrite=overwrite, progress=progress)
    return out_path
