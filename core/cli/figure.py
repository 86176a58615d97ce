"""`paretoscope figure`: a publication figure (PDF, SVG or PNG) of stored results or a run.

`front`, `objectives` and `rtg` read a results folder (`paretoscope evaluate --out`), choosing
the env, agents and discount as `paretoscope front` does; `training` reads a training run
folder (its logged evaluations, or every snapshot's sweep, reusing a results folder's episodes).
The points are those the dashboard and `paretoscope.plot` draw (`paretoscope.plot.front_data`,
`objectives_data`, `training_data`); the drawing is `paretoscope.figures.paper`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paretoscope.cli import options
from paretoscope.errors import ParetoscopeError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

KINDS = ("front", "objectives", "training", "rtg")
# Default sweep of a run's snapshots: `paretoscope.plot.training`'s.
RUN_GRANULARITY = 10
RUN_EPISODES = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "figure",
        help="write a paper-ready figure (PDF, SVG or PNG) of stored results or a training run",
        description="Draw KIND for a paper: the fronts of the stored agents (front), one "
        "agent's objective pairs (objectives), a training run's front or metrics over its steps "
        "(training), or a return-conditioned agent's RTG following (rtg). Vector PDF/SVG with "
        "fonts embedded, a colour-blind-safe palette, one marker per agent, dominated points "
        "hollow, the known front as a line.",
    )
    parser.add_argument("kind", choices=KINDS, help="which figure")
    parser.add_argument(
        "source",
        type=options.path_text,
        metavar="RESULTS_OR_RUN",
        help="results folder written by `paretoscope evaluate --out` (front, objectives, rtg) "
        "or a training run folder (training)",
    )
    parser.add_argument(
        "--out",
        type=options.path_text,
        required=True,
        help="the figure file: .pdf, .svg (vector) or .png (300 dpi)",
    )
    parser.add_argument(
        "--width",
        default="single",
        help="single (one column, 3.5 in), double (two columns, 7.16 in) or inches "
        "(default: single)",
    )
    options.add_stored_choice_options(parser)
    parser.add_argument(
        "--agents",
        default=None,
        metavar="A,B,...",
        help="agents to draw (default for front: every stored agent but training snapshots "
        "(NAME@step=N); objectives and rtg draw one agent)",
    )
    parser.add_argument(
        "--step", type=int, default=None, help="training: the step shown (default: the last)"
    )
    parser.add_argument(
        "--view",
        choices=("front", "metrics"),
        default="front",
        help="training: the front at --step over the earlier ones, or hypervolume and expected "
        "utility over the steps (default: front)",
    )
    parser.add_argument(
        "--results",
        type=options.path_text,
        default=None,
        help="training: a results folder whose stored episodes of the run's snapshots are "
        "read (new ones are added)",
    )
    parser.add_argument(
        "--granularity",
        type=int,
        default=RUN_GRANULARITY,
        help=f"training: the preference grid of each snapshot's sweep (default {RUN_GRANULARITY})",
    )
    parser.add_argument(
        "--episodes",
        type=int,
        default=RUN_EPISODES,
        help=f"training: seeds per preference of each snapshot's sweep (default {RUN_EPISODES})",
    )
    parser.set_defaults(func=run)


def _agents(given: str | None) -> list[str] | None:
    if given is None:
        return None
    names = [name.strip() for name in given.split(",") if name.strip()]
    if not names:
        raise ParetoscopeError("--agents: expected agent names such as a,b")
    return names


def stored_table(root: Path, env: str | None, agents: list[str] | None) -> pd.DataFrame:
    """The stored episodes of `agents` on `env` (each default: as `paretoscope front` chooses),
    in the order `agents` names them; by default every agent but a run's snapshots."""
    from paretoscope.cli.front import choose, stored_envs
    from paretoscope.results_store import ResultsStore

    env_id = choose("--env", env, stored_envs(root), f"results folder {str(root)!r}")
    table = ResultsStore(root).read(env_id)
    stored = sorted(str(name) for name in table["agent"].unique())
    if agents is None:
        # A snapshot's episodes carry NAME@LABEL (paretoscope.runs.sweep.snapshot_agent_id).
        agents = [name for name in stored if "@" not in name] or stored
    for name in agents:
        choose("--agents", name, stored, f"the results for {env_id}")
    table = table[table["agent"].astype(str).isin(agents)]
    order = {name: index for index, name in enumerate(agents)}
    return table.sort_values("agent", key=lambda names: names.map(order), kind="stable")


def _named(table: pd.DataFrame) -> str:
    """The agents and env of `table` in words, for a message: "a, b on env"."""
    agents = ", ".join(dict.fromkeys(str(name) for name in table["agent"]))
    return f"{agents} on {table['env'].iloc[0]}"


def _one_agent(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    names = list(dict.fromkeys(str(name) for name in table["agent"]))
    if len(names) != 1:
        raise ParetoscopeError(
            f"--agents: the {kind} figure draws one agent; pick one of: {', '.join(names)}"
        )
    return table


def front_figure(args: argparse.Namespace) -> Figure:
    from paretoscope.cli.front import at_gamma
    from paretoscope.figures.paper import paper_front
    from paretoscope.plot import front_data

    table = stored_table(Path(args.source), args.env, _agents(args.agents))
    table, _ = at_gamma(table, args.gamma, _named(table))
    data = front_data(table)
    return paper_front(data.spec, data.series, data.known, width=args.width)


def objectives_figure(args: argparse.Namespace) -> Figure:
    from paretoscope.cli.front import at_gamma
    from paretoscope.figures.paper import paper_objectives
    from paretoscope.plot import objectives_data

    table = stored_table(Path(args.source), args.env, _agents(args.agents))
    table, _ = at_gamma(_one_agent(table, "objectives"), args.gamma, _named(table))
    data = objectives_data(table)
    return paper_objectives(data.spec, data.points, width=args.width)


def rtg_figure(args: argparse.Namespace) -> Figure:
    """RTG following as the RTG page draws it: each preference's mean return against the
    target it was asked for (undiscounted: targets are)."""
    from paretoscope.cli.front import at_gamma
    from paretoscope.envs import get_spec
    from paretoscope.figures.paper import paper_rtg
    from paretoscope.metrics import rtg_following
    from paretoscope.sweeps import mean_per_preference

    table = stored_table(Path(args.source), args.env, _agents(args.agents))
    table, _ = at_gamma(_one_agent(table, "rtg"), 1.0, "the agent (RTG following is undiscounted)")
    spec = get_spec(str(table["env"].iloc[0]))
    points = mean_per_preference(table, spec.id)
    if not (points["targets"] != 0).any():
        raise ParetoscopeError(
            f"{table['agent'].iloc[0]} was asked for no target return (all targets are 0): "
            "RTG following needs a return-conditioned agent"
        )
    following = rtg_following(points["targets"], points["preferences"], points["returns"])
    return paper_rtg(
        spec,
        points["targets"],
        points["preferences"],
        points["returns"],
        following.return_ratio,
        width=args.width,
    )


def training_figure(args: argparse.Namespace) -> Figure:
    from paretoscope.figures.paper import paper_metrics, paper_training
    from paretoscope.plot import FADE, training_data

    data = training_data(
        Path(args.source),
        env=args.env,
        granularity=args.granularity,
        episodes=args.episodes,
        gamma=1.0 if args.gamma is None else args.gamma,
        store=args.results,
    )
    step = data.step(args.step)
    if args.view == "metrics":
        return paper_metrics(data.metrics, step, width=args.width)
    return paper_training(data.spec, data.fronts, step, fade=FADE, width=args.width)


_DRAW = {
    "front": front_figure,
    "objectives": objectives_figure,
    "training": training_figure,
    "rtg": rtg_figure,
}


def run(args: argparse.Namespace) -> int:
    from paretoscope.figures.paper import figure_format, paper_width, save_figure

    out = Path(args.out)
    figure_format(out)  # a bad suffix or width is told before any work
    paper_width(args.width)
    if args.kind != "training":
        for option in ("step", "results"):
            if getattr(args, option) is not None:
                raise ParetoscopeError(f"--{option}: only the training figure takes it")
    written = save_figure(_DRAW[args.kind](args), out)
    print(written)
    return 0
