"""`paretoscope agent`: look inside agent checkpoints and import other tools' files.

- ``agent show PATH [--json]``: a paretoscope checkpoint's config and parameter count; for
  another tool's file, what its importer can tell (format, kind, env, what it still needs).
- ``agent import FILE [--env ID] [--kind KIND] [--trust] [--set NAME=VALUE ...] --out DIR``:
  convert a PEDA or MORL-Baselines checkpoint (or an installed importer's) into a paretoscope
  one (JSON config + safetensors, no pickle). ``agent import-peda`` is the older spelling for
  PEDA files (``--type`` for ``--kind``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from paretoscope.agents.peda.signature import PEDA_TYPES
from paretoscope.cli import options
from paretoscope.errors import ParetoscopeError
from paretoscope.text import for_terminal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agent",
        help="inspect agent checkpoints, import PEDA and MORL-Baselines checkpoints",
        description="Inspect paretoscope agent checkpoints and import other tools' files.",
    )
    commands = parser.add_subparsers(dest="agent_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: _help(parser))

    show = commands.add_parser(
        "show",
        help="print a checkpoint's config, or what another tool's file holds",
        description="Print a paretoscope checkpoint's config and parameter count, or what an "
        "importer reads from another tool's file (format, kind, env, what it still needs).",
    )
    show.add_argument(
        "path", type=options.path, help="checkpoint directory, .safetensors, .ckpt, .tar"
    )
    show.add_argument("--json", action="store_true", help="print machine-readable JSON")
    show.set_defaults(func=run_show)

    importer = commands.add_parser(
        "import",
        help="convert a PEDA or MORL-Baselines checkpoint into a paretoscope agent",
        description="Convert another tool's checkpoint into a paretoscope checkpoint (JSON "
        "config + safetensors). The kind and every size are read from the file; what it "
        "cannot tell (often the env) is asked for. Nothing is written when the file does not "
        "fit. Files that can only be read by running code from them (PCN's pickled model) are "
        "refused unless --trust.",
    )
    importer.add_argument(
        "checkpoint", type=options.path, help="the file, e.g. weights/Envelope.tar"
    )
    importer.add_argument(
        "--env", default=None, help="environment id (when the file's path does not name it)"
    )
    importer.add_argument(
        "--kind",
        default=None,
        help="the model kind, when it cannot be read from the file (see `agent show FILE`)",
    )
    importer.add_argument(
        "--trust",
        action="store_true",
        help="read a file that holds pickled Python objects in full: it can run any code, so "
        "only for a file you made or trust; it is converted once to a safe checkpoint",
    )
    importer.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        dest="options",
        help="an importer's option (e.g. horizon=20 for PCN, members=population for MORL/D)",
    )
    _output_arguments(importer)
    importer.set_defaults(func=run_import)

    peda = commands.add_parser(
        "import-peda",
        help="convert a PEDA checkpoint (ckpt/step=N.ckpt): `agent import` for PEDA files",
        description="Convert a checkpoint written by PEDA's training script into a paretoscope "
        "checkpoint. The architecture is read from the tensor shapes; PEDA's observation "
        "normalisation, scale 1000 and contexts come with it. The initial target is fitted on "
        "--dataset (as PEDA does) or taken from PEDA's published linear models.",
    )
    peda.add_argument(
        "checkpoint", type=options.path, help="PEDA checkpoint, e.g. ckpt/step=1000.ckpt"
    )
    peda.add_argument("--env", required=True, help="environment id, e.g. MO-Hopper-v3")
    peda.add_argument(
        "--type", required=True, choices=PEDA_TYPES, dest="peda_type", help="model type"
    )
    peda.add_argument(
        "--dataset",
        type=options.path,
        default=None,
        help="the D4MORL .pkl the model was trained on",
    )
    peda.add_argument(
        "--n-head",
        type=int,
        default=1,
        help="attention heads of a dt (not visible in the weights; PEDA uses 1)",
    )
    _output_arguments(peda)
    peda.set_defaults(func=run_import_peda)


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=options.path, required=True, help="directory to write")
    parser.add_argument(
        "--single-file", action="store_true", help="write one .safetensors file (PEDA kinds)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace an existing checkpoint")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def run_show(args: argparse.Namespace) -> int:
    from paretoscope.agents.formats import sniff_agent

    path: Path = args.path
    header = sniff_agent(path) if path.exists() else None
    if header is not None and header.plan is not None:
        record = import_record(path)
        print(json.dumps(record, indent=2) if args.json else for_terminal(format_import(record)))
        return 0
    from paretoscope.agents.checkpoint import parameter_count, read_config

    config = read_config(path)
    record = {"path": str(path), "parameter_count": parameter_count(path), "config": config}
    print(json.dumps(record, indent=2) if args.json else for_terminal(format_config(record)))
    return 0


def run_import(args: argparse.Namespace) -> int:
    from paretoscope.agents.importers import parse_options

    return _import(args, args.env, args.kind, args.trust, parse_options(args.options))


def run_import_peda(args: argparse.Namespace) -> int:
    options = {"n_head": str(args.n_head)}
    if args.dataset is not None:
        options["dataset"] = str(args.dataset)
    return _import(args, args.env, args.peda_type, False, options)


def _import(
    args: argparse.Namespace,
    env_id: str | None,
    kind: str | None,
    trust: bool,
    options: dict[str, str],
) -> int:
    from paretoscope.agents.checkpoint import CONFIG_FILE, save
    from paretoscope.agents.importers import import_agent

    out: Path = args.out
    existing = out if args.single_file else out / CONFIG_FILE
    if existing.exists() and not args.overwrite:
        raise ParetoscopeError(f"{existing}: already exists (pass --overwrite to replace it)")
    agent = import_agent(args.checkpoint, env_id, kind, trust=trust, options=options)
    written = save(agent, out, single_file=args.single_file)
    print(
        f"imported {args.checkpoint.name} for {agent.spec.env_id} as a {agent.spec.kind} "
        f"agent -> {written}"
    )
    for line in _import_details(agent):
        print(f"  {line}")
    return 0


def _import_details(agent: Any) -> list[str]:
    details = []
    architecture = getattr(agent, "architecture", None)
    if architecture is not None:
        details.append(f"architecture: {_inline(vars(architecture))}")
    if hasattr(agent, "target_model"):
        model = agent.target_model
        details.append(
            f"initial target: {model.source if model else 'none (not return-conditioned)'}"
        )
    members = getattr(agent, "members", None)
    if members is not None:
        details.append(f"networks: {len(members)}, behaviour: {_inline(_flat(agent.behaviour))}")
    skipped = (getattr(agent, "training", None) or {}).get("skipped")
    if skipped:
        details.append(f"left unread (nothing of them ran): {', '.join(skipped)}")
    return details


def import_record(path: Path) -> dict[str, Any]:
    """What the importer that claims `path` can tell, plus its own inspection if it has one."""
    from paretoscope.agents.importers import get_importer, sniff_import

    plan = sniff_import(path)
    assert plan is not None
    record: dict[str, Any] = {
        "path": str(path),
        "format": plan.format,
        "description": plan.description,
        "kind": plan.kind,
        "kinds": list(plan.kinds),
        "env_id": plan.env_id,
        "needs_trust": plan.needs_trust,
        "questions": [
            {"name": q.name, "prompt": q.prompt, "choices": list(q.choices), "default": q.default}
            for q in plan.questions
        ],
    }
    inspect = getattr(get_importer(plan.format), "inspect", None)
    if callable(inspect) and not plan.needs_trust:
        record["details"] = inspect(path)
    return record


def format_import(record: dict[str, Any]) -> str:
    lines = [
        f"{record['path']}: {record['description']}",
        f"  format          {record['format']} (import it with `paretoscope agent import`)",
        f"  kind            {record['kind'] or 'unknown: --kind ' + '|'.join(record['kinds'])}",
        f"  env             {record['env_id'] or '-'}",
    ]
    for question in record["questions"]:
        default = f" (default {question['default']})" if question["default"] else ""
        lines.append(f"  asks            {question['prompt']}{default}")
    if record["needs_trust"]:
        lines.append("  trust           needed: the file is a pickled Python object (--trust)")
    for key, value in (record.get("details") or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        lines.append(f"  {key.replace('_', ' '):<15} {shown if shown not in (None, '') else '-'}")
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
    def short(value: Any) -> Any:
        if isinstance(value, dict):
            return "{...}"
        if isinstance(value, list) and value and isinstance(value[0], (dict, list)):
            return f"[{len(value)} entries]"
        return value

    return {key: short(value) for key, value in data.items()}


def _inline(data: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in data.items())
