"""The bundled demo's stored sweep episodes replay exactly (issue 9).

For every agent of assets/manifest.json that has a sweep plan, a few stored (preference, seed)
episodes are rolled out again, one at a time as the sweeps were, and must give the stored
returns. An agent whose sweep the bundled results lack fails: the demo would show it empty.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.agents import load
from core.catalog import bundled_assets_dir, discover_assets
from core.envs import get_spec
from core.evaluate import agent_fingerprint, objective_columns, sweep
from core.results_store import ResultsStore

ASSETS = bundled_assets_dir()
MANIFEST = json.loads((ASSETS / "manifest.json").read_text(encoding="utf-8"))
AGENTS_WITH_SWEEPS = sorted(
    name for name, entry in MANIFEST.get("agents", {}).items() if entry.get("sweep")
)
ROWS_PER_AGENT = 3


def stored_rows(name: str) -> tuple[object, pd.DataFrame]:
    """The agent and its stored rows for the manifest's sweep plan (horizon and seeds)."""
    catalog = discover_assets(ASSETS)
    asset = catalog.agent(name)
    assert asset.env_id is not None
    agent = load(asset.path)
    plan = asset.sweep_plan()
    horizon = plan.horizon or get_spec(asset.env_id).horizon
    table = ResultsStore(ASSETS / "results").read(asset.env_id)
    if len(table) == 0:
        return agent, table
    mine = table[
        (table["agent_fingerprint"] == agent_fingerprint(agent))
        & (table["horizon"] == horizon)
        & (table["seed"].isin(plan.seeds))
        & (~table["explicit_target"])
    ]
    return agent, mine.reset_index(drop=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", AGENTS_WITH_SWEEPS)
def test_stored_episodes_replay_exactly(name: str) -> None:
    agent, rows = stored_rows(name)
    assert len(rows) > 0, f"the bundled results hold no sweep rows of {name}"
    env_id = str(rows["env"].iloc[0])
    spec = get_spec(env_id)
    preference_columns = objective_columns("preference", spec)
    return_columns = objective_columns("return", spec)
    # Spread the picks over the table: first, last, and (for more) evenly in between.
    picks = np.unique(np.linspace(0, len(rows) - 1, ROWS_PER_AGENT).round().astype(int))
    for index in picks:
        row = rows.iloc[int(index)]
        preference = row[preference_columns].to_numpy(dtype=np.float64)[None, :]
        replay = sweep(
            agent,  # type: ignore[arg-type]
            env_id,
            preferences=preference,
            seeds=[int(row["seed"])],
            horizon=int(row["horizon"]),
            batch_size=1,
            workers=1,
            progress=False,
        )
        assert len(replay) == 1
        # Stored from batches of 64, replayed alone: bit for bit (batch-invariant agents).
        np.testing.assert_array_equal(
            replay[return_columns].to_numpy(dtype=np.float64)[0],
            row[return_columns].to_numpy(dtype=np.float64),
            err_msg=f"{name} at preference {preference[0]} seed {row['seed']}",
        )
        assert int(replay["length"].iloc[0]) == int(row["length"])


def test_manifest_names_agents_with_sweeps() -> None:
    """The test above must have something to check in the bundled demo."""
    assert AGENTS_WITH_SWEEPS, "assets/manifest.json lists no agent with a sweep plan"
