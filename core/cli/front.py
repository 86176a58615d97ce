"""`paretoscope front`: an evaluated agent's front from a results store, with decision marks.

Reads the episodes `paretoscope evaluate --out` stored, averages them per preference (as the
evaluation summary does), keeps the non-dominated mean points and marks the knee and, given an
aspiration level, the point that best meets it (see paretoscope.decision).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.cli import options
from paretoscope.cli.options import add_json_option
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly, number, signed

if TYPE_CHECKING:
    import pandas as pd


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "front",
        help="show an evaluated agent's front with its knee and an aspiration pick",
        description="Average the stored episodes of RESULTS_DIR per preference, print the "
        "non-dominated mean returns, the knee and (with --aspiration) the point that best "
        "meets an aspiration level (Wierzbicki's achievement function).",
    )
    parser.add_argument(
        "results_dir",
        type=options.path_text,
        help="results folder written by `paretoscope evaluate --out`",
    )
    options.add_stored_choice_options(parser)
    parser.add_argument("--agent", default=None, help="agent name (default: the only one stored)")
    parser.add_argument(
        "--aspiration",
        default=None,
        help="desired return per objective, e.g. 10,-5 (write --aspiration=-1,2 when the "
        "first value is negative)",
    )
    add_json_option(parser, "the front as JSON")
    parser.set_defaults(func=run)


def stored_envs(root: Path) -> list[str]:
    """Env folders under `root` that hold at least one stored episode."""
    from paretoscope.results_store import ResultsStore

    if not root.is_dir():
        raise ParetoscopeError(
            f"RESULTS_DIR: expected a results folder, {briefly(str(root))} is none"
        )
    store = ResultsStore(root)
    folders = sorted(path.name for path in root.iterdir() if path.is_dir())
    envs = [name for name in folders if len(store.read(name))]
    if not envs:
        raise ParetoscopeError(
            f"RESULTS_DIR: no stored episodes under {briefly(str(root))} "
            "(`paretoscope evaluate --out` writes them)"
        )
    return envs


def choose(option: str, given: str | None, choices: list[str], what: str) -> str:
    """`given` if it is one of `choices`; the only choice when `given` is None."""
    listed = ", ".join(choices) if choices else "none"
    if given is None:
        if len(choices) == 1:
            return choices[0]
        raise ParetoscopeError(
            f"{option}: {what} has {len(choices)} to choose from, pick one of: {listed}"
        )
    if given not in choices:
        raise ParetoscopeError(
            f"{option}: no episodes for {briefly(given)} in {what}; stored: {listed}"
        )
    return given


def at_gamma(table: pd.DataFrame, gamma: float | None, what: str) -> tuple[pd.DataFrame, float]:
    """The rows of `table` at the discount `gamma` (default: the only one stored) and that
    discount; `what` names the episodes in the message when there is no such one."""
    discounts = table["gamma"].fillna(1.0) if "gamma" in table else None
    stored = sorted({1.0} if discounts is None else {float(value) for value in discounts})
    if gamma is None:
        if len(stored) > 1:
            raise ParetoscopeError(
                f"--gamma: {what} was evaluated at several discounts {stored}; pick one"
            )
        chosen = stored[0]
    else:
        matches = [value for value in stored if math.isclose(value, gamma, abs_tol=1e-12)]
        if not matches:
            raise ParetoscopeError(f"--gamma: no episodes of {what} at {gamma}; stored: {stored}")
        chosen = matches[0]
    if discounts is not None:
        table = table[np.isclose(discounts.to_numpy(dtype=np.float64), chosen, atol=1e-12)]
    return table, chosen


@dataclass(frozen=True)
class FrontReport:
    """The mean point per preference of one agent's sweep, sorted, and their names."""

    env: str
    agent: str
    gamma: float
    objectives: list[str]
    preferences: np.ndarray  # (M, k), sorted by preference then target
    returns: np.ndarray  # (M, k) mean returns


def load_front(root: Path, env: str | None, agent: str | None, gamma: float | None) -> FrontReport:
    """Mean returns per preference of the one (env, agent, gamma) sweep the options select."""
    from paretoscope.envs import get_spec
    from paretoscope.results_store import ResultsStore
    from paretoscope.sweeps import mean_per_preference

    # Reading every env's shards only to list them is needed only when --env does not settle it.
    plain = env is not None and Path(env).name == env and env not in (".", "..")
    table = ResultsStore(root).read(str(env)) if plain and root.is_dir() else None
    if table is None or len(table) == 0:
        env = choose("--env", env, stored_envs(root), f"results folder {briefly(str(root))}")
        table = ResultsStore(root).read(env)
    env_id = str(env)
    spec = get_spec(env_id)
    if "agent" not in table:
        raise ParetoscopeError(f"results for {env_id}: expected an 'agent' column, found none")
    agents = sorted(str(name) for name in table["agent"].unique())
    agent_name = choose("--agent", agent, agents, f"the results for {env_id}")
    table = table[table["agent"].astype(str) == agent_name]
    table, chosen = at_gamma(table, gamma, f"{agent_name} on {env_id}")
    means = mean_per_preference(table, env_id)
    # One stable order whatever order the shards were read in (it decides ties).
    order = np.lexsort(np.concatenate([means["preferences"], means["targets"]], axis=1).T[::-1])
    return FrontReport(
        env=env_id,
        agent=agent_name,
        gamma=chosen,
        objectives=list(spec.objective_names),
        preferences=means["preferences"][order],
        returns=means["returns"][order],
    )


def front_record(report: FrontReport, aspiration: list[float] | None) -> dict[str, object]:
    """The JSON-friendly front `front --json` prints."""
    from paretoscope.decision import aspiration_pick, knee_point
    from paretoscope.metrics import non_dominated

    def point(row: int) -> dict[str, object]:
        return {
            "preference": report.preferences[row].tolist(),
            "returns": report.returns[row].tolist(),
        }

    rows = np.flatnonzero(non_dominated(report.returns))
    record: dict[str, object] = {
        "env": report.env,
        "agent": report.agent,
        "gamma": report.gamma,
        "objectives": report.objectives,
        "front": [point(row) for row in rows.tolist()],
        "knee": point(knee_point(report.returns)),
    }
    if aspiration is not None:
        pick = aspiration_pick(report.returns, aspiration)
        record["aspiration_pick"] = {
            **point(pick.index),
            "difference": dict(zip(report.objectives, pick.difference.tolist(), strict=True)),
            "met": dict(zip(report.objectives, pick.met.tolist(), strict=True)),
            "achievement": pick.achievement,
        }
    return record


def _print_table(record: dict[str, Any]) -> None:
    names: list[str] = record["objectives"]
    print(f"{record['agent']} on {record['env']}, gamma {record['gamma']:g}")
    width = max(12, *(len(name) + 2 for name in names))
    header = "".join(f"{'w_' + name:>{width}}" for name in names)
    header += "".join(f"{name:>{width}}" for name in names)
    print(f"{header}  mark")
    marks: list[tuple[dict[str, Any], str]] = [(record["knee"], "knee")]
    if "aspiration_pick" in record:
        marks.append((record["aspiration_pick"], "aspiration"))
    for point in record["front"]:
        line = "".join(f"{value:>{width}.4g}" for value in point["preference"])
        line += "".join(f"{value:>{width}.6g}" for value in point["returns"])
        labels = [
            label
            for mark, label in marks
            if mark["preference"] == point["preference"] and mark["returns"] == point["returns"]
        ]
        print(f"{line}  {', '.join(labels)}".rstrip())
    pick = record.get("aspiration_pick")
    if pick is not None:
        met = sum(pick["met"].values())
        shown = (
            "met in every objective"
            if met == len(pick["met"])
            else f"met in {met} of {len(pick['met'])} objectives"
        )
        differences = ", ".join(
            f"{name} {signed(value, 6)}" for name, value in pick["difference"].items()
        )
        print(f"aspiration {shown} (achievement {number(pick['achievement'], 6)}): {differences}")


def run(args: argparse.Namespace) -> int:
    from paretoscope.cli.render import parse_vector

    report = load_front(Path(args.results_dir), args.env, args.agent, args.gamma)
    aspiration = (
        None
        if args.aspiration is None
        else parse_vector(args.aspiration, "--aspiration", len(report.objectives))
    )
    record = front_record(report, aspiration)
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        _print_table(record)
    return 0
