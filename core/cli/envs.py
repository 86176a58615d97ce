"""`paretoscope envs`: the table of registered environments."""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.envs import EnvSpec, list_specs


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "envs",
        help="list the registered environments",
        description="List every registered environment: family, objectives, dims, horizon, "
        "hypervolume reference point.",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(func=run)


def spec_record(spec: EnvSpec) -> dict[str, object]:
    """The JSON-friendly view of a spec that `envs --json` prints."""
    return {
        "id": spec.id,
        "family": spec.family,
        "objectives": [
            {"name": o.name, "unit": o.unit, "description": o.description} for o in spec.objectives
        ],
        "n_obj": spec.n_obj,
        "obs_dim": spec.obs_dim,
        "act_dim": spec.act_dim,
        "horizon": spec.horizon,
        "dt": spec.dt,
        "reference_point": list(spec.reference_point),
        "reference_point_source": spec.reference_point_source,
        "action_low": list(spec.action_low),
        "action_high": list(spec.action_high),
        "description": spec.description,
    }


def format_table(specs: list[EnvSpec]) -> str:
    """A plain-text table, one environment per line."""
    header = ("id", "family", "objectives", "obs", "act", "horizon", "dt", "reference point")
    rows = [
        (
            spec.id,
            spec.family,
            ", ".join(spec.objective_names),
            str(spec.obs_dim),
            str(spec.act_dim),
            str(spec.horizon),
            f"{spec.dt:g}",
            "(" + ", ".join(f"{value:g}" for value in spec.reference_point) + ")",
        )
        for spec in specs
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in (header, *rows)
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)


def run(args: argparse.Namespace) -> int:
    specs = list_specs()
    if args.json:
        print(json.dumps([spec_record(spec) for spec in specs], indent=2))
    else:
        print(format_table(specs))
    return 0
