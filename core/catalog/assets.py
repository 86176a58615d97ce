"""What a catalog lists: agent and dataset entries, the entries that could not be listed, and
the catalog itself (one or more assets folders, merged)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paretoscope.agents.builtin import BUILTIN_FORMAT, PLUGIN_FORMAT
from paretoscope.catalog.manifest import SweepPlan, default_sweep_plan
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# The format of an asset that is a whole training run (`paretoscope.runs`), not one checkpoint.
RUN_FORMAT = "run"


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
            f"no agent named {briefly(name)} for {env_id} in the assets ({self._where()}) or "
            "built in"
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
        raise ParetoscopeError(f"no agent named {briefly(name)} in the assets ({self._where()})")

    def dataset(self, name: str) -> DatasetAsset:
        for dataset in self.datasets:
            if dataset.name == name:
                return dataset
        raise ParetoscopeError(f"no dataset named {briefly(name)} in the assets ({self._where()})")

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
