"""`paretoscope agent`: look inside agent checkpoints and import PEDA's.

- ``agent show PATH [--json]``: a paretoscope checkpoint's config and parameter count; for a
  PEDA ``.ckpt``, what can be read from it (model type, envs it fits, size).
- ``agent import-peda CKPT --env ID --type dt|rvs|bc [--dataset FILE] --out DIR``: convert a
  PEDA checkpoint into a paretoscope one (JSON config + safetensors, no pickle).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from core.agents.peda_file import PEDA_TYPES
from core.errors import ParetoscopeError
from core.text import for_terminal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agent",
        help="inspect agent checkpoints, import PEDA checkpoints",
        description="Inspect paretoscope agent checkpoints and import PEDA's.",
    )
    commands = parser.add_subparsers(dest="agent_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: _help(parser))

    show = commands.add_parser(
        "show",
        help="print a checkpoint's config and parameter count",
        description="Print a paretoscope checkpoint's config and parameter count, or what a "
        "PEDA .ckpt holds (model type, environments it fits, size).",
    )
    show.add_argument("path", type=Path, help="checkpoint directory, .safetensors or PEDA .ckpt")
    show.add_argument("--json", action="store_true", help="print machine-readable JSON")
    show.set_defaults(func=run_show)

    importer = commands.add_parser(
        "import-peda",
        help="convert a PEDA checkpoint (ckpt/step=N.ckpt) into a paretoscope agent",
        description="Convert a checkpoint written by PEDA's training script into a paretoscope "
        "checkpoint. The architecture is read from the tensor shapes; PEDA's observation "
        "normalisation, scale 1000 and contexts come with it. The initial target is fitted on "
        "--dataset (as PEDA does) or taken from PEDA's published linear models.",
    )
    importer.add_argument("checkpoint", type=Path, help="PEDA checkpoint, e.g. ckpt/step=1000.ckpt")
    importer.add_argument("--env", required=True, help="environment id, e.g. MO-Hopper-v3")
    importer.add_argument(
        "--type", required=True, choices=PEDA_TYPES, dest="peda_type", help="model type"
    )
    importer.add_argument(
        "--dataset", type=Path, default=None, help="the D4MORL .pkl the model was trained on"
    )
    importer.add_argument(
        "--n-head",
        type=int,
        default=1,
        help="attention heads of a dt (not visible in the weights; PEDA uses 1)",
    )
    importer.add_argument("--out", type=Path, required=True, help="directory to write")
    importer.add_argument(
        "--single-file", action="store_true", help="write one .safetensors file instead"
    )
    importer.add_argument("--overwrite", action="store_true", help="replace an existing checkpoint")
    importer.set_defaults(func=run_import_peda)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def run_show(args: argparse.Namespace) -> int:
    from core.agents.formats import sniff_agent

    path: Path = args.path
    header = sniff_agent(path) if path.exists() else None
    if header is not None and header.format == "peda":
        record = peda_record(path)
        print(json.dumps(record, indent=2) if args.json else for_terminal(format_peda(record)))
        return 0
    from core.agents.checkpoint import parameter_count, read_config

    config = read_config(path)
    record = {"path": str(path), "parameter_count": parameter_count(path), "config": config}
    print(json.dumps(record, indent=2) if args.json else for_terminal(format_config(record)))
    return 0


def run_import_peda(args: argparse.Namespace) -> int:
    from core.agents.checkpoint import CONFIG_FILE, save
    from core.agents.peda import import_peda

    out: Path = args.out
    existing = out if args.single_file else out / CONFIG_FILE
    if existing.exists() and not args.overwrite:
        raise ParetoscopeError(f"{existing}: already exists (pass --overwrite to replace it)")
    agent = import_peda(
        args.checkpoint, args.env, args.peda_type, dataset=args.dataset, n_head=args.n_head
    )
    written = save(agent, out, single_file=args.single_file)
    target = agent.target_model.source if agent.target_model else "none (not return-conditioned)"
    print(
        f"imported PEDA {args.peda_type} for {agent.spec.env_id} as a {agent.spec.kind} agent "
        f"({agent.parameter_count} parameters) -> {written}\n"
        f"  architecture: {_inline(vars(agent.architecture))}\n"
        f"  initial target: {target}"
    )
    return 0


def peda_record(path: Path) -> dict[str, Any]:
    from core.agents.peda import inspect_peda

    info = inspect_peda(path)
    return {
        "path": str(path),
        "format": "peda",
        "peda_type": info.peda_type,
        "env_from_path": info.env_from_path,
        "env_candidates": list(info.env_candidates),
        "env_guess": info.env_guess,
        "n_tensors": info.n_tensors,
        "parameter_count": info.n_parameters,
        "training_steps": info.training_steps,
    }


def format_peda(record: dict[str, Any]) -> str:
    envs = ", ".join(record["env_candidates"]) or "none of the D4MORL envs"
    lines = [
        f"{record['path']}: a PEDA checkpoint (import it with `paretoscope agent import-peda`)",
        f"  model type      {record['peda_type'] or 'unknown (keys fit no PEDA model)'}",
        f"  fits envs       {envs}",
        f"  env in path     {record['env_from_path'] or '-'}",
        f"  tensors         {record['n_tensors']} ({record['parameter_count']} float values)",
        f"  training steps  {record['training_steps'] if record['training_steps'] else '-'}",
    ]
    return "\n".join(lines)


def format_config(record: dict[str, Any]) -> str:
    """A readable summary of a checkpoint config; `--json` prints every field."""
    config = record["config"]
    lines = [
        f"{record['path']}",
        f"  kind            {config['kind']}",
        f"  env             {config['env_id']} (obs {config['obs_dim']}, act {config['act_dim']}, "
        f"{config['n_obj']} objectives)",
        f"  parameters      {record['parameter_count']}",
        f"  conditioning    {_inline(config['conditioning'])}",
    ]
    if "architecture" in config:
        lines.append(f"  architecture    {_inline(config['architecture'])}")
    if "rtg_scale" in config:
        lines.append(
            f"  returns         / {config['rtg_scale']:g}, preference-weighted: "
            f"{config.get('preference_weighted_return')}"
        )
    target = config.get("target_model")
    if isinstance(target, dict):
        lines.append(f"  target model    {target.get('source', '')}")
        for index, row in enumerate(target.get("corner_returns", [])):
            values = ", ".join(f"{value:.1f}" for value in row)
            lines.append(f"    objective {index} at pure preferences: {values}")
    training = config.get("training") or {}
    if training:
        lines.append(f"  training        {_inline(_flat(training))}")
    versions = config.get("versions") or {}
    if versions:
        lines.append(f"  versions        {_inline(versions)}")
    return "\n".join(lines)


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    return {key: ("{...}" if isinstance(value, dict) else value) for key, value in data.items()}


def _inline(data: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in data.items())
