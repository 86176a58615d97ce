"""The assets folder: agents, datasets and precomputed results that the dashboard offers.

Layout (every part optional; a folder the user names, an upload folder and the bundled demo all
follow it)::

    assets/
      manifest.json          labels, defaults and sweep plans (below); without it, names are used
      agents/<name>/         a paretoscope checkpoint (config.json + weights.safetensors)
      agents/<name>.safetensors   a single-file checkpoint
      agents/<name>.ckpt     another tool's checkpoint (PEDA .ckpt, MORL-Baselines .tar, ...),
                             imported when chosen (`paretoscope.agents.importers`; what the file
                             cannot tell, such as its env, is asked)
      agents/<name>/         a training run: snapshots ordered by step (`paretoscope.runs`:
      paretoscope's
                             snapshots/step=N/, PEDA's ckpt/step=N.ckpt, MORL-Baselines saves);
                             listed as one agent (format "run") whose `steps` name them
      datasets/<name>/       a native dataset (paretoscope-dataset.json + .npy columns)
      datasets/<name>.pkl    a D4MORL file
      results/               a `paretoscope.results_store.ResultsStore` with precomputed sweeps
      rollouts/<key>.mp4     precomputed rollout videos, with <key>.json beside each

Discovery reads only small JSON headers (no torch, no weights), so listing a folder is instant.
A broken entry does not hide the others: it is listed in `AssetCatalog.problems` with a message.

``manifest.json`` (format "paretoscope-assets", version 1)::

    {"format": "paretoscope-assets", "version": 1,
     "title": "...", "description": "...",
     "defaults": {"env": "MO-HalfCheetah-v2", "agent": "cheetah-morvs",
                  "dataset": "cheetah-expert", "seed": 0},
     "sweep": {"granularity": 20, "seeds": [0], "horizon": null},
     "agents": {"cheetah-morvs": {"label": "...", "description": "...",
                                   "dataset": "cheetah-expert", "sweep": {...}}},
     "datasets": {"cheetah-expert": {"label": "...", "description": "...", "env": "..."}}}

A sweep plan says which sweep the dashboard shows for an agent (preference grid granularity,
seeds, episode length); whoever precomputes sweeps into ``results/`` uses the same plan, so the
dashboard finds every episode already stored. The episode length also applies to live rollouts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paretoscope.agents.builtin import BUILTIN_FORMAT, PLUGIN_FORMAT
from paretoscope.agents.formats import claims_agent, header_from_plan, sniff_agent
from paretoscope.data.formats import claims_dataset, sniff_dataset
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.jsonfile import read_json_object
from paretoscope.runs.run import TrainingRun, check_consistent, open_run, sniff_run

MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = "paretoscope-assets"
MANIFEST_VERSION = 1
AGENTS_DIR = "agents"
DATASETS_DIR = "datasets"
RESULTS_DIR = "results"
ROLLOUTS_DIR = "rollouts"
# Environment variable naming the default assets folder (the bundled demo otherwise).
ASSETS_ENV_VAR = "PARETOSCOPE_ASSETS"
# The format of an asset that is a whole training run (`paretoscope.runs`), not one checkpoint.
RUN_FORMAT = "run"
# Bump when a recorded rollout's content changes (rendering, encoding): old recordings are ignored.
RECORDING_VERSION = 1


@dataclass(frozen=True)
class SweepPlan:
    """Which sweep represents an agent: preference grid granularity, seeds, episode length."""

    granularity: int
    seeds: tuple[int, ...] = (0,)
    horizon: int | None = None  # None: the env's own horizon

    def __post_init__(self) -> None:
        if isinstance(self.granularity, bool) or not isinstance(self.granularity, int):
            raise ParetoscopeError(
                f"sweep.granularity: expected an integer, got {self.granularity!r}"
            )
        if self.granularity < 1:
            raise ParetoscopeError(f"sweep.granularity: expected >= 1, got {self.granularity}")
        if not self.seeds:
            raise ParetoscopeError("sweep.seeds: expected at least one seed")
        if self.horizon is not None and self.horizon < 1:
            raise ParetoscopeError(f"sweep.horizon: expected >= 1 or null, got {self.horizon}")

    def to_dict(self) -> dict[str, Any]:
        return {"granularity": self.granularity, "seeds": list(self.seeds), "horizon": self.horizon}


def default_sweep_plan(n_obj: int) -> SweepPlan:
    """The plan used when the manifest names none: a grid as fine as the dashboard's sliders."""
    granularity = {1: 1, 2: 20, 3: 10, 4: 6}.get(n_obj, 4)
    return SweepPlan(granularity=granularity)


@dataclass(frozen=True)
class AgentAsset:
    """An agent file or folder, described from its config without loading weights."""

    name: str
    path: Path
    format: str  # "checkpoint", an importer's name (peda, ...), BUILTIN_FORMAT or PLUGIN_FORMAT
    env_id: str | None  # None for a foreign checkpoint whose env must be asked for
    kind: str  # morvs, bc, modt, policy_set, ... or the foreign kind (dt, envelope, ...)
    return_conditioned: bool
    label: str
    description: str = ""
    dataset: str | None = None  # name of the dataset asset it was trained on, when known
    sweep: SweepPlan | None = None  # from the manifest; None: the default plan
    # A foreign file's questions still open before it can be imported ("env", "kind", an
    # importer's option, "trust"): the dashboard's import form asks them.
    open_questions: tuple[str, ...] = ()
    # A training run's snapshot steps, in order (format "run"; `snapshot_asset` picks one).
    steps: tuple[int, ...] = ()

    @property
    def is_run(self) -> bool:
        return self.format == RUN_FORMAT

    @property
    def n_obj(self) -> int | None:
        return None if self.env_id is None else get_spec(self.env_id).n_obj

    @property
    def builtin(self) -> bool:
        """A named agent (`paretoscope.agents.builtin`: built in or a plug-in): its `path` names it
        and is no file."""
        return self.format in (BUILTIN_FORMAT, PLUGIN_FORMAT)

    @property
    def import_kind(self) -> str | None:
        """For another tool's file, its kind when the file or the manifest says it; None when
        it is still to be asked (`kind` then holds the format's name)."""
        return None if self.kind == self.format else self.kind

    def sweep_plan(self) -> SweepPlan:
        if self.sweep is not None:
            return self.sweep
        return default_sweep_plan(self.n_obj or 2)


@dataclass(frozen=True)
class DatasetAsset:
    """A dataset file or folder, described from its header."""

    name: str
    path: Path
    format: str  # a name from paretoscope.data.formats: native, d4morl, minari, ...
    env_id: str
    label: str
    description: str = ""
    n_trajectories: int | None = None


@dataclass(frozen=True)
class AssetProblem:
    """An entry that could not be listed, and why."""

    path: Path
    message: str


@dataclass(frozen=True)
class AssetCatalog:
    """Everything found in one or more assets folders."""

    roots: tuple[Path, ...] = ()
    title: str = "paretoscope"
    description: str = ""
    agents: tuple[AgentAsset, ...] = ()
    datasets: tuple[DatasetAsset, ...] = ()
    results_dirs: tuple[Path, ...] = ()
    rollout_dirs: tuple[Path, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[AssetProblem, ...] = ()

    def env_ids(self) -> list[str]:
        """Env ids that have at least one agent or dataset, in the registry's order (reads
        no spec: most registered specs are built lazily, from the env itself)."""
        present = {agent.env_id for agent in self.agents} | {d.env_id for d in self.datasets}
        from paretoscope.envs import list_ids

        return [env_id for env_id in list_ids() if env_id in present]

    def agents_for(self, env_id: str) -> list[AgentAsset]:
        """The folders' agents for `env_id` that can be loaded now (without the built-in ones:
        `agent_choices`; foreign files with questions open: `pending_agents`)."""
        return [
            agent for agent in self.agents if agent.env_id == env_id and not agent.open_questions
        ]

    def agent_choices(self, env_id: str) -> list[AgentAsset]:
        """What a user can pick for `env_id`: the folders' agents, then every named agent that
        serves it (the built-in ones, the plug-ins the server was started with).

        A named agent keeps its own name unless a folder's agent has it (a file called
        ``random``): then it is ``random (built-in)``, so that neither hides the other, and
        the name alone (a link's ``agent=random``) means the file, as on the command line.
        Where the folder's agents of `env_id` share one sweep plan, the named ones use it too
        (the same episode length and grid: their fronts compare); else the env's default.
        """
        from paretoscope.agents.builtin import named_agents

        found = self.agents_for(env_id)
        taken = {agent.name for agent in self.agents}
        plans = {agent.sweep_plan() for agent in found}
        shared = next(iter(plans)) if len(plans) == 1 else None
        named = []
        for agent in named_agents(env_id):
            name = agent.name
            shown = name if name not in taken else _unique(f"{name} (built-in)", taken)
            named.append(replace(builtin_asset(name, env_id, shown), sweep=shared))
        return found + named

    def agent_choice(self, env_id: str, name: str) -> AgentAsset:
        """The agent called `name` among `agent_choices(env_id)`; raises when there is none."""
        for agent in self.agent_choices(env_id):
            if agent.name == name:
                return agent
        raise ParetoscopeError(
            f"no agent named {name!r} for {env_id} in the assets ({self._where()}) or built in"
        )

    def pending_agents(self) -> list[AgentAsset]:
        """Foreign checkpoints with questions open (env, kind, trust...): the user must say."""
        return [agent for agent in self.agents if agent.env_id is None or agent.open_questions]

    def datasets_for(self, env_id: str) -> list[DatasetAsset]:
        return [dataset for dataset in self.datasets if dataset.env_id == env_id]

    def agent(self, name: str) -> AgentAsset:
        for agent in self.agents:
            if agent.name == name:
                return agent
        raise ParetoscopeError(f"no agent named {name!r} in the assets ({self._where()})")

    def dataset(self, name: str) -> DatasetAsset:
        for dataset in self.datasets:
            if dataset.name == name:
                return dataset
        raise ParetoscopeError(f"no dataset named {name!r} in the assets ({self._where()})")

    def _where(self) -> str:
        return ", ".join(str(root) for root in self.roots) or "no folder"

    def merged(self, other: AssetCatalog) -> AssetCatalog:
        """This catalog plus `other`'s entries; on a name clash the later one gets a suffix."""
        agents = list(self.agents)
        taken = {agent.name for agent in agents}
        for agent in other.agents:
            agents.append(replace(agent, name=_unique(agent.name, taken)))
        datasets = list(self.datasets)
        taken = {dataset.name for dataset in datasets}
        for dataset in other.datasets:
            datasets.append(replace(dataset, name=_unique(dataset.name, taken)))
        return AssetCatalog(
            roots=self.roots + other.roots,
            title=self.title,
            description=self.description,
            agents=tuple(agents),
            datasets=tuple(datasets),
            results_dirs=self.results_dirs + other.results_dirs,
            rollout_dirs=self.rollout_dirs + other.rollout_dirs,
            defaults=dict(self.defaults) or dict(other.defaults),
            problems=self.problems + other.problems,
        )


def builtin_asset(builtin: str, env_id: str, name: str | None = None) -> AgentAsset:
    """The named agent `builtin` (``random``, a plug-in) for `env_id`, as a catalog entry
    called `name` (default: `builtin`). Its sweep plan is the default one for the env."""
    from paretoscope.agents.builtin import named_agent

    agent = named_agent(builtin)
    spec = get_spec(env_id)
    return AgentAsset(
        name=name or builtin,
        path=Path(builtin),
        format=agent.format,
        env_id=spec.id,
        kind=builtin,
        return_conditioned=False,
        label=agent.label,
        description=agent.description,
    )


def _unique(name: str, taken: set[str]) -> str:
    candidate, index = name, 2
    while candidate in taken:
        candidate = f"{name} ({index})"
        index += 1
    taken.add(candidate)
    return candidate


def bundled_assets_dir() -> Path:
    """The bundled demo: ``<repo>/assets`` in a checkout (where `paretoscope demo build` writes
    it), else the copy a plain install ships as package data (``paretoscope/assets``)."""
    package = Path(__file__).resolve().parent
    checkout = package.parent / "assets"
    if (package.parent / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return package / "assets"


def default_assets_dir() -> Path:
    """`$PARETOSCOPE_ASSETS` when set, else the bundled demo."""
    override = os.environ.get(ASSETS_ENV_VAR)
    return Path(override).expanduser() if override else bundled_assets_dir()


# --- discovery --------------------------------------------------------------------------------


def discover_assets(root: str | os.PathLike[str]) -> AssetCatalog:
    """List what `root` holds (layout in the module docstring).

    `root` may also be a plain folder of checkpoints and datasets (no agents/ or datasets/
    sub-folders): its entries are then scanned directly. Raises `ParetoscopeError` only when
    `root` is not a readable directory or its manifest is malformed.
    """
    folder = Path(root).expanduser()
    if not folder.exists():
        raise ParetoscopeError(f"assets folder {folder}: no such directory")
    if not folder.is_dir():
        raise ParetoscopeError(f"assets folder {folder}: not a directory")
    manifest = read_manifest(folder)
    problems: list[AssetProblem] = []
    default_plan = _plan_from(manifest.get("sweep"), f"{folder / MANIFEST_FILE}: sweep")
    agent_notes = _mapping(manifest.get("agents"), f"{folder / MANIFEST_FILE}: agents")
    dataset_notes = _mapping(manifest.get("datasets"), f"{folder / MANIFEST_FILE}: datasets")

    agents_dir = folder / AGENTS_DIR
    datasets_dir = folder / DATASETS_DIR
    structured = agents_dir.is_dir() or datasets_dir.is_dir()
    agent_entries = _entries(agents_dir) if structured else _entries(folder)
    dataset_entries = _entries(datasets_dir) if structured else _entries(folder)

    agents: list[AgentAsset] = []
    datasets: list[DatasetAsset] = []
    for path in agent_entries:
        try:
            agent = describe_agent(path, agent_notes.get(_entry_name(path)), default_plan)
        except ParetoscopeError as error:
            if structured:
                problems.append(AssetProblem(path, str(error)))
            continue
        if agent is not None:
            agents.append(agent)
    for path in dataset_entries:
        try:
            dataset = describe_dataset(path, dataset_notes.get(_entry_name(path)))
        except ParetoscopeError as error:
            if structured:
                problems.append(AssetProblem(path, str(error)))
            continue
        if dataset is not None:
            datasets.append(dataset)
    if not structured:
        # A flat folder: entries that are neither agents nor datasets were skipped silently,
        # but one that claims to be a checkpoint or dataset and fails to parse is reported.
        problems.extend(_flat_problems(folder, agents, datasets, agent_notes, default_plan))

    results = folder / RESULTS_DIR
    rollouts = folder / ROLLOUTS_DIR
    defaults = _mapping(manifest.get("defaults"), f"{folder / MANIFEST_FILE}: defaults")
    return AssetCatalog(
        roots=(folder,),
        title=str(manifest.get("title") or "paretoscope"),
        description=str(manifest.get("description") or ""),
        agents=tuple(agents),
        datasets=tuple(datasets),
        results_dirs=(results,) if results.is_dir() else (),
        rollout_dirs=(rollouts,) if rollouts.is_dir() else (),
        defaults=dict(defaults),
        problems=tuple(problems),
    )


def discover_many(roots: Iterable[str | os.PathLike[str]]) -> AssetCatalog:
    """One catalog over several folders; a folder that cannot be read becomes a problem entry."""
    catalog: AssetCatalog | None = None
    for root in roots:
        try:
            found = discover_assets(root)
        except ParetoscopeError as error:
            found = AssetCatalog(problems=(AssetProblem(Path(root), str(error)),))
        catalog = found if catalog is None else catalog.merged(found)
    return catalog if catalog is not None else AssetCatalog()


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest's content ({} when there is none); a malformed one raises."""
    path = folder / MANIFEST_FILE
    if not path.is_file():
        return {}
    data = read_json_object(path)
    if data.get("format", MANIFEST_FORMAT) != MANIFEST_FORMAT:
        raise ParetoscopeError(
            f"{path}: format is {data.get('format')!r}, expected {MANIFEST_FORMAT!r}"
        )
    version = data.get("version", MANIFEST_VERSION)
    if version != MANIFEST_VERSION:
        raise ParetoscopeError(
            f"{path}: version {version!r}; this paretoscope reads version {MANIFEST_VERSION}"
        )
    return data


def write_manifest(folder: str | os.PathLike[str], content: Mapping[str, Any]) -> Path:
    """Write `content` (format and version added) as the folder's manifest."""
    path = Path(folder) / MANIFEST_FILE
    payload = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, **dict(content)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return path


def _entries(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if not path.name.startswith("."))


def _entry_name(path: Path) -> str:
    return path.stem if path.is_file() else path.name


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParetoscopeError(f"{where}: expected an object")
    return value


def _plan_from(value: object, where: str) -> SweepPlan | None:
    if value is None:
        return None
    data = _mapping(value, where)
    try:
        seeds = tuple(int(seed) for seed in data.get("seeds", [0]))
        horizon = data.get("horizon")
        return SweepPlan(
            granularity=data["granularity"],
            seeds=seeds,
            horizon=None if horizon is None else int(horizon),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"{where}: expected granularity (integer), seeds (list) and horizon ({error!r})"
        ) from None


def describe_agent(
    path: Path, note: Mapping[str, Any] | None = None, default_plan: SweepPlan | None = None
) -> AgentAsset | None:
    """An `AgentAsset` for whatever agent format claims `path` (`paretoscope.agents.formats`), with
    the manifest's note (label, description, dataset, sweep, env and type hints); None when no
    format claims it."""
    run = sniff_run(path)
    if run is not None:
        return describe_run(path, run, note, default_plan)
    header = sniff_agent(path)
    if header is None:
        return None
    note = _mapping(note, f"manifest entry for {path.name}")
    name = _entry_name(path)
    plan = _plan_from(note.get("sweep"), f"manifest entry for {name}: sweep") or default_plan
    dataset = note.get("dataset")
    env_id, kind = header.env_id, header.kind
    if header.env_id is None and note.get("env") is not None:
        env_id = get_spec(str(note["env"])).id
    # "kind" names a foreign file's kind; "peda_type" is its older spelling for PEDA files.
    noted_kind = note.get("kind") or note.get("peda_type")
    if header.plan is not None and noted_kind:
        kind = str(noted_kind)
    return AgentAsset(
        name=name,
        path=path,
        format=header.format,
        env_id=env_id,
        kind=kind,
        return_conditioned=header.return_conditioned,
        label=str(note.get("label") or name),
        description=str(note.get("description") or header.description),
        dataset=str(dataset) if dataset else None,
        sweep=plan,
        open_questions=header.open_questions(env_id, kind if noted_kind else None),
    )


def describe_run(
    path: Path,
    run: TrainingRun,
    note: Mapping[str, Any] | None = None,
    default_plan: SweepPlan | None = None,
) -> AgentAsset:
    """An `AgentAsset` for a training run folder: one agent whose `steps` are its snapshots."""
    note = _mapping(note, f"manifest entry for {path.name}")
    name = _entry_name(path)
    if not run.snapshots:
        left_out = "; ".join(str(notice) for notice in run.notices)
        raise ParetoscopeError(f"run {path}: no readable snapshot ({left_out})")
    check_consistent(run)
    plan = _plan_from(note.get("sweep"), f"manifest entry for {name}: sweep") or default_plan
    env_id = run.env_id
    if env_id is None and note.get("env") is not None:
        env_id = get_spec(str(note["env"])).id
    noted_kind = note.get("kind") or note.get("peda_type")
    kind = str(noted_kind) if noted_kind and run.plan is not None else run.kind or run.format
    header = header_from_plan(run.plan) if run.plan is not None else None
    skipped = f"; {len(run.notices)} left out" if run.notices else ""
    steps = run.steps
    return AgentAsset(
        name=name,
        path=path,
        format=RUN_FORMAT,
        env_id=env_id,
        kind=kind,
        return_conditioned=run.return_conditioned,
        label=str(note.get("label") or name),
        description=str(note.get("description") or "")
        or f"{run.description}: steps {steps[0]}–{steps[-1]}{skipped}",
        dataset=str(note["dataset"]) if note.get("dataset") else None,
        sweep=plan,
        open_questions=()
        if header is None
        else header.open_questions(env_id, str(noted_kind) if noted_kind else None),
        steps=tuple(steps),
    )


def snapshot_asset(asset: AgentAsset, step: int, run: TrainingRun | None = None) -> AgentAsset:
    """The agent of a run's snapshot at `step`, as an asset of its own (a paretoscope
    checkpoint, or a file for the run's importer): everything that loads, sweeps and rolls out
    an asset works on it unchanged, and its episodes are the ones `evaluate RUN` stores.
    `run` is the asset's run when already open (each step then does not read the folder)."""
    if not asset.is_run:
        raise ParetoscopeError(f"{asset.label} is not a training run")
    run = open_run(asset.path) if run is None else run
    snapshot = run.snapshot(step)
    return replace(
        asset,
        name=f"{asset.name}@{snapshot.label}",
        path=snapshot.path,
        format=run.agent_format,
        label=f"{asset.label} · step {step}",
        steps=(),
    )


def describe_dataset(path: Path, note: Mapping[str, Any] | None = None) -> DatasetAsset | None:
    """A `DatasetAsset` for whatever dataset format claims `path` (`paretoscope.data.formats`), with
    the manifest's note (label, description, env); None when no format claims it."""
    header = sniff_dataset(path)
    if header is None:
        return None
    note = _mapping(note, f"manifest entry for {path.name}")
    env_id = str(note["env"]) if note.get("env") else header.env_id
    if env_id is None:
        raise ParetoscopeError(
            f"{path}: {header.no_env_reason or 'its env is unknown'}; name it in the manifest "
            "('env')"
        )
    get_spec(env_id)
    name = _entry_name(path)
    return DatasetAsset(
        name=name,
        path=path,
        format=header.format,
        env_id=env_id,
        label=str(note.get("label") or name),
        description=str(note.get("description") or header.description),
        n_trajectories=header.n_trajectories,
    )


def _flat_problems(
    folder: Path,
    agents: Sequence[AgentAsset],
    datasets: Sequence[DatasetAsset],
    notes: Mapping[str, Any],
    default_plan: SweepPlan | None,
) -> list[AssetProblem]:
    listed = {agent.path for agent in agents} | {dataset.path for dataset in datasets}
    problems = []
    for path in _entries(folder):
        if path in listed:
            continue
        claimed_as_dataset = claims_dataset(path)
        if not (claimed_as_dataset or claims_agent(path)):
            continue
        try:
            if claimed_as_dataset:
                describe_dataset(path)
            else:
                describe_agent(path, notes.get(_entry_name(path)), default_plan)
        except ParetoscopeError as error:
            problems.append(AssetProblem(path, str(error)))
    return problems
