"""`paretoscope demo build`: behaviour sets -> datasets -> offline agents -> sweeps -> manifest.

This module orders the steps (one module each under `paretoscope.demo.steps`) and runs them.
Every step calls paretoscope's own functions (`train_behaviour`, `collect`, `train_offline`,
`sweep`) with the recipe's settings objects, seeded, with their progress bars. The steps are
resumable because those functions are: behaviour training skips finished members, collection
and offline training continue from their checkpoints, the results store completes only
missing episodes. On top, a ledger (`paretoscope.demo.ledger`) records each finished step with
its settings, so a rerun skips finished steps at once and a changed setting is redone (budgets
that grew) or refused.

A step's settings include the fingerprint of what it consumes (the behaviour set a dataset was
collected from, the dataset an agent was trained on, the agent a sweep rolled out), so a
rebuilt upstream artefact shows downstream as a changed setting instead of passing silently.
Artefacts made earlier by the same commands with the same settings (and no ledger) are
adopted: checked against their own run records and recorded without rerunning.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paretoscope.catalog import bundled_assets_dir
from paretoscope.demo.build import DemoBuild, Log, Step
from paretoscope.demo.ledger import differences, settings_hash
from paretoscope.demo.manifest import current_checks
from paretoscope.demo.recipe import DemoRecipe
from paretoscope.demo.steps.behaviour import behaviour_step
from paretoscope.demo.steps.datasets import dataset_step
from paretoscope.demo.steps.manifest import manifest_step
from paretoscope.demo.steps.morlb_agents import morlb_step
from paretoscope.demo.steps.offline_agents import offline_agent_step
from paretoscope.demo.steps.sweeps import run_sweep_step, sweep_step
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import DemoBuildSettings

STEP_KINDS = ("behaviour", "datasets", "agents", "sweeps", "manifest")


@dataclass
class StepOutcome:
    id: str
    status: str  # built | skipped | adopted | continued
    seconds: float
    message: str = ""


@dataclass
class BuildReport:
    out: Path
    recipe: str
    outcomes: list[StepOutcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(outcome.status == status for outcome in self.outcomes)


def build_steps(build: DemoBuild) -> list[Step]:
    """Every step of the build's recipe, in build order: each env's behaviour set, then the
    datasets, the offline agents, training runs and MORL-Baselines agents, the sweeps, and the
    manifest last."""
    recipe = build.recipe
    steps = [behaviour_step(build, env) for env in recipe.envs]
    steps += [dataset_step(build, env, dataset) for env in recipe.envs for dataset in env.datasets]
    steps += [offline_agent_step(build, env, agent) for env in recipe.envs for agent in env.agents]
    steps += [offline_agent_step(build, env, run) for env in recipe.envs for run in env.runs]
    steps += [morlb_step(build, agent) for agent in recipe.morlb]
    for env in recipe.envs:
        steps.append(
            sweep_step(
                build,
                env.env_id,
                env.behaviour_name,
                env.sweep,
                behaviour=True,
                motion_figures=env.motion_figures,
            )
        )
        steps += [
            sweep_step(build, env.env_id, env.agent_name(agent), env.sweep, collected=env)
            for agent in env.agents
        ]
        steps += [
            run_sweep_step(build, env.env_id, env.run_name(run), env.sweep) for run in env.runs
        ]
    steps += [
        sweep_step(build, agent.env_id, agent.name, agent.sweep, front_gamma=agent.front_gamma)
        for agent in recipe.morlb
    ]
    steps.append(manifest_step(build))
    return steps


# --- running -------------------------------------------------------------------------------------


def select_steps(
    steps: Sequence[Step], kinds: Iterable[str] | None, envs: Iterable[str] | None = None
) -> list[Step]:
    """The steps of the chosen kinds (all when None) and envs (all when None; the manifest
    always belongs), in build order."""
    chosen = set(STEP_KINDS) if kinds is None else set(kinds)
    unknown = sorted(chosen - set(STEP_KINDS))
    if unknown:
        raise ParetoscopeError(
            f"--steps: unknown step {', '.join(unknown)}; expected some of {', '.join(STEP_KINDS)}"
        )
    known_envs = {step.env_id for step in steps if step.env_id is not None}
    wanted_envs = known_envs if envs is None else set(envs)
    if wanted_envs - known_envs:
        raise ParetoscopeError(
            f"--env: the recipe has no {', '.join(sorted(wanted_envs - known_envs))}; "
            f"expected some of {', '.join(sorted(known_envs))}"
        )
    return [
        step
        for step in steps
        if step.kind in chosen and (step.env_id is None or step.env_id in wanted_envs)
    ]


def _outputs_exist(step: Step) -> bool:
    return all(path.exists() for path in step.outputs)


def _describe(changes: Mapping[str, tuple[Any, Any]]) -> str:
    def short(value: Any) -> str:
        text = json.dumps(value)
        return text if len(text) <= 40 else text[:37] + "..."

    return "; ".join(f"{key}: {short(old)} -> {short(new)}" for key, (old, new) in changes.items())


def run_step(build: DemoBuild, step: Step) -> StepOutcome:
    """Skip, adopt, continue or build one step, and record it in the ledger."""
    started = time.perf_counter()
    settings = step.settings()
    entry = build.ledger.entry(step.id)
    status, message = "built", ""
    if entry is not None and _outputs_exist(step):
        if entry.get("settings_hash") == settings_hash(settings):
            return StepOutcome(step.id, "skipped", time.perf_counter() - started)
        changes = differences(entry.get("settings") or {}, settings)
        fixed = {key: change for key, change in changes.items() if key not in step.growable}
        if fixed:
            where = ", ".join(str(path.parent if path.is_file() else path) for path in step.outputs)
            raise ParetoscopeError(
                f"{step.id} was built with other settings ({_describe(fixed)}); its artefact "
                f"cannot be continued with the new ones: delete {where} to rebuild it, or keep "
                "the recipe's old settings"
            )
        status, message = "continued", f"settings changed ({_describe(changes)}): continuing"
    elif entry is None and step.adopt is not None:
        details = step.adopt(settings)
        if details is not None:
            build.ledger.record(
                step.id, settings, time.perf_counter() - started, adopted=True, details=details
            )
            return StepOutcome(
                step.id, "adopted", time.perf_counter() - started, "made earlier, same settings"
            )
    if message:
        build.log(f"  {step.id}: {message}")
    details = step.run()
    seconds = time.perf_counter() - started
    build.ledger.record(
        step.id, step.settings() if step.kind == "manifest" else settings, seconds, details=details
    )
    return StepOutcome(step.id, status, seconds, message)


def build_demo(
    out: str | Path | None = None,
    recipe: DemoRecipe | None = None,
    settings: DemoBuildSettings | None = None,
    progress: bool = True,
    log: Log = print,
) -> BuildReport:
    """Build (or finish) the demo `recipe` (default: the full one) into `out` (default: the
    bundled assets folder): the steps and envs `settings` chooses (default: all)."""
    from paretoscope.demo.recipe import FULL

    recipe = recipe or FULL
    settings = settings or DemoBuildSettings()
    folder = Path(out).expanduser() if out is not None else bundled_assets_dir()
    if folder.exists() and not folder.is_dir():
        raise ParetoscopeError(f"--out {folder}: not a directory")
    folder.mkdir(parents=True, exist_ok=True)
    build = DemoBuild(folder, recipe, progress=progress, log=log)
    chosen = select_steps(build_steps(build), settings.steps, settings.envs)
    report = BuildReport(folder, recipe.name)
    log(f"demo build ({recipe.name} recipe) into {folder}: {len(chosen)} steps")
    for index, step in enumerate(chosen, start=1):
        outcome = run_step(build, step)
        report.outcomes.append(outcome)
        log(f"[{index}/{len(chosen)}] {step.id}: {outcome.status} ({outcome.seconds:.1f} s)")
    checks = current_checks(build)
    if checks:
        log("quality targets:")
        for check in checks:
            log("  " + check.line())
    return report


def demo_status(out: str | Path | None = None, recipe: DemoRecipe | None = None) -> list[str]:
    """One line per step: done (with its settings), changed, or missing. Builds nothing."""
    from paretoscope.demo.recipe import FULL

    recipe = recipe or FULL
    folder = Path(out).expanduser() if out is not None else bundled_assets_dir()
    if not folder.is_dir():
        raise ParetoscopeError(f"{folder}: no such directory (nothing built yet)")
    build = DemoBuild(folder, recipe, progress=False, log=lambda _: None)
    lines = []
    for step in build_steps(build):
        entry = build.ledger.entry(step.id)
        if entry is None or not _outputs_exist(step):
            lines.append(f"missing   {step.id}")
            continue
        try:
            same = entry.get("settings_hash") == settings_hash(step.settings())
        except ParetoscopeError:
            same = False
        state = "done" if same else "changed"
        lines.append(f"{state:<9} {step.id} ({entry.get('finished')}, {entry.get('seconds')} s)")
    return lines
