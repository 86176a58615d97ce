"""`paretoscope train`: trainers, one sub-command each.

- ``train behaviour --env ID --preferences K --out DIR``: one ARS linear policy per preference,
  saved as a ``policy_set`` checkpoint in DIR; rerun the same command to resume.
- ``train morvs|bc|modt --data PATH --out DIR [--steps N] [--seed S] [--resume]``: an offline
  agent trained on a dataset with PEDA's losses and sampling (`paretoscope.train.offline`).

Each sub-command has an ``add_*_parser(commands)`` function listed in `SUBCOMMANDS`; a new
trainer adds its own function there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from paretoscope.cli.options import (
    add_device_option,
    add_quiet_option,
    add_settings_options,
    path,
    path_text,
    settings_from_args,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import BehaviourTrainingSettings, OfflineTrainingSettings
from paretoscope.text import number, numbers


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train agents (behaviour policies, offline MORvS / BC / MODT)",
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
    parser.add_argument("--out", type=path, required=True, help="output directory")
    add_settings_options(parser, BehaviourTrainingSettings)
    add_quiet_option(parser)
    parser.set_defaults(func=run_behaviour)


def run_behaviour(args: argparse.Namespace) -> int:
    from paretoscope.train import train_behaviour

    settings = settings_from_args(BehaviourTrainingSettings, args)
    try:
        agent = train_behaviour(args.env, args.out, settings, progress=not args.quiet)
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
            returns = "(" + numbers(mean_returns[index]) + ")"
            utility = number(float(preference @ mean_returns[index]))
        lines.append(
            f"{index:<6}  {weights:<16}  {iterations[index]!s:<10}  {returns:<24}  {utility}"
        )
    return "\n".join(lines)


# --- train morvs | bc | modt -----------------------------------------------------------------

OFFLINE_HELP = {
    "morvs": "MORvS: an MLP over (state, preference, average return still to collect per step)",
    "bc": "BC: an MLP over the last states (and the preference); no return",
    "modt": "MODT: a decision transformer over (return, state, action) steps",
}


def add_offline_parsers(commands: Any) -> None:
    """`train morvs`, `train bc` and `train modt`: the same options, one sub-command each."""
    for kind, summary in OFFLINE_HELP.items():
        parser = commands.add_parser(
            kind,
            help=f"train an offline {kind} agent on a dataset",
            description=f"{summary}. Trained offline on a dataset with PEDA's conventions: "
            "batch 64, AdamW lr 1e-4, weight decay 1e-3, linear warm-up, action MSE. Saves "
            "the agent and the training state every --checkpoint-every steps; --resume "
            "continues an interrupted run bit-identically on CPU.",
        )
        parser.add_argument(
            "--data",
            type=path_text,
            required=True,
            help="dataset: native directory, D4MORL .pkl or Minari",
        )
        parser.add_argument("--out", type=path, required=True, help="output directory")
        parser.add_argument("--env", default=None, help="environment id (checked against the data)")
        parser.add_argument("--resume", action="store_true", help="continue the run in --out")
        add_settings_options(parser, OfflineTrainingSettings, variant=kind)
        add_device_option(parser)
        parser.add_argument(
            "--threads", type=int, default=None, help="torch intra-op threads (default: torch's)"
        )
        add_quiet_option(parser, "progress bar")
        parser.set_defaults(func=run_offline, kind=kind)


def run_offline(args: argparse.Namespace) -> int:
    import torch

    from paretoscope.train.offline import train_offline

    if args.threads is not None:
        if args.threads < 1:
            raise ParetoscopeError(f"--threads: expected >= 1, got {args.threads}")
        torch.set_num_threads(args.threads)
    settings = settings_from_args(OfflineTrainingSettings, args, variant=args.kind)
    try:
        agent = train_offline(
            args.kind,
            args.data,
            args.out,
            settings,
            env_id=args.env,
            resume=args.resume,
            device=args.device,
            progress=not args.quiet,
        )
    except KeyboardInterrupt:
        print(
            f"paretoscope: the last checkpoint is in {args.out}; rerun with --resume to continue",
            file=sys.stderr,
        )
        raise
    history = agent.training.get("loss_history") or []
    loss = f", final loss {history[-1][1]:.5f}" if history else ""
    print(
        f"saved {args.kind} agent ({agent.parameter_count} parameters, "
        f"{agent.training.get('steps')} steps{loss}) to {args.out}"
    )
    return 0


SUBCOMMANDS: tuple[Callable[[Any], None], ...] = (add_behaviour_parser, add_offline_parsers)
