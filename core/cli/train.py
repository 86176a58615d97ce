"""`paretoscope train`: trainers, one sub-command each.

- ``train behaviour --env ID --preferences K --out DIR``: one ARS linear policy per preference,
  saved as a ``policy_set`` checkpoint in DIR; rerun the same command to resume.

Each sub-command has an ``add_*_parser(commands)`` function listed in `SUBCOMMANDS`; a new
trainer adds its own function there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train agents (behaviour policies, ...)",
        description="Train agents. Every trainer shows a progress bar and resumes when rerun "
        "with the same output directory.",
    )
    commands = parser.add_subparsers(dest="train_command", metavar="TRAINER")
    parser.set_defaults(func=lambda args: _help(parser))
    for add_parser in SUBCOMMANDS:
        add_parser(commands)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


# --- train behaviour -------------------------------------------------------------------------


def _preference(text: str) -> list[float]:
    try:
        return [float(part) for part in text.replace(" ", "").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated weights such as 0.8,0.2, got {text!r}"
        ) from None


def _shift(text: str) -> float | None:
    if text == "auto":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number, got {text!r}") from None


def add_behaviour_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "behaviour",
        help="train one ARS linear policy per preference into a policy set",
        description="Train one linear policy per preference with Augmented Random Search "
        "(V2-t: observation normalisation, top-b directions) on the scalarised reward w·r, "
        "then save them as a policy_set checkpoint in --out with each member's evaluated mean "
        "return. State is saved after every iteration: rerun the same command to resume.",
    )
    parser.add_argument("--env", required=True, help="environment id, e.g. MO-HalfCheetah-v2")
    parser.add_argument(
        "--preferences",
        type=int,
        default=5,
        metavar="K",
        help="number of members, spread evenly over the preference simplex (default 5)",
    )
    parser.add_argument(
        "--preference",
        type=_preference,
        action="append",
        default=None,
        metavar="W",
        help="an explicit member preference such as 0.8,0.2 (repeat; replaces --preferences)",
    )
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="ARS iterations per member (default 300 unless --budget-seconds is given)",
    )
    parser.add_argument(
        "--budget-seconds",
        type=float,
        default=None,
        help="training seconds per member (with --iterations: whichever is reached first)",
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: all cores)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--directions", type=int, default=32, help="directions N per iteration (default 32)"
    )
    parser.add_argument(
        "--top-directions", type=int, default=8, help="best directions b used (default 8)"
    )
    parser.add_argument("--step-size", type=float, default=0.02, help="step size α (default 0.02)")
    parser.add_argument(
        "--noise", type=float, default=0.03, help="exploration noise ν (default 0.03)"
    )
    parser.add_argument(
        "--horizon", type=int, default=None, help="episode length (default: the env's horizon)"
    )
    parser.add_argument(
        "--eval-episodes",
        type=int,
        default=5,
        help="episodes that measure each member's mean return (default 5)",
    )
    parser.add_argument(
        "--survival-shift",
        type=_shift,
        default=None,
        metavar="auto|X",
        help="per-step constant subtracted from the training reward only; 'auto' (default) "
        "removes the alive bonus on tasks that end when the robot falls",
    )
    parser.add_argument(
        "--no-warm-start",
        action="store_true",
        help="start every member from zero instead of the nearest trained member",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(func=run_behaviour)


def run_behaviour(args: argparse.Namespace) -> int:
    from core.train import ARSConfig, train_behaviour

    iterations = args.iterations
    if iterations is None and args.budget_seconds is None:
        iterations = 300
    preferences: int | list[list[float]] = (
        args.preference if args.preference is not None else args.preferences
    )
    try:
        agent = train_behaviour(
            args.env,
            args.out,
            preferences,
            iterations=iterations,
            budget_seconds=args.budget_seconds,
            workers=args.workers,
            seed=args.seed,
            ars=ARSConfig(
                directions=args.directions,
                top_directions=args.top_directions,
                step_size=args.step_size,
                noise=args.noise,
            ),
            horizon=args.horizon,
            survival_shift=args.survival_shift,
            warm_start=not args.no_warm_start,
            eval_episodes=args.eval_episodes,
            progress=not args.quiet,
        )
    except KeyboardInterrupt:
        print(
            f"paretoscope: training state is saved in {args.out}; rerun the same command to resume",
            file=sys.stderr,
        )
        raise
    print(format_members(agent.preferences, agent.mean_returns, agent.training))
    print(f"saved policy set ({agent.size} members) to {args.out}")
    return 0


def format_members(
    preferences: np.ndarray, mean_returns: np.ndarray | None, training: dict[str, Any]
) -> str:
    """One line per member: preference, iterations, mean return vector and w·R."""
    iterations = training.get("iterations") or [None] * len(preferences)
    lines = ["member  preference        iterations  mean return               w·R"]
    for index, preference in enumerate(preferences):
        weights = "(" + ", ".join(f"{value:.2f}" for value in preference) + ")"
        if mean_returns is None:
            returns, utility = "-", "-"
        else:
            returns = "(" + ", ".join(f"{value:.1f}" for value in mean_returns[index]) + ")"
            utility = f"{float(preference @ mean_returns[index]):.1f}"
        lines.append(
            f"{index:<6}  {weights:<16}  {iterations[index]!s:<10}  {returns:<24}  {utility}"
        )
    return "\n".join(lines)


SUBCOMMANDS: tuple[Callable[[Any], None], ...] = (add_behaviour_parser,)
