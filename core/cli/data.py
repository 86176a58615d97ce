"""`paretoscope data`: show, convert, collect and list offline multi-objective datasets."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paretoscope.cli import options
from paretoscope.errors import ParetoscopeError
from paretoscope.settings.limits import BATCH_SIZES, HORIZONS
from paretoscope.text import briefly, for_terminal, number, numbers


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "data",
        help="show, convert and collect datasets (D4MORL, Minari, native, installed formats)",
        description="Offline multi-objective datasets: D4MORL pickles, Minari datasets with "
        "vector rewards, paretoscope's own memory-mapped format, and the formats installed "
        "packages add.",
    )
    parser.set_defaults(func=lambda args: _print_help(parser))
    commands = parser.add_subparsers(dest="data_command", metavar="SUBCOMMAND")

    show = commands.add_parser(
        "show",
        help="summarise a dataset",
        description="Environment, objectives, counts, return ranges, preference coverage, "
        "non-dominated trajectories and hypervolume. The summary is cached beside the data.",
    )
    show.add_argument(
        "path", type=options.path_text, help="a dataset of any registered format, or minari:ID"
    )
    show.add_argument("--env", dest="env_id", help="env id when the source does not name it")
    show.add_argument("--json", action="store_true", help="print machine-readable JSON")
    show.set_defaults(func=run_show)

    convert = commands.add_parser(
        "convert",
        help="convert between dataset formats (D4MORL, Minari, native, ...)",
        description="Convert IN to OUT. OUT's format: --to, else the format its prefix or "
        "suffix names (minari:ID for Minari, a .pkl name for D4MORL), else a native dataset "
        "directory.",
    )
    convert.add_argument("source", type=options.path_text, metavar="IN")
    convert.add_argument("destination", type=options.path_text, metavar="OUT")
    convert.add_argument("--to", choices=_WritableFormats(), help="output format")
    convert.add_argument("--env", dest="env_id", help="env id when IN does not name it")
    convert.add_argument("--overwrite", action="store_true", help="replace an existing OUT")
    convert.set_defaults(func=run_convert)

    collect = commands.add_parser(
        "collect",
        help="roll out an agent over D4MORL preference distributions into a dataset",
        description="Roll out an agent over preferences drawn from a D4MORL distribution, with "
        "expert or amateur behaviour noise; seeded and reproducible.",
    )
    collect.add_argument(
        "--agent", type=options.path_text, required=True, metavar="CKPT", help="agent checkpoint"
    )
    collect.add_argument("--env", dest="env_id", required=True, metavar="ID")
    collect.add_argument("--dist", choices=("uniform", "wide", "narrow"), default="uniform")
    collect.add_argument("--quality", choices=("expert", "amateur"), default="expert")
    collect.add_argument(
        "--action-noise",
        type=float,
        default=0.0,
        metavar="SIGMA",
        help="expert only: Gaussian noise on every executed action, SIGMA times half the action "
        "range (default 0: D4MORL's noiseless expert)",
    )
    collect.add_argument("--episodes", type=options.episode_count, required=True, metavar="N")
    collect.add_argument(
        "--out",
        type=options.path_text,
        required=True,
        metavar="PATH",
        help="native dataset directory",
    )
    collect.add_argument(
        "--d4morl-out", type=options.path_text, metavar="FILE", help="also write a D4MORL .pkl"
    )
    collect.add_argument("--seed", type=options.seed, default=0)
    collect.add_argument(
        "--batch-size",
        type=options.whole_number(BATCH_SIZES),
        default=16,
        help="episodes run in lockstep",
    )
    collect.add_argument(
        "--horizon",
        type=options.whole_number(HORIZONS),
        help="steps per episode (default: the env's)",
    )
    collect.add_argument(
        "--preference-bounds",
        metavar="LOW:HIGH,...",
        help="per-objective preference bounds, e.g. 0.1:0.9,0.1:0.9 (default 0:1 each)",
    )
    collect.add_argument("--overwrite", action="store_true", help="replace an existing output")
    collect.set_defaults(func=run_collect)

    listing = commands.add_parser(
        "list",
        help="list the datasets in a directory",
        description="List the datasets directly under DIR: native datasets, D4MORL .pkl "
        "files, Minari datasets and those of installed formats.",
    )
    listing.add_argument("directory", type=options.path_text, nargs="?", default=".", metavar="DIR")
    listing.add_argument("--json", action="store_true", help="print machine-readable JSON")
    listing.set_defaults(func=run_list)


class _WritableFormats:
    """`--to`'s choices, read from the format registry only when argparse checks a value or
    prints help (building the parser, for any command, scans no installed packages)."""

    def __contains__(self, name: object) -> bool:
        from paretoscope.data.formats import writable_formats

        return name in writable_formats()

    def __iter__(self) -> Iterator[str]:
        from paretoscope.data.formats import writable_formats

        return iter(writable_formats())


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def _is_terminal() -> bool:
    return sys.stderr.isatty()


# --- show ---------------------------------------------------------------------------------------


def run_show(args: argparse.Namespace) -> int:
    from paretoscope.data.sources import dataset_summary, detect_format

    kind = detect_format(args.path)
    summary = dataset_summary(args.path, env_id=args.env_id, progress=_is_terminal())
    if args.json:
        print(json.dumps({"path": str(args.path), "format": kind, **summary.to_dict()}, indent=1))
    else:
        print(for_terminal(format_summary(summary, str(args.path), kind)))
    return 0


_SPARK = " ▁▂▃▄▅▆▇█"


def _sparkline(counts: tuple[int, ...]) -> str:
    peak = max(counts) or 1
    return "".join(_SPARK[round(count / peak * (len(_SPARK) - 1))] for count in counts)


def format_summary(summary: Any, path: str, kind: str) -> str:
    """The plain-text view of a `DatasetSummary` that `data show` prints."""
    info = summary.info
    names = info.objective_names
    behaviour = ", ".join(
        part
        for part in (
            info.behaviour,
            info.preference_distribution and f"{info.preference_distribution} preferences",
        )
        if part
    )
    lines = [
        ("dataset", f"{path} ({kind})"),
        ("environment", f"{info.env_id}, {len(names)} objectives: {', '.join(names)}"),
        ("source", info.source or "unknown"),
        ("behaviour", behaviour or "unknown"),
        (
            "trajectories",
            f"{summary.n_trajectories:,} ({summary.n_ended_early:,} ended before the horizon)",
        ),
        (
            "steps",
            f"{summary.n_steps:,} (length {summary.length_min}-{summary.length_max}, "
            f"mean {summary.length_mean:.1f})",
        ),
    ]
    for index, name in enumerate(names):
        lines.append(
            (
                f"return {name}",
                f"{number(summary.return_min[index], 6)} .. {number(summary.return_max[index], 6)} "
                f"(mean {number(summary.return_mean[index], 6)})",
            )
        )
    for index, name in enumerate(names):
        lines.append(
            (
                f"preference {name}",
                f"{summary.preference_min[index]:.3f} .. {summary.preference_max[index]:.3f} "
                f"[{_sparkline(summary.preference_histograms[index])}] over 0..1",
            )
        )
    reference = numbers(summary.reference_point)
    count = summary.n_non_dominated
    lines.append(("non-dominated", f"{count:,} {'trajectory' if count == 1 else 'trajectories'}"))
    lines.append(
        ("hypervolume", f"{number(summary.hypervolume, 6)} (reference point ({reference}))")
    )
    width = max(len(label) for label, _ in lines)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in lines)


# --- convert ------------------------------------------------------------------------------------


def run_convert(args: argparse.Namespace) -> int:
    from paretoscope.data.convert import convert

    written = convert(
        args.source,
        args.destination,
        to=args.to,
        env_id=args.env_id,
        overwrite=args.overwrite,
        progress=_is_terminal(),
    )
    print(f"wrote {written}")
    return 0


# --- collect ------------------------------------------------------------------------------------


def parse_bounds(text: str | None) -> list[list[float]] | None:
    """``"0.1:0.9,0:1"`` -> [[0.1, 0.9], [0.0, 1.0]]."""
    if text is None:
        return None
    try:
        return [[float(part) for part in pair.split(":", 1)] for pair in text.split(",")]
    except ValueError:
        raise ParetoscopeError(
            f"--preference-bounds {briefly(text)}: expected LOW:HIGH pairs separated by commas"
        ) from None


def _load_agent(path: str) -> Any:
    from paretoscope.agents import load

    return load(path)


def run_collect(args: argparse.Namespace) -> int:
    from paretoscope.collect import collect

    agent = _load_agent(args.agent)
    written = collect(
        agent,
        args.env_id,
        episodes=args.episodes,
        out=args.out,
        distribution=args.dist,
        quality=args.quality,
        seed=args.seed,
        preference_bounds=parse_bounds(args.preference_bounds),
        batch_size=args.batch_size,
        horizon=args.horizon,
        d4morl_out=args.d4morl_out,
        overwrite=args.overwrite,
        progress=_is_terminal(),
        agent_name=Path(args.agent).name,
        action_noise=args.action_noise,
    )
    print(f"wrote {written}" + (f" and {args.d4morl_out}" if args.d4morl_out else ""))
    return 0


# --- list ---------------------------------------------------------------------------------------


def find_datasets(directory: Path) -> list[dict[str, Any]]:
    """Datasets directly inside `directory` (one level), with what their headers tell cheaply
    (`paretoscope.data.formats`: the same sniffing as the dashboard's discovery)."""
    from paretoscope.data.formats import sniff_dataset

    if not directory.is_dir():
        raise ParetoscopeError(f"{directory}: not a directory")
    found: list[dict[str, Any]] = []
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith("."):
            continue
        try:
            header = sniff_dataset(entry)
        except ParetoscopeError as error:
            found.append({"path": str(entry), "format": "unreadable", "problem": str(error)})
            continue
        if header is None:
            continue
        record: dict[str, Any] = {
            "path": str(entry),
            "format": header.format,
            "env_id": header.env_id,
        }
        if header.n_trajectories is not None:
            record["trajectories"] = header.n_trajectories
        record.update(header.extra)
        found.append(record)
    return found


def run_list(args: argparse.Namespace) -> int:
    found = find_datasets(Path(args.directory))
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    if not found:
        print(f"no datasets in {args.directory}")
    for item in found:
        details = ", ".join(
            f"{key} {value:,}" if isinstance(value, int) else f"{key} {value}"
            for key, value in item.items()
            if key not in ("path", "format") and value is not None
        )
        print(for_terminal(f"{item['path']}  [{item['format']}]  {details}"))
    return 0
