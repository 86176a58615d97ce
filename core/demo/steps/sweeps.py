"""The sweeps step: an agent over its plan's preference grid (`paretoscope.evaluate.sweep`),
stored in the results folder, with the figures the manifest reports."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from paretoscope.catalog import SweepPlan
from paretoscope.demo.build import DemoBuild, Step
from paretoscope.demo.figures import (
    front_figures,
    halfcheetah_motion,
    known_front_figures,
    member_figures,
)
from paretoscope.demo.recipe import EnvRecipe
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import SweepSettings
from paretoscope.sweeps import SWEEP_BATCH_SIZE  # batch-invariant agents: any batch replays

# The results store keeps every episode: a sweep whose settings change computes only new ones.
GROWABLE_SETTINGS = frozenset(
    {
        "agent_fingerprint",
        "granularity",
        "seeds",
        "horizon",
        "batch_size",
        "members",
        "front_gamma",
    }
)


def sweep_step(
    build: DemoBuild,
    env_id: str,
    name: str,
    plan: SweepPlan,
    behaviour: bool = False,
    motion_figures: bool = False,
    front_gamma: float | None = None,
    collected: EnvRecipe | None = None,
) -> Step:
    """The agent `name` over the plan's grid (and a policy set at its members' own
    preferences); with `front_gamma`, the grid again at that discount, measured against
    the env's known front; with `collected` (an offline agent's env), whether the sweep's
    seeds are held out from every episode of that env's datasets."""

    def settings() -> dict[str, Any]:
        return {
            "env_id": env_id,
            "agent": name,
            "agent_fingerprint": build.agent_fingerprint(name, f"the sweep of {name}"),
            **plan.to_dict(),
            "batch_size": SWEEP_BATCH_SIZE,
            "members": behaviour,
            **({} if front_gamma is None else {"front_gamma": front_gamma}),
        }

    def run() -> dict[str, Any]:
        from paretoscope.agents import load
        from paretoscope.evaluate import sweep
        from paretoscope.results_store import ResultsStore

        agent = load(build.agent_dir(name))
        store = ResultsStore(build.results_dir)
        grid = plan_settings(build, plan)

        def swept(settings: SweepSettings) -> Any:
            return sweep(
                agent, env_id, settings, store=store, agent_id=name, progress=build.progress
            )

        table = swept(grid)
        figures = front_figures(table, env_id, agent.spec.conditioning.return_conditioned)
        if collected is not None:
            figures["held_out_seeds"] = seeds_held_out(collected, plan)
        if front_gamma is not None:
            discounted = swept(replace(grid, gamma=front_gamma))
            figures["known_front"] = known_front_figures(discounted, env_id)
        if behaviour:
            from paretoscope.agents.policy_set import PolicySetAgent

            if not isinstance(agent, PolicySetAgent):
                raise ParetoscopeError(f"{build.agent_dir(name)}: expected a policy set")
            members = np.asarray(agent.preferences, dtype=np.float64)
            member_rows = tuple(tuple(row) for row in members.tolist())
            member_table = swept(replace(grid, granularity=None, preferences=member_rows))
            figures.update(member_figures(member_table, env_id))
            if motion_figures:
                run_most = members[int(np.argmax(members[:, 0]))]
                energy_most = members[int(np.argmax(members[:, -1]))]
                figures["run_most"] = halfcheetah_motion(member_table, run_most)
                figures["energy_most"] = halfcheetah_motion(member_table, energy_most)
        return {"figures": figures, "rows": int(len(table))}

    return Step(
        id=f"sweep:{name}",
        kind="sweeps",
        name=name,
        outputs=(build.results_dir / env_id,),
        settings=settings,
        run=run,
        growable=GROWABLE_SETTINGS,
        env_id=env_id,
    )


def plan_settings(build: DemoBuild, plan: SweepPlan) -> SweepSettings:
    """The sweep settings of `plan` in this build (its batch size, its recipe's workers)."""
    return SweepSettings(
        granularity=plan.granularity,
        seeds=plan.seeds,
        horizon=plan.horizon,
        batch_size=SWEEP_BATCH_SIZE,
        workers=build.recipe.sweep_workers,
    )


def seeds_held_out(env: EnvRecipe, plan: SweepPlan) -> bool:
    """Whether no seed of `plan` reset an episode of the env's datasets (the offline agents
    learnt from those episodes, so a sweep on their seeds would replay what they saw)."""
    from paretoscope.data.collection_plan import episode_plan

    n_obj = get_spec(env.env_id).n_obj
    used: set[int] = set()
    for dataset in env.datasets:
        _, env_seeds, _ = episode_plan(dataset.seed, dataset.episodes, n_obj, dataset.distribution)
        used.update(int(seed) for seed in env_seeds)
    return not used.intersection(plan.seeds)


def run_sweep_step(build: DemoBuild, env_id: str, name: str, plan: SweepPlan) -> Step:
    """Every snapshot of the training run `name` over the plan's grid
    (`paretoscope.runs.sweep.sweep_run`, what `paretoscope evaluate RUN` does): the Training
    page reads these episodes instead of rolling them out. Figures: the last snapshot's front
    and each step's hypervolume and expected utility."""

    def settings() -> dict[str, Any]:
        from paretoscope.agents.base import agent_fingerprint
        from paretoscope.runs.run import open_run

        folder = build.agent_dir(name)
        if not (folder / "config.json").is_file():
            raise ParetoscopeError(
                f"the sweep of {name} needs the run {folder}, which is not built yet; run "
                "`paretoscope demo build` without --steps (or with the agents step) first"
            )
        run = open_run(folder)
        return {
            "env_id": env_id,
            "agent": name,
            "snapshot_fingerprints": {
                str(snapshot.step): agent_fingerprint(run.load(snapshot, None, "cpu"))
                for snapshot in run.snapshots
            },
            **plan.to_dict(),
            "batch_size": SWEEP_BATCH_SIZE,
        }

    def run() -> dict[str, Any]:
        from paretoscope.results_store import ResultsStore
        from paretoscope.runs.fronts import STEP_COLUMN, step_metrics
        from paretoscope.runs.run import open_run
        from paretoscope.runs.sweep import sweep_run

        swept = sweep_run(
            open_run(build.agent_dir(name)),
            env_id,
            plan_settings(build, plan),
            store=ResultsStore(build.results_dir),
            progress=build.progress,
        )
        table = swept.table
        last = table[table[STEP_COLUMN] == max(swept.steps)]
        figures = front_figures(last, env_id)
        metrics = step_metrics(table, env_id)
        figures["by_step"] = [
            {
                "step": int(row[STEP_COLUMN]),
                "hypervolume": float(row["hypervolume"]),
                "expected_utility": float(row["expected_utility"]),
            }
            for _, row in metrics.iterrows()
        ]
        return {"figures": figures, "rows": int(len(table))}

    return Step(
        id=f"sweep:{name}",
        kind="sweeps",
        name=name,
        outputs=(build.results_dir / env_id,),
        settings=settings,
        run=run,
        growable=GROWABLE_SETTINGS | {"snapshot_fingerprints"},
        env_id=env_id,
    )
