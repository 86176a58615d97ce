"""`paretoscope envs`: the table of registered environments; `envs show ID`: one spec in full."""

from __future__ import annotations

import argparse
import json
from typing import Any

from paretoscope.cli.options import add_json_option
from paretoscope.envs import EnvSpec, get_spec, list_specs
from paretoscope.envs.spec import DEFAULT_HORIZON
from paretoscope.text import for_terminal, numbers


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "envs",
        help="list the registered environments",
        description="List every registered environment: family, objectives, spaces, horizon, "
        "hypervolume reference point.",
    )
    add_json_option(parser)
    parser.set_defaults(func=run)
    commands = parser.add_subparsers(dest="envs_command", metavar="{show}")
    show = commands.add_parser(
        "show",
        help="print one environment's spec and its known Pareto front",
        description="Print the spec of ID (the fields of `envs --json`) and, where the env "
        "defines one, its known Pareto front at discount GAMMA.",
    )
    show.add_argument("env_id", metavar="ID", help="environment id (see `paretoscope envs`)")
    show.add_argument(
        "--gamma", type=float, default=1.0, help="discount of the known front (default 1)"
    )
    add_json_option(show)
    show.set_defaults(func=run_show)


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
        "obs_shape": list(spec.obs_shape),
        "act_dim": spec.act_dim,
        "n_actions": spec.n_actions,
        "action_space": spec.describe_actions(),
        "horizon": spec.horizon,
        "horizon_source": spec.horizon_source,
        "max_horizon": spec.max_horizon,
        "dt": spec.dt,
        "reference_point": list(spec.reference_point),
        "reference_point_source": spec.reference_point_source,
        "action_low": list(spec.action_low),
        "action_high": list(spec.action_high),
        "drawn_by": "paretoscope" if spec.camera is not None else "env",
        "description": spec.description,
    }


def format_table(specs: list[EnvSpec]) -> str:
    """A plain-text table, one environment per line."""
    header = ("id", "family", "objectives", "obs", "actions", "horizon", "dt", "reference point")
    rows = [
        (
            spec.id,
            spec.family,
            ", ".join(spec.objective_names),
            "x".join(str(side) for side in spec.obs_shape),
            spec.describe_actions(),
            str(spec.horizon) + ("*" if spec.horizon_source == "default" else ""),
            f"{spec.dt:g}",
            "(" + numbers(spec.reference_point) + ")",
        )
        for spec in specs
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in (header, *rows)
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    if any(spec.horizon_source == "default" for spec in specs):
        lines.append(
            f"* no registered time limit: paretoscope's default of {DEFAULT_HORIZON} steps "
            "(--horizon asks for more)"
        )
    return "\n".join(line.rstrip() for line in lines)


def run(args: argparse.Namespace) -> int:
    specs = list_specs()
    if args.json:
        print(json.dumps([spec_record(spec) for spec in specs], indent=2))
    else:
        print(for_terminal(format_table(specs)))
    return 0


def show_record(env_id: str, gamma: float) -> dict[str, object]:
    """What `envs show ID --json` prints: the spec's fields, then `known_front` (or null)."""
    from paretoscope.envs.known_fronts import known_front

    record = spec_record(get_spec(env_id))
    front = known_front(env_id, gamma)
    record["known_front"] = None if front is None else front.to_dict()
    return record


def run_show(args: argparse.Namespace) -> int:
    record = show_record(args.env_id, args.gamma)
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    front = record.pop("known_front")
    width = max(len(key) for key in record)
    for key, value in record.items():
        if key == "objectives":
            assert isinstance(value, list)
            value = ", ".join(
                objective["name"] + (f" ({objective['unit']})" if objective["unit"] else "")
                for objective in value
            )
        print(for_terminal(f"{key:<{width}}  {value}"))
    if front is None:
        print(f"{'known_front':<{width}}  none (the env defines no Pareto front)")
        return 0
    assert isinstance(front, dict)
    kind = "exact" if front["exact"] else "approximate"
    points = front["points"]
    print(
        f"known_front ({kind}, gamma {front['gamma']:g}, {len(points)} points): {front['source']}"
    )
    for point in points:
        print("  (" + numbers(point, 6) + ")")
    return 0
