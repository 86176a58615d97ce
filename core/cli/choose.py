"""`paretoscope choose`: find the policy a (simulated) person prefers from answers to pairs.

Reads an agent's front from a results store as `paretoscope front` does, then runs the
elicitation of `paretoscope.decision.elicitation` with a simulated person of weights W (over
the front-normalised objectives) and choice noise S, and prints the questions, the answers and
the recommendation; `--out` writes the decision record (JSON, or Markdown for a .md file).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.cli import options
from paretoscope.cli.options import add_json_option
from paretoscope.errors import ParetoscopeError
from paretoscope.settings.limits import Bounds

if TYPE_CHECKING:
    from paretoscope.cli.front import FrontReport
    from paretoscope.decision.record import ReplayEpisode

# Questions asked by default, and the most the option takes.
DEFAULT_QUESTIONS = 8
MAX_QUESTIONS = 1000
_QUESTION_BOUNDS = Bounds(0, MAX_QUESTIONS)


def register(subparsers: Any) -> None:
    from paretoscope.decision.elicitation import DEFAULT_NOISE, STRATEGIES

    parser = subparsers.add_parser(
        "choose",
        help="find the policy a simulated person prefers from their answers to pairs",
        description="Ask a simulated person (utility weights W over the front-normalised "
        "objectives, choice noise S) which of two policies of the front stored in RESULTS_DIR "
        "they prefer, --questions times, each pair chosen to be the most informative (or at "
        "random), and print the policy with the highest posterior expected utility and the "
        "probability that it is the best.",
    )
    parser.add_argument(
        "results_dir",
        type=options.path_text,
        help="results folder written by `paretoscope evaluate --out`",
    )
    options.add_stored_choice_options(parser)
    parser.add_argument("--agent", default=None, help="agent name (default: the only one stored)")
    parser.add_argument(
        "--simulate",
        required=True,
        metavar="W1,W2,...",
        help="the simulated person's weights, one per objective, summing to 1",
    )
    parser.add_argument(
        "--noise",
        type=float,
        default=DEFAULT_NOISE,
        help=f"the simulated person's choice noise, on the normalised utility (default "
        f"{DEFAULT_NOISE:g}; the model assumes the same)",
    )
    parser.add_argument(
        "--questions",
        type=options.whole_number(_QUESTION_BOUNDS),
        default=DEFAULT_QUESTIONS,
        help=f"questions to ask (default {DEFAULT_QUESTIONS})",
    )
    parser.add_argument("--seed", type=options.seed, default=0, help="seed (default 0)")
    parser.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="info",
        help="info: the pair of largest expected information gain; random: a random pair",
    )
    parser.add_argument(
        "--out",
        type=options.path,
        default=None,
        help="write the decision record here (JSON; Markdown when it ends in .md)",
    )
    add_json_option(parser, "the recommendation and the questions as JSON")
    parser.set_defaults(func=run)


def _agent_path(results_dir: Path, agent: str) -> str:
    """Where the agent lives: an assets folder's ``agents/NAME`` beside its results, else
    its name (give the render command the checkpoint's path)."""
    folder = results_dir.parent / "agents" / agent
    return str(folder) if folder.is_dir() else agent


def _stored_episode(results_dir: Path, report: FrontReport, row: int) -> tuple[str, ReplayEpisode]:
    """The stored episode of the front's `row` with the smallest seed, and the agent's
    fingerprint."""
    from paretoscope.decision.record import ReplayEpisode
    from paretoscope.envs import get_spec
    from paretoscope.results_store import ResultsStore, objective_columns
    from paretoscope.sweeps import mean_per_preference

    spec = get_spec(report.env)
    table = ResultsStore(results_dir).read(report.env)
    table = table[table["agent"].astype(str) == report.agent]
    if "gamma" in table:
        discounts = table["gamma"].fillna(1.0).to_numpy(dtype=np.float64)
        table = table[np.isclose(discounts, report.gamma, atol=1e-12)]
    preference = report.preferences[row]
    columns = objective_columns("preference", spec)
    same = np.isclose(table[columns].to_numpy(dtype=np.float64), preference, atol=1e-9).all(axis=1)
    table = table[same]
    # Several targets may share the preference: the one whose mean is this front point.
    means = mean_per_preference(table, report.env)
    match = np.flatnonzero(np.isclose(means["returns"], report.returns[row]).all(axis=1))
    targets = objective_columns("target", spec)
    if len(match):
        target = means["targets"][match[0]]
        with np.errstate(invalid="ignore"):
            on_target = np.isclose(
                table[targets].to_numpy(dtype=np.float64), target, equal_nan=True
            ).all(axis=1)
        table = table[on_target]
    episode = table.sort_values("seed", kind="stable").iloc[0]
    explicit = bool(episode.get("explicit_target", False))
    return str(episode["agent_fingerprint"]), ReplayEpisode(
        seed=int(episode["seed"]),
        horizon=int(episode["horizon"]),
        returns=[float(episode[name]) for name in objective_columns("return", spec)],
        target=[float(episode[name]) for name in targets] if explicit else None,
        agent_path=_agent_path(results_dir, report.agent),
    )


def _print_session(record: dict[str, Any]) -> None:
    names = record["objectives"]
    for item in record["questions"]:
        posterior = item["posterior"]
        best = record["front"][posterior["recommendation"]]
        print(
            f"Q{item['step']}: A {_preference(item['a'])} vs B {_preference(item['b'])} -> "
            f"{item['answer']}; best now {_preference(best)} "
            f"(P {posterior['probability_best']:.2f})"
        )
    pick = record["recommendation"]
    returns = ", ".join(f"{n} {v:.6g}" for n, v in zip(names, pick["returns"], strict=True))
    print(
        f"recommended: preference {_preference(pick)} ({returns}), probability best "
        f"{record['probability_best']:.3f}"
    )
    episode = pick.get("episode")
    if episode is not None:
        print(f"replay: {episode['command']}")


def _preference(point: dict[str, Any]) -> str:
    return ",".join(f"{value:.3g}" for value in point["preference"])


def run(args: argparse.Namespace) -> int:
    from paretoscope.cli.front import load_front
    from paretoscope.cli.render import parse_vector
    from paretoscope.decision.elicitation import ElicitationSettings
    from paretoscope.decision.record import DecisionContext, decision_record, record_markdown
    from paretoscope.decision.simulated import SimulatedPerson, simulate

    if not (math.isfinite(args.noise) and args.noise >= 0):
        raise ParetoscopeError(f"--noise: expected a number >= 0, got {args.noise}")
    results_dir = Path(args.results_dir)
    report = load_front(results_dir, args.env, args.agent, args.gamma)
    weights = parse_vector(args.simulate, "--simulate", len(report.objectives))
    if any(value < 0 for value in weights) or not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
        raise ParetoscopeError(
            f"--simulate: expected non-negative weights summing to 1, got {args.simulate!r}"
        )
    person = SimulatedPerson(tuple(weights), args.noise, args.seed)
    settings = ElicitationSettings(seed=args.seed)
    state = simulate(report.returns, person, args.questions, args.strategy, settings)[-1]
    fingerprint, episode = _stored_episode(results_dir, report, state.recommended_row)
    context = DecisionContext(
        env=report.env,
        agent=report.agent,
        agent_fingerprint=fingerprint,
        gamma=report.gamma,
        objectives=report.objectives,
        preferences=report.preferences,
    )
    record = decision_record(state, context, episode, args.strategy)
    record["simulated_person"] = {"weights": weights, "noise": args.noise}
    if args.out is not None:
        from paretoscope.atomic import write_bytes_atomically

        text = (
            record_markdown(record)
            if args.out.suffix.lower() == ".md"
            else json.dumps(record, indent=2) + "\n"
        )
        try:
            write_bytes_atomically(args.out, text.encode())
        except OSError as error:
            raise ParetoscopeError(
                f"--out: cannot write {str(args.out)!r}: {error.strerror}"
            ) from None
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        _print_session(record)
    return 0
