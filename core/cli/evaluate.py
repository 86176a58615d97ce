"""`paretoscope evaluate`: sweep an agent over preferences and print the front's metrics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.cli.options import (
    add_device_option,
    add_json_option,
    add_settings_options,
    path_text,
    settings_from_args,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import SweepSettings
from paretoscope.text import briefly, number

if TYPE_CHECKING:
    from paretoscope.results_store import ResultsStore
    from paretoscope.runs.wandb_log import WandbTarget


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="evaluate an agent over a grid of preferences",
        description="Roll AGENT out at every preference of a grid (multiples of 1/G) for "
        "E seeds each, store the episodes, and print hypervolume, sparsity, cardinality, "
        "expected utility and RTG-following errors.",
    )
    parser.add_argument(
        "agent",
        type=path_text,
        help="agent checkpoint (directory or .safetensors file), another tool's checkpoint, a "
        "built-in agent (random), or a training run folder: every snapshot is swept (paretoscope "
        "snapshots/step=N/, PEDA ckpt/step=N.ckpt, MORL-Baselines saves named step=N or iter=N)",
    )
    parser.add_argument("--env", required=True, help="environment id (see `paretoscope envs`)")
    add_settings_options(parser, SweepSettings)
    parser.add_argument(
        "--out",
        type=path_text,
        default="results",
        help="results folder: stored episodes are reused, new ones added (default ./results)",
    )
    add_device_option(parser)
    parser.add_argument(
        "--steps",
        type=_steps,
        default=None,
        metavar="N,M,...",
        help="a run's snapshots to sweep (default: all)",
    )
    parser.add_argument(
        "--type",
        "--kind",
        dest="kind",
        default=None,
        help="the model kind of another tool's files when they do not tell (PEDA: dt, rvs, bc)",
    )
    parser.add_argument(
        "--set",
        dest="options",
        action="append",
        metavar="NAME=VALUE",
        help="an importer option for another tool's files (repeat), as `agent import --set`",
    )
    parser.add_argument(
        "--wandb",
        metavar="PROJECT[/RUN]",
        default=None,
        help="also log the sweep to Weights & Biases in MORL-Baselines' keys (eval/front, "
        "eval/hypervolume, ...); offline unless W&B is configured (pip install "
        "'paretoscope[wandb]')",
    )
    add_json_option(parser, "the summary as JSON")
    parser.set_defaults(func=run)


def _steps(text: str) -> list[int]:
    try:
        steps = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected steps such as 1000,2000, got {briefly(text)}"
        ) from None
    if not steps:
        raise argparse.ArgumentTypeError("expected at least one step")
    return steps


def run(args: argparse.Namespace) -> int:
    from paretoscope.agents.builtin import load_agent
    from paretoscope.agents.importers import ImportAnswers, parse_options
    from paretoscope.evaluate import summary_record, sweep
    from paretoscope.folders import make_folder
    from paretoscope.results_store import ResultsStore
    from paretoscope.runs.run import sniff_run

    settings = settings_from_args(SweepSettings, args)
    wandb_target = _wandb_target(args.wandb)  # refused before the sweep, not after it
    store = ResultsStore(Path(args.out))
    location = Path(args.agent)
    if location.is_dir() and sniff_run(location) is not None:
        return evaluate_run(args, location, settings, store, wandb_target)
    if args.steps is not None:
        raise ParetoscopeError(f"--steps: {args.agent} is not a training run (no snapshots)")
    # The importer's answers are part of what the agent is (and so of its episodes' keys).
    answers = ImportAnswers(env_id=args.env, kind=args.kind, options=parse_options(args.options))
    agent = load_agent(args.agent, args.env, device=args.device, answers=answers)
    make_folder(store.root)  # refused before the sweep runs, made once the agent is known
    table = sweep(
        agent, args.env, settings, store=store, agent_id=location.name, progress=not args.json
    )
    record = summary_record(table, args.env)
    _log_to_wandb(table, args.env, wandb_target)
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        print_summary(record)
    return 0


def _wandb_target(text: str | None) -> WandbTarget | None:
    """The parsed --wandb target, with W&B's library checked to be there."""
    if text is None:
        return None
    from paretoscope.runs.wandb_log import WandbTarget, check_wandb

    target = WandbTarget.parse(text)
    check_wandb()
    return target


def _log_to_wandb(table: Any, env_id: str, target: WandbTarget | None) -> None:
    if target is None:
        return
    from paretoscope.runs.wandb_log import log_sweep

    folder = log_sweep(table, env_id, target)
    print(f"paretoscope: logged to W&B: {folder}", file=sys.stderr)


def evaluate_run(
    args: argparse.Namespace,
    location: Path,
    settings: SweepSettings,
    store: ResultsStore,
    wandb_target: WandbTarget | None = None,
) -> int:
    """Sweep every snapshot of the run at `location` (`paretoscope.runs.sweep`) and print the
    metrics step by step, then the last step's summary."""
    from paretoscope.agents.importers import ImportAnswers, parse_options
    from paretoscope.folders import make_folder
    from paretoscope.runs.run import open_run, with_answers
    from paretoscope.runs.sweep import sweep_run

    training_run = with_answers(open_run(location), args.env)
    make_folder(store.root)
    answers = ImportAnswers(env_id=args.env, kind=args.kind, options=parse_options(args.options))
    result = sweep_run(
        training_run,
        args.env,
        settings,
        store=store,
        answers=answers,
        device=args.device,
        progress=not args.json,
        steps=args.steps,
    )
    for notice in result.notices:
        print(f"paretoscope: left out {notice}", file=sys.stderr)
    record = run_record(result.table, args.env, training_run.root, training_run.format)
    record["skipped"] = [
        {"path": str(notice.path), "message": notice.message} for notice in result.notices
    ]
    _log_to_wandb(result.table, args.env, wandb_target)
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    print(f"run {location} ({training_run.format}): {len(record['steps'])} snapshots on {args.env}")
    print(format_steps(record["steps"]))
    print(f"last snapshot ({record['agent']}):")
    print_summary(record)
    return 0


def run_record(table: Any, env_id: str, root: Path, run_format: str) -> dict[str, Any]:
    """`summary_record` of the last step's rows, with ``run``, ``format`` and ``steps``: the
    metrics of every step (`paretoscope.runs.fronts.step_metrics`) of that same table."""
    from paretoscope.evaluate import summary_record
    from paretoscope.runs.fronts import STEP_COLUMN, step_metrics

    last = int(table[STEP_COLUMN].max())
    record: dict[str, Any] = summary_record(table[table[STEP_COLUMN] == last], env_id)
    record["run"] = str(root)
    record["format"] = run_format
    record["step"] = last
    record["steps"] = [
        {key: _json_value(value) for key, value in row.items()}
        for row in step_metrics(table, env_id).to_dict(orient="records")
    ]
    return record


def _json_value(value: Any) -> Any:
    from paretoscope.evaluate import finite_or_none

    if isinstance(value, float | np.floating):
        return finite_or_none(float(value))
    if isinstance(value, np.integer):
        return int(value)
    return value


def format_steps(steps: list[dict[str, Any]]) -> str:
    """The per-step metrics as an aligned text table."""
    lines = [f"{'step':>10}  {'hypervolume':>14}  {'exp. utility':>12}  {'cardinality':>11}"]
    for row in steps:
        utility = row["expected_utility"]
        lines.append(
            f"{row['step']:>10}  {row['hypervolume']:>14.6g}  "
            f"{'-' if utility is None else format(utility, '.6g'):>12}  {row['cardinality']:>11}"
        )
    return "\n".join(lines)


def print_summary(record: dict[str, Any]) -> None:
    """The summary of `summary_record` as text."""
    episodes, gamma = record["episodes"], record["gamma"]
    print(f"{record['agent']} on {record['env']}: {episodes} episodes, gamma {gamma}")
    hypervolume = number(record["hypervolume"], 6)
    print(f"  hypervolume       {hypervolume} (reference {record['reference_point']})")
    print(f"  sparsity          {number(record['sparsity'], 6)}")
    print(f"  cardinality       {record['cardinality']}")
    print(f"  expected utility  {number(record['expected_utility'], 6)}")
    for key in ("rtg_weighted_error", "rtg_relative_weighted_error", "rtg_ratio_error"):
        if key in record:
            print(f"  {key.replace('_', ' '):<17} {record[key]}")
    known = record.get("known_front")
    if isinstance(known, dict):
        kind = "exact" if known["exact"] else "approximate"
        print(f"  known front       {known['points']} points ({kind}): {known['source']}")
        for key in ("igd", "igd_plus", "maximum_utility_loss", "mean_regret"):
            print(f"    {key.replace('_', ' '):<21} {number(known[key], 6)}")
    if record["diverged_episodes"]:
        print(f"  diverged episodes {record['diverged_episodes']}")
