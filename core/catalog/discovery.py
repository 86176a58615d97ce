"""Discovery: what one or more assets folders hold (layout in `paretoscope.catalog`), and where
the default folder is.

Discovery reads only small JSON headers (no torch, no weights), so listing a folder is instant.
A broken entry does not hide the others: it is listed in `AssetCatalog.problems` with a message.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from paretoscope.agents.formats import claims_agent
from paretoscope.catalog.assets import AgentAsset, AssetCatalog, AssetProblem, DatasetAsset
from paretoscope.catalog.describe import describe_agent, describe_dataset, entry_name
from paretoscope.catalog.manifest import (
    MANIFEST_FILE,
    SweepPlan,
    manifest_object,
    read_manifest,
    sweep_plan_from,
)
from paretoscope.data.formats import claims_dataset
from paretoscope.errors import ParetoscopeError

AGENTS_DIR = "agents"
DATASETS_DIR = "datasets"
RESULTS_DIR = "results"
ROLLOUTS_DIR = "rollouts"
# Environment variable naming the default assets folder (the bundled demo otherwise).
ASSETS_ENV_VAR = "PARETOSCOPE_ASSETS"


def bundled_assets_dir() -> Path:
    """The bundled demo: ``<repo>/assets`` in a checkout (where `paretoscope demo build` writes
    it), else the copy a plain install ships as package data (``paretoscope/assets``)."""
    package = Path(__file__).resolve().parents[1]  # paretoscope itself, not its catalog/
    checkout = package.parent / "assets"
    if (package.parent / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return package / "assets"


def default_assets_dir() -> Path:
    """`$PARETOSCOPE_ASSETS` when set, else the bundled demo."""
    override = os.environ.get(ASSETS_ENV_VAR)
    return Path(override).expanduser() if override else bundled_assets_dir()


def discover_assets(root: str | os.PathLike[str]) -> AssetCatalog:
    """List what `root` holds (layout in `paretoscope.catalog`).

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
    default_plan = sweep_plan_from(manifest.get("sweep"), f"{folder / MANIFEST_FILE}: sweep")
    agent_notes = manifest_object(manifest.get("agents"), f"{folder / MANIFEST_FILE}: agents")
    dataset_notes = manifest_object(manifest.get("datasets"), f"{folder / MANIFEST_FILE}: datasets")

    agents_dir = folder / AGENTS_DIR
    datasets_dir = folder / DATASETS_DIR
    structured = agents_dir.is_dir() or datasets_dir.is_dir()
    agent_entries = _entries(agents_dir) if structured else _entries(folder)
    dataset_entries = _entries(datasets_dir) if structured else _entries(folder)

    agents: list[AgentAsset] = []
    datasets: list[DatasetAsset] = []
    for path in agent_entries:
        try:
            agent = describe_agent(path, agent_notes.get(entry_name(path)), default_plan)
        except ParetoscopeError as error:
            if structured:
                problems.append(AssetProblem(path, str(error)))
            continue
        if agent is not None:
            agents.append(agent)
    for path in dataset_entries:
        try:
            dataset = describe_dataset(path, dataset_notes.get(entry_name(path)))
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
    defaults = manifest_object(manifest.get("defaults"), f"{folder / MANIFEST_FILE}: defaults")
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


def _entries(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if not path.name.startswith("."))


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
                describe_agent(path, notes.get(entry_name(path)), default_plan)
        except ParetoscopeError as error:
            problems.append(AssetProblem(path, str(error)))
    return problems
