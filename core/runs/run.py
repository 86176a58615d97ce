"""A training run as one object: its snapshots ordered by step, whoever wrote them.

A run format is one module with one object (`RunReader`) that has
- ``name`` (``paretoscope``, ``peda``, ``morl-baselines``, ...);
- ``sniff(path) -> TrainingRun | None``: cheap (file names, JSON headers, pickle opcodes; no
  torch), None for a folder it does not read. A snapshot it cannot read is not fatal: it is
  left out with a `RunNotice` saying why, and the rest of the run is kept;
- ``load(run, snapshot, answers, device) -> Agent``: one snapshot as a paretoscope agent;
- optionally ``logged_fronts(run) -> (fronts, notices)``: evaluations the trainer itself saved
  beside its checkpoints (PEDA's ``logs/step=N_rollout.pkl``) or logged (a W&B run's
  ``eval/front`` tables), shown without re-running. A run of logged evaluations only (W&B)
  has no snapshot: its `logged_steps` say what it holds.

`register_run_format` adds one, and so does an installed package's entry point in the group
``paretoscope.run_formats``; `sniff_run` and `open_run` ask them in turn, so the CLI, asset
discovery and the dashboard never name a format.

Every snapshot of a run must be the same env and the same architecture: `check_consistent`
names the odd snapshot(s) when they are not (a run folder that mixes two experiments).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry, with_members

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.agents.importers import ImportAnswers, ImportPlan


@dataclass(frozen=True)
class Snapshot:
    """One checkpoint of a run, at a training step (an iteration for trainers that count so)."""

    step: int
    path: Path
    # What must agree across the run: env and network layout, as cheaply as the file tells.
    # None when the file does not say (the run's answers then decide).
    env_id: str | None
    signature: str

    @property
    def label(self) -> str:
        return f"step={self.step}"


@dataclass(frozen=True)
class RunNotice:
    """A snapshot (or a trainer's log) left out, and why."""

    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path.name}: {self.message}"


@dataclass(frozen=True)
class LoggedFront:
    """An evaluation the trainer saved at `step`: mean returns per preference."""

    step: int
    preferences: np.ndarray  # (P, n_obj); NaN rows where the trainer logged points only
    returns: np.ndarray  # (P, n_obj), unweighted
    source: Path
    # The numbers the trainer logged at that step (W&B's eval/hypervolume, ...), by key.
    scalars: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class TrainingRun:
    """A run folder's snapshots, ordered by step, with the snapshots left out and why."""

    root: Path
    format: str  # the reader's name
    kind: str | None  # the model kind all snapshots share (None: still to be asked)
    env_id: str | None  # None when the files do not say (asked, as for an import)
    snapshots: tuple[Snapshot, ...]
    notices: tuple[RunNotice, ...] = ()
    description: str = ""
    return_conditioned: bool = False
    # For another tool's files: what its importer made of the last snapshot (the questions an
    # import still asks, whether it needs trust); None for paretoscope's own checkpoints.
    plan: ImportPlan | None = None
    # The steps of the evaluations the trainer logged, for a run that has no snapshot (W&B).
    logged_steps: tuple[int, ...] = ()
    # Which logged table is the front, for formats that log several (W&B's table key).
    logged_key: str | None = None

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def steps(self) -> list[int]:
        return [snapshot.step for snapshot in self.snapshots]

    def snapshot(self, step: int) -> Snapshot:
        for snapshot in self.snapshots:
            if snapshot.step == step:
                return snapshot
        raise ParetoscopeError(
            f"run {self.name}: no snapshot at step {step} (steps: {_step_list(self.steps)})"
        )

    def load(
        self, snapshot: Snapshot, answers: ImportAnswers | None = None, device: str = "cpu"
    ) -> Agent:
        """The agent of one snapshot (another tool's file is imported with `answers`); a
        `device` the agent would not act on is refused."""
        from paretoscope.agents.device import check_device_used, resolve_device
        from paretoscope.agents.importers import ImportAnswers

        resolved = resolve_device(device)
        reader = get_run_reader(self.format)
        agent = reader.load(self, snapshot, answers or ImportAnswers(), device)
        check_device_used(agent, resolved, snapshot.path)
        return agent

    @property
    def agent_format(self) -> str:
        """The format a snapshot is loaded as: "checkpoint" or the importer's name."""
        return get_run_reader(self.format).agent_format

    def logged_fronts(self) -> tuple[list[LoggedFront], list[RunNotice]]:
        """What the trainer evaluated and saved itself, per step (empty for most formats)."""
        reader = get_run_reader(self.format)
        read = getattr(reader, "logged_fronts", None)
        return read(self) if callable(read) else ([], [])


class RunReader(Protocol):
    name: str
    agent_format: str  # how one snapshot is read: "checkpoint" or an importer's name

    def sniff(self, path: Path) -> TrainingRun | None: ...

    def load(
        self, run: TrainingRun, snapshot: Snapshot, answers: ImportAnswers, device: str
    ) -> Agent: ...


RUN_FORMATS: Registry[RunReader] = Registry(
    "run format",
    {
        "paretoscope": "paretoscope.runs.native:READER",
        "peda": "paretoscope.runs.peda:READER",
        "morl-baselines": "paretoscope.runs.morlb:READER",
        "wandb": "paretoscope.runs.wandb_run:READER",
    },
    entry_point_group="paretoscope.run_formats",
    from_entry_point=with_members("a run format", "name", "agent_format", "sniff", "load"),
)


def register_run_format(name: str, reader: RunReader | str, replace: bool = False) -> None:
    """Add a run format (asked after the ones before it); ``"module:attribute"`` is imported
    when first needed. An existing name is refused unless `replace`."""
    RUN_FORMATS.register(name, reader, replace=replace)


def run_format_names() -> list[str]:
    return RUN_FORMATS.names()


def get_run_reader(name: str) -> RunReader:
    return RUN_FORMATS.get(name)


def sniff_run(path: str | Path) -> TrainingRun | None:
    """The run of the first format that reads `path` (a folder); None when none does."""
    location = Path(path)
    if not location.is_dir():
        return None
    for reader in RUN_FORMATS.values():
        run = reader.sniff(location)
        if run is not None:
            return run
    return None


def open_run(path: str | Path) -> TrainingRun:
    """The training run in folder `path`, checked to be one env and one architecture; raises
    naming what is wrong when no format reads it or it has no readable snapshot."""
    location = Path(path)
    if not location.exists():
        raise ParetoscopeError(f"{location}: no such folder")
    run = sniff_run(location)
    if run is None:
        raise ParetoscopeError(
            f"{location}: not a training run (no snapshots: paretoscope's snapshots/step=N/, "
            "PEDA's ckpt/step=N.ckpt, MORL-Baselines saves with step=N or iter=N in their "
            "names, or a W&B run folder wandb/run-* or wandb/offline-run-*)"
        )
    if not run.snapshots and not run.logged_steps:
        left_out = "; ".join(str(notice) for notice in run.notices) or "none found"
        raise ParetoscopeError(f"run {location}: no readable snapshot ({left_out})")
    check_consistent(run)
    return run


def check_consistent(run: TrainingRun) -> None:
    """Raise naming the snapshot(s) whose env or architecture differs from the run's."""
    for what, value_of in (
        ("env", lambda snapshot: snapshot.env_id),
        ("architecture", lambda snapshot: snapshot.signature),
    ):
        odd = odd_ones(run.snapshots, value_of)
        if odd:
            common = value_of(next(s for s in run.snapshots if s not in odd))
            named = ", ".join(f"{s.label} ({s.path}: {value_of(s)})" for s in odd)
            raise ParetoscopeError(
                f"run {run.root} mixes {what}s: {named} differ from the other "
                f"{len(run.snapshots) - len(odd)} snapshots ({common}); move the odd snapshot "
                "out of the folder or evaluate it on its own"
            )


def odd_ones(
    snapshots: Sequence[Snapshot], value_of: Callable[[Snapshot], object]
) -> list[Snapshot]:
    """The snapshots whose value differs from the most common one (ties: the earliest step's)."""
    values = [value_of(snapshot) for snapshot in snapshots]
    counts = Counter(values)
    if len(counts) < 2:
        return []
    top = max(counts.values())
    common = next(value for value in values if counts[value] == top)
    return [snapshot for snapshot, value in zip(snapshots, values, strict=True) if value != common]


def ordered(snapshots: Sequence[Snapshot], notices: list[RunNotice]) -> tuple[Snapshot, ...]:
    """`snapshots` by step; a second file at a step already taken is left out with a notice."""
    by_step: dict[int, Snapshot] = {}
    for snapshot in sorted(snapshots, key=lambda s: (s.step, s.path.name)):
        if snapshot.step in by_step:
            notices.append(
                RunNotice(
                    snapshot.path,
                    f"a second snapshot at step {snapshot.step} "
                    f"(kept {by_step[snapshot.step].path.name})",
                )
            )
            continue
        by_step[snapshot.step] = snapshot
    return tuple(by_step.values())


def with_answers(run: TrainingRun, env_id: str | None) -> TrainingRun:
    """`run` with the env a user named, for runs whose files do not say it."""
    if env_id is None or run.env_id == env_id:
        return run
    if run.env_id is not None:
        raise ParetoscopeError(f"run {run.root} is for {run.env_id}, not {env_id}")
    return replace(run, env_id=env_id)


def _step_list(steps: Sequence[int]) -> str:
    shown = ", ".join(str(step) for step in steps[:12])
    return shown + (f", … ({len(steps)} in all)" if len(steps) > 12 else "")
