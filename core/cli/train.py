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
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.errors import ParetoscopeError


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


def _preference(text: str) -> list[float]:
    try:
        return [float(part) for part in text.replace(" ", "").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated weights such as 0.8,0.2, got {text!r}"
        ) from None


def _train_on(text: str) -> tuple[list[float], list[float], list[float | None]]:
    """``PREFERENCE:WEIGHTS:CAPS`` such as ``0.2,0.8:0.5,0.5:2.5,inf`` (inf: no cap)."""
    parts = text.replace(" ", "").split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(
            f"expected PREFERENCE:WEIGHTS:CAPS such as 0.2,0.8:0.5,0.5:2.5,inf, got {text!r}"
        )
    preference, weights = _preference(parts[0]), _preference(parts[1])
    caps = [None if value == float("inf") else value for value in _preference(parts[2])]
    return preference, weights, caps


def member_rewards_of(
    preferences: list[list[float]] | int,
    train_on: list[tuple[list[float], list[float], list[float | None]]] | None,
) -> list[Any] | None:
    """The `--train-on` entries as one `MemberReward` (or None) per `--preference` row."""
    from paretoscope.train import MemberReward, rewards_by_member

    if not train_on:
        return None
    if isinstance(preferences, int):
        raise ParetoscopeError("--train-on names members by their --preference: give those")
    return rewards_by_member(
        preferences,
        [(preference, MemberReward(tuple(w), tuple(c))) for preference, w, c in train_on],
    )


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
        "--survival-bonus",
        type=_preference,
        default=None,
        metavar="B",
        help="per-objective alive bonus such as 1,1,0 replacing the env's table: each member's "
        "shift is then w·B (not with --survival-shift)",
    )
    parser.add_argument(
        "--no-warm-start",
        action="store_true",
        help="start every member from zero instead of the nearest trained member",
    )
    parser.add_argument(
        "--transfer-every",
        type=int,
        default=None,
        metavar="K",
        help="train all members in rounds of K iterations; after each round but the last, "
        "every member adopts the policy of whichever member scores best on its own "
        "preference (default: no transfer)",
    )
    parser.add_argument(
        "--snapshot-every",
        type=int,
        default=None,
        metavar="N",
        help="also keep the policy set after every N iterations (and the final one) in "
        "OUT/snapshots/step=N/ (default: no snapshots)",
    )
    parser.add_argument(
        "--train-on",
        type=_train_on,
        action="append",
        default=None,
        metavar="W:W2:CAPS",
        help="the member of preference W trains on W2·min(r, CAPS) instead of W·r, e.g. "
        "0.2,0.8:0.5,0.5:2.5,inf caps the first objective's reward per step at 2.5 (a target "
        "speed); inf: no cap (repeat; needs --preference)",
    )
    parser.add_argument(
        "--drop-dominated",
        type=float,
        nargs="?",
        const=0.0,
        default=None,
        metavar="MARGIN",
        help="leave out of the saved set the members another member dominates on their "
        "evaluated returns, by MARGIN times each objective's range (default 0: plain "
        "dominance); their training state stays, and a finished run may be saved again with it",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(func=run_behaviour)


def run_behaviour(args: argparse.Namespace) -> int:
    from paretoscope.train import ARSConfig, train_behaviour

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
            transfer_every=args.transfer_every,
            survival_bonus=args.survival_bonus,
            snapshot_every=args.snapshot_every,
            member_rewards=member_rewards_of(preferences, args.train_on),
            drop_dominated=args.drop_dominated,
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
            "--data", required=True, help="dataset: native directory, D4MORL .pkl or Minari"
        )
        parser.add_argument("--out", type=Path, required=True, help="output directory")
        parser.add_argument("--env", default=None, help="environment id (checked against the data)")
        parser.add_argument(
            "--steps", type=int, default=100_000, help="optimisation steps (default 100000)"
        )
        parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        parser.add_argument("--resume", action="store_true", help="continue the run in --out")
        parser.add_argument("--batch-size", type=int, default=64, help="default 64")
        parser.add_argument("--learning-rate", type=float, default=1e-4, help="default 1e-4")
        parser.add_argument("--weight-decay", type=float, default=1e-3, help="default 1e-3")
        parser.add_argument(
            "--warmup-steps",
            type=int,
            default=None,
            help="linear learning-rate warm-up (default 10000, or a tenth of --steps if shorter)",
        )
        parser.add_argument(
            "--gradient-clip",
            type=float,
            default=None,
            help="clip the gradient norm (default: 0.25 for modt, off for morvs and bc; 0 = off)",
        )
        parser.add_argument(
            "--checkpoint-every", type=int, default=1000, help="steps between checkpoints"
        )
        parser.add_argument(
            "--snapshot-every",
            type=int,
            default=None,
            metavar="N",
            help="also keep the agent after every N steps (and the final one) in "
            "OUT/snapshots/step=N/ (default: no snapshots)",
        )
        parser.add_argument(
            "--hidden",
            type=int,
            default=None,
            help="hidden width: each MLP layer, or the transformer's size (default 512)",
        )
        parser.add_argument(
            "--layers",
            type=int,
            default=None,
            help="hidden MLP layers or transformer blocks (default 3)",
        )
        parser.add_argument("--dropout", type=float, default=None, help="default 0.1")
        if kind == "modt":
            parser.add_argument("--heads", type=int, default=None, help="attention heads (1)")
            parser.add_argument(
                "--inner", type=int, default=None, help="MLP size in a block (4 x hidden)"
            )
            parser.add_argument(
                "--context", type=int, default=None, help="steps of context when acting (5)"
            )
            parser.add_argument(
                "--train-context", type=int, default=None, help="steps per training window (20)"
            )
        if kind == "bc":
            parser.add_argument(
                "--context", type=int, default=None, help="states in the input window (20)"
            )
        if kind == "morvs":
            parser.add_argument(
                "--horizon",
                type=int,
                default=None,
                help="episode length the goal divides by (default: the dataset's)",
            )
        parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")
        parser.add_argument(
            "--threads", type=int, default=None, help="torch intra-op threads (default: torch's)"
        )
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
        parser.set_defaults(func=run_offline, kind=kind)


def architecture_changes(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    """Fields of the default architecture of `kind` that the command line changes."""
    from paretoscope.agents.architecture import ARCHITECTURES

    changes: dict[str, Any] = {}
    if args.dropout is not None:
        changes["dropout"] = args.dropout
    if kind == "modt":
        for option, field in (
            ("hidden", "hidden_size"),
            ("layers", "n_layer"),
            ("heads", "n_head"),
            ("inner", "inner_size"),
            ("context", "context_length"),
            ("train_context", "train_context_length"),
        ):
            if getattr(args, option) is not None:
                changes[field] = getattr(args, option)
        if args.hidden is not None and args.inner is None:
            changes["inner_size"] = 4 * args.hidden  # PEDA: n_inner = 4 * embed_dim
        return changes
    if args.hidden is not None or args.layers is not None:
        default_sizes = ARCHITECTURES[kind]().hidden_sizes  # type: ignore[union-attr]
        width = args.hidden if args.hidden is not None else default_sizes[0]
        depth = args.layers if args.layers is not None else len(default_sizes)
        changes["hidden_sizes"] = (width,) * depth
    if kind == "bc" and args.context is not None:
        changes["context_length"] = args.context
    if kind == "morvs" and args.horizon is not None:
        changes["horizon"] = args.horizon
    return changes


def run_offline(args: argparse.Namespace) -> int:
    import torch

    from paretoscope.train.offline import OfflineConfig, train_offline

    if args.threads is not None:
        if args.threads < 1:
            raise ParetoscopeError(f"--threads: expected >= 1, got {args.threads}")
        torch.set_num_threads(args.threads)
    config = OfflineConfig(
        steps=args.steps,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        weight_decay=args.weight_decay,
        warmup_steps=args.warmup_steps,
        gradient_clip=args.gradient_clip,
        checkpoint_every=args.checkpoint_every,
        seed=args.seed,
        snapshot_every=args.snapshot_every,
    )
    try:
        agent = train_offline(
            args.kind,
            args.data,
            args.out,
            config=config,
            architecture=architecture_changes(args.kind, args),
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
