"""The agent a catalog entry describes, loaded for serving (`paretoscope.agents.loaded`).

A service above the agents: an entry may be a paretoscope checkpoint, another tool's file (read
by its importer), a built-in agent named for an env, or a whole training run (`paretoscope.runs`).
"""

from __future__ import annotations

from collections.abc import Mapping

from paretoscope.agents import load
from paretoscope.agents.base import Agent, agent_fingerprint
from paretoscope.agents.builtin import builtin_agent
from paretoscope.agents.header import CHECKPOINT_FORMAT
from paretoscope.agents.importers import import_agent
from paretoscope.agents.loaded import LoadedAgent
from paretoscope.catalog import AgentAsset, snapshot_asset
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.run import open_run


def load_asset_agent(
    asset: AgentAsset,
    env_id: str | None = None,
    kind: str | None = None,
    trust: bool = False,
    options: Mapping[str, str] | None = None,
) -> LoadedAgent:
    """Load a catalog's agent: a paretoscope checkpoint as it is, another tool's file through
    its importer (with `env_id`, `kind`, `trust` and `options` where the file does not say), a
    built-in agent built by name for its env (never read from a file of that name)."""
    if asset.is_run:
        # A whole run acts as its last snapshot (the run's pages choose other steps): the
        # folder's last, as the asset may be rebuilt from plain values without its steps.
        run = open_run(asset.path)
        if not run.snapshots:
            raise ParetoscopeError(
                f"{asset.label}: a run of logged fronts only ({run.description}), with no agent "
                "to load; the Training page shows its fronts"
            )
        last = snapshot_asset(asset, run.steps[-1], run)
        return load_asset_agent(last, env_id, kind, trust, options)
    if asset.builtin:
        chosen = env_id or asset.env_id
        if chosen is None:
            raise ParetoscopeError(f"built-in agent {asset.kind!r}: say which env it acts in")
        agent: Agent = builtin_agent(asset.kind, chosen)
    elif asset.format != CHECKPOINT_FORMAT:
        agent = import_agent(
            asset.path,
            env_id or asset.env_id,
            kind or asset.import_kind,
            trust=trust,
            options=options,
        )
    else:
        agent = load(asset.path)
    return LoadedAgent(agent=agent, fingerprint=agent_fingerprint(agent), name=asset.name)
