"""`paretoscope demo build`: behaviour sets -> datasets -> offline agents -> sweeps -> manifest.

Every step calls paretoscope's own functions (`train_behaviour`, `collect`, `train_offline`,
`sweep`), seeded by the recipe, with their progress bars. The steps are resumable because
those functions are: behaviour training skips finished members, collection and offline
training continue from their checkpoints, the results store completes only missing episodes.
On top, a ledger (`paretoscope.demo.ledger`) records each finished step with its settings, so a
rerun
skips finished steps at once and a changed setting is redone (budgets that grew) or refused.

A step's settings include the fingerprint of what it consumes (the behaviour set a dataset was
collected from, the dataset an agent was trained on, the agent a sweep rolled out), so a
rebuilt upstream artefact shows downstream as a changed setting instead of passing silently.
Artefacts made earlier by the same commands with the same settings (and no ledger) are
adopted: checked against their own run records and recorded without rerunning.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.catalog import AGENTS_DIR, DATASETS_DIR, RESULTS_DIR, SweepPlan, bundled_assets_dir
from paretoscope.demo.figures import (
    front_figures,
    halfcheetah_motion,
    known_front_figures,
    member_figures,
)
from paretoscope.demo.ledger import Ledger, differences, settings_hash
from paretoscope.demo.morlb_training import MORL_BASELINES_VERSION
from paretoscope.demo.recipe import (
    TRAINING_THREADS,
    DatasetRecipe,
    DemoRecipe,
    EnvRecipe,
    MorlbRecipe,
    OfflineRecipe,
)
from paretoscope.envs import get_spec
from paretoscope.envs.known_fronts import known_front
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import DemoBuildSettings, SweepSettings
from paretoscope.sweeps import SWEEP_BATCH_SIZE  # batch-invariant agents: any batch replays

STEP_KINDS = ("behaviour", "datasets", "agents", "sweeps", "manifest")

Log = Callable[[str], None]


@dataclass
class Step:
    """One unit of the build: what it makes, its settings, how to run or adopt it."""

    id: str
    kind: str
    name: str  # the artefact's name ("manifest" for the manifest)
    outputs: tuple[Path, ...]  # files whose presence says the step's artefact exists
    settings: Callable[[], dict[str, Any]]
    run: Callable[[], dict[str, Any]]  # returns details recorded in the ledger
    growable: frozenset[str] = frozenset()  # settings that may change: the step is redone
    adopt: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    env_id: str | None = None  # the env the artefact belongs to (None: the manifest)


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


# --- the steps -----------------------------------------------------------------------------------


def _behaviour_record(env: EnvRecipe) -> dict[str, Any]:
    """The run.json content `train_behaviour` writes for the env's settings (budget aside)."""
    from paretoscope.train.behaviour import behaviour_run

    return behaviour_run(env.env_id, env.behaviour).record()


class DemoBuild:
    """The steps of one recipe into one output folder."""

    def __init__(
        self,
        out: Path,
        recipe: DemoRecipe,
        progress: bool = True,
        log: Log = print,
    ) -> None:
        self.out = out
        self.recipe = recipe
        self.progress = progress
        self.log = log
        self.ledger = Ledger.open(out)

    # paths
    def agent_dir(self, name: str) -> Path:
        return self.out / AGENTS_DIR / name

    def dataset_dir(self, name: str) -> Path:
        return self.out / DATASETS_DIR / name

    @property
    def results_dir(self) -> Path:
        return self.out / RESULTS_DIR

    def display(self, path: Path) -> str:
        """A path as the command lines show it: under ``assets/`` for the bundled demo."""
        try:
            relative = path.resolve().relative_to(self.out.resolve())
        except ValueError:
            return str(path)
        root = "assets" if self.out.resolve() == bundled_assets_dir() else str(self.out)
        return str(Path(root) / relative)

    # fingerprints of finished upstream artefacts
    def agent_fingerprint(self, name: str, needed_by: str) -> str:
        from paretoscope.agents import load
        from paretoscope.evaluate import agent_fingerprint

        folder = self.agent_dir(name)
        if not (folder / "config.json").is_file():
            raise ParetoscopeError(
                f"{needed_by} needs the agent {folder}, which is not built yet; run "
                "`paretoscope demo build` without --steps (or with the earlier steps) first"
            )
        return agent_fingerprint(load(folder))

    def dataset_fingerprint(self, name: str, needed_by: str) -> str:
        from paretoscope.data.sources import open_dataset
        from paretoscope.train.offline import dataset_fingerprint

        folder = self.dataset_dir(name)
        if not (folder / "paretoscope-dataset.json").is_file():
            raise ParetoscopeError(
                f"{needed_by} needs the dataset {folder}, which is not built yet; run "
                "`paretoscope demo build` without --steps (or with the datasets step) first"
            )
        return dataset_fingerprint(open_dataset(folder))

    # step builders
    def steps(self) -> list[Step]:
        steps: list[Step] = []
        for env in self.recipe.envs:
            steps.append(replace(self.behaviour_step(env), env_id=env.env_id))
        for env in self.recipe.envs:
            steps.extend(
                replace(self.dataset_step(env, dataset), env_id=env.env_id)
                for dataset in env.datasets
            )
        for env in self.recipe.envs:
            steps.extend(
                replace(self.agent_step(env, agent), env_id=env.env_id) for agent in env.agents
            )
        steps.extend(
            replace(self.morlb_step(agent), env_id=agent.env_id) for agent in self.recipe.morlb
        )
        for env in self.recipe.envs:
            sweeps = [
                self.sweep_step(
                    env.env_id,
                    env.behaviour_name,
                    env.sweep,
                    behaviour=True,
                    motion_figures=env.motion_figures,
                )
            ]
            sweeps += [
                self.sweep_step(env.env_id, env.agent_name(agent), env.sweep, collected=env)
                for agent in env.agents
            ]
            steps.extend(replace(step, env_id=env.env_id) for step in sweeps)
        steps.extend(
            replace(
                self.sweep_step(
                    agent.env_id, agent.name, agent.sweep, front_gamma=agent.front_gamma
                ),
                env_id=agent.env_id,
            )
            for agent in self.recipe.morlb
        )
        steps.append(self.manifest_step())
        return steps

    def behaviour_step(self, env: EnvRecipe) -> Step:
        folder = self.agent_dir(env.behaviour_name)
        recipe = env.behaviour

        def settings() -> dict[str, Any]:
            record = _behaviour_record(env)
            for key in ("format", "format_version"):
                record.pop(key)
            return {
                **record,
                "iterations": recipe.iterations,
                **(
                    {}
                    if recipe.drop_dominated is None
                    else {"drop_dominated": recipe.drop_dominated}
                ),
            }

        def run() -> dict[str, Any]:
            from paretoscope.train import train_behaviour

            agent = train_behaviour(env.env_id, folder, recipe, progress=self.progress)
            return {"fingerprint": agent.fingerprint()}

        def adopt(_: dict[str, Any]) -> dict[str, Any] | None:
            return self._adopt_behaviour(env, folder)

        return Step(
            id=f"behaviour:{env.behaviour_name}",
            kind="behaviour",
            name=env.behaviour_name,
            outputs=(folder / "config.json",),
            settings=settings,
            run=run,
            growable=frozenset({"iterations"}),
            adopt=adopt,
        )

    def _adopt_behaviour(self, env: EnvRecipe, folder: Path) -> dict[str, Any] | None:
        """A policy set trained earlier with the same settings, every member at the budget."""
        from paretoscope.train.behaviour import (
            RUN_FILE,
            TRAINING_DIR,
            kept_members,
            load_member,
            member_path,
        )

        run_path = folder / TRAINING_DIR / RUN_FILE
        budget = env.behaviour.iterations
        if budget is None or not (run_path.is_file() and (folder / "config.json").is_file()):
            return None
        previous = json.loads(run_path.read_text(encoding="utf-8"))
        record = json.loads(json.dumps(_behaviour_record(env)))
        if previous != record:
            return None  # train_behaviour itself explains the difference when run
        states = []
        for index in range(len(record["preferences"])):
            path = member_path(folder, index)
            if not path.is_file():
                return None
            state = load_member(path)
            if state.iteration < budget or not state.evaluated:
                return None
            states.append(state)
        training = (
            json.loads((folder / "config.json").read_text(encoding="utf-8")).get("training") or {}
        )
        kept = kept_members(states, env.behaviour.drop_dominated)
        dropped = sorted({state.index for state in states} - {state.index for state in kept})
        if training.get("iterations") != [state.iteration for state in kept] or dropped != sorted(
            entry.get("index") for entry in training.get("dropped") or []
        ):
            return None  # the members went on after the set was saved, or others were kept
        return {"fingerprint": self.agent_fingerprint(env.behaviour_name, "adoption")}

    def dataset_step(self, env: EnvRecipe, dataset: DatasetRecipe) -> Step:
        name = env.dataset_name(dataset)
        folder = self.dataset_dir(name)
        spec = get_spec(env.env_id)

        def settings() -> dict[str, Any]:
            return {
                "env_id": env.env_id,
                "agent": env.behaviour_name,
                "agent_fingerprint": self.agent_fingerprint(env.behaviour_name, f"dataset {name}"),
                # Without noise, the settings (and so the ledgers) of noiseless sets are unchanged.
                **{
                    key: value
                    for key, value in asdict(dataset).items()
                    if key != "batch_size" and (key != "action_noise" or value)
                },
                "horizon": dataset.horizon or spec.horizon,
            }

        def run() -> dict[str, Any]:
            from paretoscope.agents import load
            from paretoscope.data.collect import collect

            if (folder / "paretoscope-dataset.json").is_file():
                raise ParetoscopeError(
                    f"{folder}: a dataset made with other settings is in the way; delete it to "
                    "collect it again"
                )
            agent = load(self.agent_dir(env.behaviour_name))
            collect(
                agent,
                env.env_id,
                episodes=dataset.episodes,
                out=folder,
                distribution=dataset.distribution,
                quality=dataset.quality,
                seed=dataset.seed,
                batch_size=dataset.batch_size,
                horizon=dataset.horizon,
                progress=self.progress,
                agent_name=env.behaviour_name,
                action_noise=dataset.action_noise,
            )
            return self._dataset_details(name)

        def adopt(current: dict[str, Any]) -> dict[str, Any] | None:
            header_path = folder / "paretoscope-dataset.json"
            if not header_path.is_file():
                return None
            header = json.loads(header_path.read_text(encoding="utf-8"))
            info = header.get("info") or {}
            extra = info.get("extra") or {}
            same = (
                info.get("env_id") == env.env_id
                and info.get("quality") == dataset.quality
                and info.get("preference_distribution") == dataset.distribution
                and extra.get("seed") == dataset.seed
                and extra.get("episodes_requested") == dataset.episodes
                and extra.get("horizon") == current["horizon"]
                and extra.get("agent") == env.behaviour_name
                and extra.get("action_noise", 0.0) == dataset.action_noise
            )
            return self._dataset_details(name) if same else None

        return Step(
            id=f"dataset:{name}",
            kind="datasets",
            name=name,
            outputs=(folder / "paretoscope-dataset.json",),
            settings=settings,
            run=run,
            adopt=adopt,
        )

    def _dataset_details(self, name: str) -> dict[str, Any]:
        from paretoscope.data.sources import dataset_summary

        summary = dataset_summary(self.dataset_dir(name))
        return {
            "fingerprint": self.dataset_fingerprint(name, f"dataset {name}"),
            "figures": {
                "trajectories": int(summary.n_trajectories),
                "steps": int(summary.n_steps),
                "hypervolume": float(summary.hypervolume),
                "non_dominated_trajectories": int(summary.n_non_dominated),
                "return_min": [float(value) for value in summary.return_min],
                "return_max": [float(value) for value in summary.return_max],
            },
        }

    def agent_step(self, env: EnvRecipe, agent: OfflineRecipe) -> Step:
        name = env.agent_name(agent)
        folder = self.agent_dir(name)
        dataset_name = env.dataset_name(agent.dataset)

        def settings() -> dict[str, Any]:
            return {
                "env_id": env.env_id,
                "dataset_fingerprint": self.dataset_fingerprint(dataset_name, f"agent {name}"),
                **offline_settings_record(agent),
            }

        def run() -> dict[str, Any]:
            from paretoscope.agents.checkpoint import parameter_count
            from paretoscope.train.offline import train_offline

            with torch_threads(TRAINING_THREADS):
                trained = train_offline(
                    agent.kind,
                    self.dataset_dir(dataset_name),
                    folder,
                    agent.settings,
                    env_id=env.env_id,
                    resume=True,
                    progress=self.progress,
                )
            if not self.recipe.keep_offline_training_state:
                from paretoscope.train.offline import STATE_FILE, TRAINING_DIR

                (folder / TRAINING_DIR / STATE_FILE).unlink(missing_ok=True)
            history = (trained.training or {}).get("loss_history") or []
            return {
                "fingerprint": trained.fingerprint(),
                "figures": {
                    "training_steps": int((trained.training or {}).get("steps", 0)),
                    "final_loss": float(history[-1][1]) if history else None,
                    "parameters": int(parameter_count(folder)),
                },
            }

        return Step(
            id=f"agent:{name}",
            kind="agents",
            name=name,
            outputs=(folder / "config.json",),
            settings=settings,
            run=run,
            growable=frozenset({"steps", "checkpoint_every"}),
        )

    def morlb_step(self, agent: MorlbRecipe) -> Step:
        """Train with MORL-Baselines (build-time extra), then import and save the agent."""
        folder = self.agent_dir(agent.name)

        def settings() -> dict[str, Any]:
            settings = {**asdict(agent), "sweep": None, "morl_baselines": MORL_BASELINES_VERSION}
            if agent.keep_saved_file:  # the default: earlier ledgers stay valid
                del settings["keep_saved_file"]
            return settings

        def run() -> dict[str, Any]:
            from paretoscope.agents import save
            from paretoscope.agents.checkpoint import parameter_count
            from paretoscope.agents.importers import import_agent
            from paretoscope.demo import morlb_training as training

            scratch = folder / training.TRAINING_DIR
            saved = scratch / training.saved_file_name(agent.algorithm)
            if not saved.is_file():
                with torch_threads(TRAINING_THREADS):
                    front = (
                        None
                        if agent.front_gamma is None
                        else known_front(agent.env_id, agent.front_gamma)
                    )
                    training.train_with_morl_baselines(
                        agent.algorithm,
                        agent.env_id,
                        scratch,
                        timesteps=agent.timesteps,
                        seed=agent.seed,
                        episode_limit=agent.episode_limit,
                        options={key: _plain(value) for key, value in agent.options},
                        train_options={key: _plain(value) for key, value in agent.train_options},
                        reference_point=get_spec(agent.env_id).reference_point,
                        known_front=None if front is None else front.points.tolist(),
                        progress=self.progress,
                    )
            imported = import_agent(
                saved, env_id=agent.env_id, kind=training.import_kind(agent.algorithm)
            )
            save(imported, folder)
            if not agent.keep_saved_file:
                saved.unlink()
            return {
                "fingerprint": self.agent_fingerprint(agent.name, f"agent {agent.name}"),
                "figures": {
                    "training_steps": agent.timesteps,
                    "parameters": int(parameter_count(folder)),
                },
            }

        return Step(
            id=f"agent:{agent.name}",
            kind="agents",
            name=agent.name,
            outputs=(folder / "config.json",),
            settings=settings,
            run=run,
        )

    def sweep_step(
        self,
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
                "agent_fingerprint": self.agent_fingerprint(name, f"the sweep of {name}"),
                **plan.to_dict(),
                "batch_size": SWEEP_BATCH_SIZE,
                "members": behaviour,
                **({} if front_gamma is None else {"front_gamma": front_gamma}),
            }

        def run() -> dict[str, Any]:
            from paretoscope.agents import load
            from paretoscope.evaluate import sweep
            from paretoscope.results_store import ResultsStore

            agent = load(self.agent_dir(name))
            store = ResultsStore(self.results_dir)
            grid = SweepSettings(
                granularity=plan.granularity,
                seeds=plan.seeds,
                horizon=plan.horizon,
                batch_size=SWEEP_BATCH_SIZE,
                workers=self.recipe.sweep_workers,
            )

            def swept(settings: SweepSettings) -> Any:
                return sweep(
                    agent, env_id, settings, store=store, agent_id=name, progress=self.progress
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
                    raise ParetoscopeError(f"{self.agent_dir(name)}: expected a policy set")
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
            outputs=(self.results_dir / env_id,),
            settings=settings,
            run=run,
            # The results store keeps every episode: a changed plan computes only new ones.
            growable=frozenset(settings_keys_of_sweep()),
        )

    def manifest_step(self) -> Step:
        from paretoscope.demo.manifest import README_FILE, write_demo_manifest

        def settings() -> dict[str, Any]:
            return {
                "recipe": self.recipe.name,
                "title": self.recipe.title,
                "description": self.recipe.description,
                "targets": asdict(self.recipe.targets),
                "opening": [self.recipe.opening_agent, self.recipe.opening_preference],
                # A step rebuilt with the same settings (new figures) is a change too.
                "steps": {
                    step_id: [entry.get("settings_hash"), entry.get("finished")]
                    for step_id, entry in sorted(self.ledger.steps.items())
                    if not step_id.startswith("manifest")
                },
            }

        def run() -> dict[str, Any]:
            write_demo_manifest(self)
            return {}

        return Step(
            id="manifest",
            kind="manifest",
            name="manifest",
            outputs=(self.out / "manifest.json", self.out / README_FILE),
            settings=settings,
            run=run,
            growable=frozenset({"steps", "title", "description", "targets", "recipe", "opening"}),
        )


def seeds_held_out(env: EnvRecipe, plan: SweepPlan) -> bool:
    """Whether no seed of `plan` reset an episode of the env's datasets (the offline agents
    learnt from those episodes, so a sweep on their seeds would replay what they saw)."""
    from paretoscope.data.collect import episode_plan

    n_obj = get_spec(env.env_id).n_obj
    used: set[int] = set()
    for dataset in env.datasets:
        _, env_seeds, _ = episode_plan(dataset.seed, dataset.episodes, n_obj, dataset.distribution)
        used.update(int(seed) for seed in env_seeds)
    return not used.intersection(plan.seeds)


def _plain(value: Any) -> Any:
    """A recipe value as the library takes it: tuples (kept hashable in the recipe) as lists."""
    return list(value) if isinstance(value, tuple) else value


def settings_keys_of_sweep() -> tuple[str, ...]:
    return (
        "agent_fingerprint",
        "granularity",
        "seeds",
        "horizon",
        "batch_size",
        "members",
        "front_gamma",
    )


def offline_settings_record(agent: OfflineRecipe) -> dict[str, Any]:
    """The recipe entry as the ledger keeps it: kind, dataset, hyper-parameters and network
    fields side by side. The snapshot frequency is left out: it does not change the agent (a
    resumed run may change it), and the ledgers were written before it was a setting."""
    hyperparameters = agent.settings.hyperparameters()
    del hyperparameters["snapshot_every"]
    return {
        "kind": agent.kind,
        "dataset": agent.dataset,
        **hyperparameters,
        **asdict(agent.settings.network),
    }


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with `count` torch intra-op threads."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


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
    chosen = select_steps(build.steps(), settings.steps, settings.envs)
    report = BuildReport(folder, recipe.name)
    log(f"demo build ({recipe.name} recipe) into {folder}: {len(chosen)} steps")
    for index, step in enumerate(chosen, start=1):
        outcome = run_step(build, step)
        report.outcomes.append(outcome)
        log(f"[{index}/{len(chosen)}] {step.id}: {outcome.status} ({outcome.seconds:.1f} s)")
    from paretoscope.demo.manifest import current_checks

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
    for step in build.steps():
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
