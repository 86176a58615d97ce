"""One entry of an assets folder described from its header (no weights loaded): an agent file
or folder, a training run, a dataset; and a run's snapshot as an agent of its own. The
manifest's note for the entry adds labels, descriptions and what the file cannot tell."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from paretoscope.agents.formats import header_from_plan, sniff_agent
from paretoscope.catalog.assets import RUN_FORMAT, AgentAsset, DatasetAsset
from paretoscope.catalog.manifest import SweepPlan, manifest_object, sweep_plan_from
from paretoscope.data.formats import sniff_dataset
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.run import TrainingRun, check_consistent, open_run, sniff_run


def entry_name(path: Path) -> str:
    """An entry's name in the catalog and the manifest: a file's stem, a folder's name."""
    return path.stem if path.is_file() else path.name


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
    note = manifest_object(note, f"manifest entry for {path.name}")
    name = entry_name(path)
    plan = sweep_plan_from(note.get("sweep"), f"manifest entry for {name}: sweep") or default_plan
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
    note = manifest_object(note, f"manifest entry for {path.name}")
    name = entry_name(path)
    if not run.snapshots and not run.logged_steps:
        left_out = "; ".join(str(notice) for notice in run.notices)
        raise ParetoscopeError(f"run {path}: no readable snapshot ({left_out})")
    check_consistent(run)
    plan = sweep_plan_from(note.get("sweep"), f"manifest entry for {name}: sweep") or default_plan
    env_id = run.env_id
    if env_id is None and note.get("env") is not None:
        env_id = get_spec(str(note["env"])).id
    noted_kind = note.get("kind") or note.get("peda_type")
    kind = str(noted_kind) if noted_kind and run.plan is not None else run.kind or run.format
    header = header_from_plan(run.plan) if run.plan is not None else None
    skipped = f"; {len(run.notices)} left out" if run.notices else ""
    steps = run.steps or list(run.logged_steps)
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
        steps=tuple(run.steps),
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
    note = manifest_object(note, f"manifest entry for {path.name}")
    env_id = str(note["env"]) if note.get("env") else header.env_id
    if env_id is None:
        raise ParetoscopeError(
            f"{path}: {header.no_env_reason or 'its env is unknown'}; name it in the manifest "
            "('env')"
        )
    get_spec(env_id)
    name = entry_name(path)
    return DatasetAsset(
        name=name,
        path=path,
        format=header.format,
        env_id=env_id,
        label=str(note.get("label") or name),
        description=str(note.get("description") or header.description),
        n_trajectories=header.n_trajectories,
    )
