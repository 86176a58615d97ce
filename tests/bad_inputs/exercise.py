"""Feed one file to the dashboard the way a user's upload travels: stored by the sidebar,
listed by discovery, then loaded and read by the pages. Used by the bad-input corpus test."""

from __future__ import annotations

from pathlib import Path

from paretoscope.asset_agents import load_asset_agent
from paretoscope.catalog import discover_assets
from paretoscope.dashboard.paths import confine_catalog
from paretoscope.dashboard.uploads import store_upload
from paretoscope.errors import ParetoscopeError


def exercise_upload(folder: Path, name: str, payload: bytes, limit: int | None = None) -> str:
    """Upload `payload` as `name` into the session folder `folder`, then discover, load and
    summarise what it holds. Raises `ParetoscopeError` (the message the page shows) when any
    step refuses; returns what was found otherwise."""
    from paretoscope.agents.peda import import_peda, inspect_peda
    from paretoscope.data import dataset_summary
    from paretoscope.rollout import check_agent_fits

    store_upload(folder, name, payload, limit)
    catalog = confine_catalog(discover_assets(folder), [folder])
    if catalog.problems:
        raise ParetoscopeError(
            "; ".join(f"{problem.path.name}: {problem.message}" for problem in catalog.problems)
        )
    found = []
    for agent in catalog.agents:
        if agent.format == "peda":
            info = inspect_peda(agent.path)
            env_id = info.env_guess or (info.env_candidates or ["MO-HalfCheetah-v2"])[0]
            import_peda(agent.path, env_id, info.peda_type or "dt")
        else:
            loaded = load_asset_agent(agent)
            check_agent_fits(loaded.agent, agent.env_id)
        found.append(f"agent {agent.name}")
    for dataset in catalog.datasets:
        dataset_summary(dataset.path, env_id=dataset.env_id)
        found.append(f"dataset {dataset.name}")
    if not found:
        raise ParetoscopeError(f"{name}: holds no agent or dataset that paretoscope can read")
    return ", ".join(found)
