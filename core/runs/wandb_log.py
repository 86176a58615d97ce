"""A sweep logged to Weights & Biases in MORL-Baselines' keys, so a project shows paretoscope's
evaluation beside its training curves (`paretoscope evaluate ... --wandb PROJECT[/RUN]`).

Each evaluated step (a training run's snapshot, or step 0 for one agent) is one history row
keyed to ``global_step``, as MORL-Baselines' ``log_all_multi_policy_metrics`` writes it:
``eval/front`` (a table, columns ``objective_1..k``: the distinct non-dominated mean returns
per preference), ``eval/hypervolume`` (above the env's reference point), ``eval/eum`` (paretoscope's
expected utility over its default weight grid), ``eval/cardinality``, and ``eval/igd`` /
``eval/mul`` (IGD and maximum utility loss) where the env has a known front. The config holds
``env_id``, ``ref_point`` and ``gamma``, what `paretoscope.runs.wandb_run` reads back.

The run is offline (a folder under ``WANDB_DIR`` or ``./wandb``, synced later with ``wandb
sync``) unless the user has configured W&B: ``WANDB_MODE`` is obeyed, and an API key in
``WANDB_API_KEY`` means online. wandb is the optional extra ``paretoscope[wandb]``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paretoscope.errors import ParetoscopeError
from paretoscope.runs.wandb_run import DEFAULT_TABLE, INSTALL_HINT, STEP_KEY
from paretoscope.text import briefly

# W&B's project and run ids: letters, digits and - _ . (no slashes: PROJECT/RUN splits there).
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass(frozen=True)
class WandbTarget:
    """Where a sweep is logged: a W&B project and, optionally, the run's id."""

    project: str
    run: str | None = None

    @classmethod
    def parse(cls, text: str) -> WandbTarget:
        """``PROJECT`` or ``PROJECT/RUN``; a `ParetoscopeError` for anything else."""
        parts = text.split("/")
        if len(parts) > 2 or not all(_NAME.match(part) for part in parts):
            raise ParetoscopeError(
                f"--wandb {briefly(text)}: expected PROJECT or PROJECT/RUN "
                "(letters, digits, '-', '_', '.')"
            )
        return cls(parts[0], parts[1] if len(parts) == 2 else None)


def wandb_mode() -> str:
    """'offline' unless the user configured W&B (WANDB_MODE, or an API key)."""
    chosen = os.environ.get("WANDB_MODE")
    if chosen:
        return chosen
    return "online" if os.environ.get("WANDB_API_KEY") else "offline"


def step_record(rows: pd.DataFrame, env_id: str) -> dict[str, Any]:
    """One evaluated step's row in MORL-Baselines' keys (the front as an array, not a table)."""
    from paretoscope.envs import get_spec
    from paretoscope.evaluate import summary_record
    from paretoscope.metrics.dominance import pareto_front
    from paretoscope.results_store import objective_columns

    summary = summary_record(rows, env_id)
    columns = objective_columns("return", get_spec(env_id))
    returns = np.array(
        [[record[name] for name in columns] for record in summary["mean_returns"]],
        dtype=np.float64,
    )
    front = pareto_front(returns)  # distinct and non-dominated, as the summary counts them
    logged: dict[str, Any] = {
        DEFAULT_TABLE: front,
        "eval/hypervolume": summary["hypervolume"],
        "eval/eum": summary["expected_utility"],
        "eval/cardinality": summary["cardinality"],
    }
    known = summary.get("known_front")
    if known is not None:
        logged["eval/igd"] = known["igd"]
        logged["eval/mul"] = known["maximum_utility_loss"]
    return {key: value for key, value in logged.items() if value is not None}


def log_sweep(table: pd.DataFrame, env_id: str, target: WandbTarget) -> Path:
    """Log `table` (one agent's sweep, or a training run's with a ``step`` column) to W&B;
    returns the run's local folder."""
    from paretoscope import __version__
    from paretoscope.envs import get_spec
    from paretoscope.runs.fronts import STEP_COLUMN

    wandb = _wandb()
    spec = get_spec(env_id)
    steps = (
        [(int(step), rows) for step, rows in table.groupby(STEP_COLUMN, sort=True)]
        if STEP_COLUMN in table.columns and table[STEP_COLUMN].notna().all()
        else [(0, table)]
    )
    run = wandb.init(
        project=target.project,
        id=target.run,
        name=target.run,
        mode=wandb_mode(),
        config={
            "env_id": env_id,
            "ref_point": list(spec.reference_point),
            "gamma": float(table["gamma"].iloc[0]),
            "agent": str(table["agent"].iloc[0]),
            "logged_by": f"paretoscope {__version__}",
        },
        settings=wandb.Settings(console="off", x_disable_stats=True, disable_git=True),
        save_code=False,
    )
    try:
        run.define_metric(STEP_KEY)
        run.define_metric("eval/*", step_metric=STEP_KEY)
        columns = [f"objective_{index + 1}" for index in range(spec.n_obj)]
        for step, rows in steps:
            logged = step_record(rows, env_id)
            front = logged.pop(DEFAULT_TABLE)
            logged[DEFAULT_TABLE] = wandb.Table(columns=columns, data=front.tolist())
            run.log({**logged, STEP_KEY: step})
    finally:
        run.finish()
    return Path(run.dir).parent


def check_wandb() -> None:
    """A `ParetoscopeError` saying how to install W&B's library where it is missing."""
    _wandb()


def _wandb() -> Any:
    try:
        import wandb
    except ImportError:
        raise ParetoscopeError(f"--wandb needs W&B's library: {INSTALL_HINT}") from None
    return wandb
