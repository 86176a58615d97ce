"""`paretoscope run show`: a training run's logged fronts step by step, without re-running.

The fronts are the evaluations the trainer logged itself (a W&B run's ``eval/front`` tables,
PEDA's rollout logs); each step's hypervolume and expected utility are recomputed from the
logged points above the env's reference point (or ``--reference-point``) and printed beside
the numbers the run logged, a difference flagged with both reference points.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from paretoscope.cli.options import add_json_option, path_text
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.wandb_run import disagrees
from paretoscope.text import briefly, number, numbers

# The numbers a MORL-Baselines run logs beside each front.
LOGGED_HYPERVOLUME = "eval/hypervolume"
LOGGED_UTILITY = "eval/eum"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="show a training run's logged fronts (a W&B run folder, PEDA logs)",
        description="Read the evaluations a trainer logged (W&B run folders, PEDA's rollout "
        "logs) step by step, without re-running anything.",
    )
    actions = parser.add_subparsers(dest="run_command", metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="the logged front at every step, with hypervolume and expected utility",
        description="Print every logged step's front, hypervolume and expected utility "
        "(recomputed from the logged points) beside the values the run logged.",
    )
    show.add_argument(
        "run_dir",
        type=path_text,
        help="a training run folder: wandb/run-* or wandb/offline-run-*, a PEDA run, ...",
    )
    show.add_argument("--env", default=None, help="the env id, where the run's config lacks it")
    show.add_argument(
        "--table",
        default=None,
        metavar="KEY",
        help="the logged table that is the front (default eval/front, MORL-Baselines' key)",
    )
    show.add_argument(
        "--reference-point",
        type=_floats,
        default=None,
        metavar="X,Y,...",
        help="hypervolume reference point (default: the env's)",
    )
    add_json_option(show, "the steps as JSON")
    show.set_defaults(func=show_run)
    parser.set_defaults(func=lambda args: parser.print_help() or 0)


def _floats(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers such as 0,-25, got {briefly(text)}"
        ) from None
    if not values or not all(math.isfinite(value) for value in values):
        raise argparse.ArgumentTypeError(f"expected finite numbers, got {briefly(text)}")
    return values


def run_record(
    run_dir: str | Path,
    env: str | None = None,
    table: str | None = None,
    reference_point: list[float] | None = None,
) -> dict[str, Any]:
    """What `run show --json` prints: the run, its reference points and its logged steps."""
    from paretoscope.envs import get_spec
    from paretoscope.runs.fronts import front_metrics, logged_step_fronts
    from paretoscope.runs.run import open_run, with_answers
    from paretoscope.runs.wandb_run import logged_reference_point

    run = with_answers(open_run(run_dir), env)
    if run.env_id is None:
        raise ParetoscopeError(f"run {run.root}: its files do not name the env; give --env")
    spec = get_spec(run.env_id)
    run = replace(run, logged_key=table) if table else run
    logged, notices = run.logged_fronts()
    reference = tuple(reference_point) if reference_point else tuple(spec.reference_point)
    if len(reference) != spec.n_obj:
        raise ParetoscopeError(
            f"--reference-point: {spec.id} has {spec.n_obj} objectives, got {len(reference)}"
        )
    fronts = logged_step_fronts(logged)
    metrics = front_metrics(fronts, spec.id, reference) if fronts else None
    logged_reference = logged_reference_point(run)
    steps = []
    for index, (front, source) in enumerate(zip(fronts, sorted(logged, key=_step), strict=True)):
        assert metrics is not None
        row = metrics.iloc[index]
        steps.append(
            {
                "step": front.step,
                "front": front.returns.tolist(),
                "hypervolume": float(row["hypervolume"]),
                "expected_utility": float(row["expected_utility"]),
                "cardinality": int(row["cardinality"]),
                "logged": dict(source.scalars),
            }
        )
    return {
        "run": str(run.root),
        "format": run.format,
        "env": spec.id,
        "table": run.logged_key or ("eval/front" if run.format == "wandb" else None),
        "reference_point": list(reference),
        "logged_reference_point": None if logged_reference is None else list(logged_reference),
        "steps": steps,
        "notices": [str(notice) for notice in (*run.notices, *notices)],
    }


def _step(front: Any) -> int:
    return int(front.step)


def show_run(args: argparse.Namespace) -> int:
    record = run_record(args.run_dir, args.env, args.table, args.reference_point)
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    print(f"{record['run']} ({record['format']} run, {record['env']})")
    for notice in record["notices"]:
        print(f"  left out: {notice}")
    if not record["steps"]:
        print("  no logged front: nothing to show (`paretoscope evaluate RUN` sweeps snapshots)")
        return 0
    print(f"  hypervolume above ({numbers(record['reference_point'])}); logged values in [ ]")
    flagged = False
    for step in record["steps"]:
        logged_hv = step["logged"].get(LOGGED_HYPERVOLUME)
        logged_eu = step["logged"].get(LOGGED_UTILITY)
        mark = "*" if disagrees(logged_hv, step["hypervolume"]) else ""
        flagged = flagged or bool(mark)
        hv = number(step["hypervolume"], 6) + (
            "" if logged_hv is None else f" [{number(logged_hv, 6)}]"
        )
        eu = number(step["expected_utility"], 6) + (
            "" if logged_eu is None else f" [{number(logged_eu, 6)}]"
        )
        print(
            f"  step {step['step']:>9}: {step['cardinality']:>3} points, hypervolume {hv}{mark}, "
            f"expected utility {eu}"
        )
    if flagged:
        theirs = record["logged_reference_point"]
        print(
            f"  * the run logged another hypervolume: its reference point "
            f"({numbers(theirs) if theirs else 'not in its config'}), here "
            f"({numbers(record['reference_point'])})"
        )
    return 0
