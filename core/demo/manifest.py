"""The demo's manifest (assets/manifest.json) and its readable twin (assets/README.md).

Both are generated from the recipe and the build ledger: every artefact with the command line
that makes it, its seed, the code commit, its size in bytes and its figures; then the quality
targets, met or NOT met. The manifest keeps the format `paretoscope.catalog.discover_assets` reads.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paretoscope.atomic import write_bytes_atomically
from paretoscope.catalog import (
    MANIFEST_FILE,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    RESULTS_DIR,
    SweepPlan,
)
from paretoscope.demo.figures import QualityCheck, hypervolume_fractions, quality_checks
from paretoscope.demo.ledger import code_commit
from paretoscope.demo.recipe import (
    TRAINING_THREADS,
    DatasetRecipe,
    EnvRecipe,
    MorlbRecipe,
    OfflineRecipe,
    RunRecipe,
)
from paretoscope.envs import get_spec
from paretoscope.settings import BehaviourTrainingSettings, OfflineTrainingSettings
from paretoscope.settings.fields import setting_fields
from paretoscope.sweeps import SWEEP_BATCH_SIZE

if TYPE_CHECKING:
    from paretoscope.demo.build import DemoBuild

README_FILE = "README.md"
# Marks the rows of the artefact table so a reader (or a test) can find them.
TABLE_HEADER = "| artefact | kind | env | size | seed | commit | made by |"


def folder_size(path: Path) -> int:
    """Bytes of a file, or of every file under a folder."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += (Path(root) / name).stat().st_size
    return total


def human_size(size: int) -> str:
    """1536 -> '1.5 KB' (powers of 1024, one decimal)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns


# --- command lines -------------------------------------------------------------------------------


def _join(parts: list[str]) -> str:
    return " ".join(shlex.quote(part) for part in parts)


def _changed_options(
    settings: object, names: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()
) -> list[str]:
    """``[option, value, ...]`` for each field of `settings` (those in `names` when given, in
    declaration order) whose value differs from the default (the command line's)."""
    defaults = type(settings)()
    parts: list[str] = []
    for field in setting_fields(type(settings)):
        if (names is not None and field.name not in names) or field.name in skip:
            continue
        value, default = _value_at(settings, field.path), _value_at(defaults, field.path)
        if value != default:
            parts += [field.option, str(value)]
    return parts


def _value_at(settings: object, path: tuple[str, ...]) -> object:
    """A (possibly nested) field's value."""
    value = settings
    for name in path:
        value = getattr(value, name)
    return value


def behaviour_command(build: DemoBuild, env: EnvRecipe) -> str:
    settings: BehaviourTrainingSettings = env.behaviour
    parts = ["paretoscope", "train", "behaviour", "--env", env.env_id]
    if settings.preferences is None:
        parts += ["--preferences", str(settings.members)]
    else:
        for row in settings.preferences:
            parts += ["--preference", ",".join(str(float(value)) for value in row)]
    parts += ["--out", build.display(build.agent_dir(env.behaviour_name))]
    parts += ["--iterations", str(settings.iterations)]
    parts += _changed_options(
        settings,
        ("directions", "top_directions", "step_size", "noise", "horizon", "eval_episodes"),
    )
    if settings.survival_shift is not None:
        parts += ["--survival-shift", str(settings.survival_shift)]
    if not settings.warm_start:
        parts.append("--no-warm-start")
    if settings.transfer_every is not None:
        parts += ["--transfer-every", str(settings.transfer_every)]
    if settings.survival_bonus is not None:
        parts += ["--survival-bonus", ",".join(f"{value:g}" for value in settings.survival_bonus)]
    for member in settings.train_on:
        parts += ["--train-on", member.option()]
    if settings.drop_dominated is not None:
        parts += ["--drop-dominated", f"{settings.drop_dominated:g}"]
    if settings.workers is not None:
        parts += ["--workers", str(settings.workers)]
    parts += ["--seed", str(settings.seed)]
    return _join(parts)


def dataset_command(build: DemoBuild, env: EnvRecipe, dataset: DatasetRecipe) -> str:
    parts = [
        "paretoscope", "data", "collect",
        "--agent", build.display(build.agent_dir(env.behaviour_name)),
        "--env", env.env_id,
        "--dist", dataset.distribution,
        "--quality", dataset.quality,
        "--episodes", str(dataset.episodes),
        "--seed", str(dataset.seed),
    ]  # fmt: skip
    if dataset.action_noise:
        parts += ["--action-noise", f"{dataset.action_noise:g}"]
    if dataset.horizon is not None:
        parts += ["--horizon", str(dataset.horizon)]
    parts += ["--out", build.display(build.dataset_dir(env.dataset_name(dataset)))]
    return _join(parts)


def agent_command(build: DemoBuild, env: EnvRecipe, agent: OfflineRecipe | RunRecipe) -> str:
    """`paretoscope train`'s line (a run's includes its --snapshot-every)."""
    settings: OfflineTrainingSettings = agent.settings
    name = env.run_name(agent) if isinstance(agent, RunRecipe) else env.agent_name(agent)
    parts = [
        "paretoscope", "train", agent.kind,
        "--data", build.display(build.dataset_dir(env.dataset_name(agent.dataset))),
        "--out", build.display(build.agent_dir(name)),
        "--steps", str(settings.steps),
        "--seed", str(settings.seed),
    ]  # fmt: skip
    parts += _changed_options(settings, skip=("steps", "seed"))
    return _join(parts + ["--threads", str(TRAINING_THREADS), "--resume"])


def morlb_command(build: DemoBuild, imported: MorlbRecipe) -> str:
    """The import of the file MORL-Baselines saved (its training is the build's own step)."""
    from paretoscope.demo.morlb_training import TRAINING_DIR, import_kind, saved_file_name

    folder = build.agent_dir(imported.name)
    parts = [
        "paretoscope", "agent", "import",
        build.display(folder / TRAINING_DIR / saved_file_name(imported.algorithm)),
        "--env", imported.env_id, "--kind", import_kind(imported.algorithm),
        "--out", build.display(folder), "--overwrite",
    ]  # fmt: skip
    return _join(parts)


def sweep_command(build: DemoBuild, env_id: str, name: str, plan: SweepPlan) -> str:
    parts = [
        "paretoscope", "evaluate", build.display(build.agent_dir(name)),
        "--env", env_id,
        "--granularity", str(plan.granularity),
    ]  # fmt: skip
    if tuple(plan.seeds) == tuple(range(len(plan.seeds))):
        parts += ["--episodes", str(len(plan.seeds))]
    if plan.horizon is not None:
        parts += ["--horizon", str(plan.horizon)]
    parts += ["--batch-size", str(SWEEP_BATCH_SIZE), "--out", build.display(build.results_dir)]
    command = _join(parts)
    if tuple(plan.seeds) != tuple(range(len(plan.seeds))):
        command += (
            f"  (seeds {', '.join(map(str, plan.seeds))}: paretoscope.evaluate.sweep with "
            "SweepSettings(seeds=...))"
        )
    return command


# --- content -------------------------------------------------------------------------------------


def _kind_label(kind: str) -> str:
    return "MORvS" if kind == "morvs" else kind.upper()


def _entry(build: DemoBuild, step_id: str) -> dict[str, Any]:
    return build.ledger.entry(step_id) or {}


def collected_figures(build: DemoBuild) -> dict[str, dict[str, Any]]:
    """Figures per artefact name, from the ledger (sweeps, datasets, training)."""
    figures: dict[str, dict[str, Any]] = {}
    for env in build.recipe.envs:
        figures[env.behaviour_name] = dict(
            _entry(build, f"sweep:{env.behaviour_name}").get("figures") or {}
        )
        for dataset in env.datasets:
            name = env.dataset_name(dataset)
            figures[name] = dict(_entry(build, f"dataset:{name}").get("figures") or {})
        for agent in env.agents:
            name = env.agent_name(agent)
            figures[name] = {
                **(_entry(build, f"agent:{name}").get("figures") or {}),
                **(_entry(build, f"sweep:{name}").get("figures") or {}),
            }
        for run in env.runs:
            name = env.run_name(run)
            figures[name] = {
                **(_entry(build, f"run:{name}").get("figures") or {}),
                **(_entry(build, f"sweep:{name}").get("figures") or {}),
            }
    for imported in build.recipe.morlb:
        figures[imported.name] = {
            **(_entry(build, f"agent:{imported.name}").get("figures") or {}),
            **(_entry(build, f"sweep:{imported.name}").get("figures") or {}),
        }
    for name, fraction in hypervolume_fractions(build.recipe, figures).items():
        figures[name]["hypervolume_fraction_of_behaviour"] = fraction
    return figures


def current_checks(build: DemoBuild) -> list[QualityCheck]:
    """The quality checks on what the ledger holds now (empty when no sweep is done yet)."""
    if not any(step_id.startswith("sweep:") for step_id in build.ledger.steps):
        return []
    return quality_checks(build.recipe, collected_figures(build))


def manifest_content(build: DemoBuild) -> dict[str, Any]:
    """The manifest: discover_assets' fields plus provenance, sizes and figures."""
    recipe = build.recipe
    figures = collected_figures(build)
    agents: dict[str, Any] = {}
    datasets: dict[str, Any] = {}

    def provenance(step_id: str, path: Path, command: str, seed: int) -> dict[str, Any]:
        entry = _entry(build, step_id)
        return {
            "path": path.relative_to(build.out).as_posix(),
            "command": command,
            "seed": seed,
            "commit": entry.get("commit", "unknown"),
            "adopted": bool(entry.get("adopted", False)),
            "finished": entry.get("finished"),
            "size_bytes": folder_size(path) if path.exists() else 0,
        }

    for env in recipe.envs:
        expert = next((d for d in env.datasets if d.quality == "expert"), None)
        name = env.behaviour_name
        members = (
            env.behaviour.members
            if env.behaviour.preferences is None
            else len(env.behaviour.preferences)
        )
        agents[name] = {
            "label": f"ARS behaviour policies ({members})",
            "description": "One linear policy per preference, trained with Augmented Random "
            "Search on the scalarised reward; a preference picks the nearest member.",
            "env": env.env_id,
            "kind": "policy_set",
            **({"dataset": env.dataset_name(expert)} if expert else {}),
            "sweep": env.sweep.to_dict(),
            **provenance(
                f"behaviour:{name}", build.agent_dir(name), behaviour_command(build, env),
                env.behaviour.seed,
            ),
            "sweep_command": sweep_command(build, env.env_id, name, env.sweep),
            "figures": figures.get(name, {}),
        }  # fmt: skip
        for agent in env.agents:
            name = env.agent_name(agent)
            agents[name] = {
                "label": f"{_kind_label(agent.kind)} ({env.short_name}, {agent.dataset})",
                "description": f"Offline {agent.kind} agent trained on "
                f"{env.dataset_name(agent.dataset)} with PEDA's losses.",
                "env": env.env_id,
                "kind": agent.kind,
                "dataset": env.dataset_name(agent.dataset),
                "sweep": env.sweep.to_dict(),
                **provenance(
                    f"agent:{name}", build.agent_dir(name), agent_command(build, env, agent),
                    agent.settings.seed,
                ),
                "sweep_command": sweep_command(build, env.env_id, name, env.sweep),
                "figures": figures.get(name, {}),
            }  # fmt: skip
        for run in env.runs:
            name = env.run_name(run)
            agents[name] = {
                "label": f"{_kind_label(run.kind)} training run ({env.short_name}, "
                f"{run.snapshots} snapshots)",
                "description": f"Offline {run.kind} agent trained on "
                f"{env.dataset_name(run.dataset)}, kept every {run.settings.snapshot_every} "
                f"steps up to {run.settings.steps}: each snapshot swept, so the Training page "
                "shows its front growing.",
                "env": env.env_id,
                "kind": run.kind,
                "dataset": env.dataset_name(run.dataset),
                "sweep": env.sweep.to_dict(),
                **provenance(
                    f"run:{name}", build.agent_dir(name), agent_command(build, env, run),
                    run.settings.seed,
                ),
                "sweep_command": sweep_command(build, env.env_id, name, env.sweep),
                "figures": figures.get(name, {}),
            }  # fmt: skip
        for dataset in env.datasets:
            name = env.dataset_name(dataset)
            datasets[name] = {
                "label": f"{dataset.quality}"
                + (f" with action noise {dataset.action_noise:g}" if dataset.action_noise else "")
                + f", {dataset.distribution} preferences ({dataset.episodes} episodes)",
                "description": "Collected from the behaviour policies, D4MORL style"
                + (" (plus Gaussian action noise)." if dataset.action_noise else "."),
                "env": env.env_id,
                **provenance(
                    f"dataset:{name}", build.dataset_dir(name),
                    dataset_command(build, env, dataset), dataset.seed,
                ),
                "figures": figures.get(name, {}),
            }  # fmt: skip
    for imported in recipe.morlb:
        agents[imported.name] = {
            "label": imported.label,
            "description": f"Trained by MORL-Baselines' own {imported.algorithm} code (a "
            "build-time extra of the demo), imported by paretoscope's importer"
            + (
                "."
                if imported.front_gamma is None
                else "; its front is measured against the env's known front at gamma "
                f"{imported.front_gamma:g}."
            ),
            "env": imported.env_id,
            "kind": imported.algorithm,
            "sweep": imported.sweep.to_dict(),
            **provenance(
                f"agent:{imported.name}", build.agent_dir(imported.name),
                morlb_command(build, imported), imported.seed,
            ),
            "sweep_command": sweep_command(
                build, imported.env_id, imported.name, imported.sweep
            ),
            "figures": figures.get(imported.name, {}),
        }  # fmt: skip
    first = recipe.envs[0]
    default_agent = recipe.opening_agent or next(
        (first.agent_name(a) for a in first.agents if a.kind == "morvs"), first.behaviour_name
    )
    results = {
        env_id: {
            "path": f"{RESULTS_DIR}/{env_id}",
            "size_bytes": folder_size(build.results_dir / env_id)
            if (build.results_dir / env_id).exists()
            else 0,
        }
        for env_id in [env.env_id for env in recipe.envs] + [m.env_id for m in recipe.morlb]
    }
    checks = quality_checks(recipe, figures)
    return {
        "title": recipe.title,
        "description": recipe.description,
        "defaults": {
            "env": first.env_id,
            "agent": default_agent,
            "dataset": first.dataset_name(first.datasets[0]) if first.datasets else None,
            "seed": 0,
            **(
                {}
                if recipe.opening_preference is None
                else {"preference": list(recipe.opening_preference)}
            ),
        },
        "sweep": first.sweep.to_dict(),
        "agents": agents,
        "datasets": datasets,
        "results": results,
        "quality": [check.to_dict() for check in checks],
        "build": {
            "command": "paretoscope demo build"
            + ("" if recipe.name == "full" else f" --{recipe.name}"),
            "recipe": recipe.name,
            "commit": code_commit(),
        },
    }


def write_demo_manifest(build: DemoBuild) -> dict[str, Any]:
    """Write manifest.json and README.md into the build's folder (atomically)."""
    content = manifest_content(build)
    # README first: its size enters the manifest's total.
    readme = render_readme(content)
    write_bytes_atomically(build.out / README_FILE, readme.encode("utf-8"))
    payload = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, **content}
    write_bytes_atomically(
        build.out / MANIFEST_FILE, (json.dumps(payload, indent=2) + "\n").encode("utf-8")
    )
    return payload


# --- README --------------------------------------------------------------------------------------


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def table_rows(content: dict[str, Any]) -> list[dict[str, str]]:
    """The artefact table's rows (agents, then datasets, then results), as README shows them."""
    rows = []
    for kind_name, section in (("agent", "agents"), ("dataset", "datasets")):
        for name, entry in content[section].items():
            kind = entry.get("kind", kind_name) if section == "agents" else "dataset"
            rows.append(
                {
                    "artefact": f"`{entry['path']}/`",
                    "kind": kind,
                    "env": entry["env"],
                    "size": human_size(int(entry["size_bytes"])),
                    "seed": str(entry["seed"]),
                    "commit": str(entry["commit"])[:10],
                    "made by": f"`{entry['command']}`",
                    "name": name,
                }
            )
    return rows


def render_readme(content: dict[str, Any]) -> str:
    """The whole README.md of the assets folder, from the manifest content."""
    lines = [
        f"# {content['title']}",
        "",
        "Generated by `paretoscope demo build` from `manifest.json`; do not edit by hand (rebuild",
        "instead: see [docs/demo.md](../docs/demo.md)). The dashboard opens this folder by default",
        "(`paretoscope dashboard`).",
        "",
        content["description"],
        "",
        f"Recipe: `{content['build']['recipe']}`; command: `{content['build']['command']}`.",
        "",
        "## Artefacts",
        "",
        TABLE_HEADER,
        "|---|---|---|---|---|---|---|",
    ]
    for row in table_rows(content):
        lines.append(
            f"| {row['artefact']} | {row['kind']} | {row['env']} | {row['size']} | {row['seed']} "
            f"| {row['commit']} | {row['made by']} |"
        )
    for env_id, entry in content["results"].items():
        lines.append(
            f"| `{entry['path']}/` | sweeps | {env_id} | {human_size(int(entry['size_bytes']))} "
            "| – | – | the `sweep_command` of each agent below |"
        )
    total = sum(int(e["size_bytes"]) for s in ("agents", "datasets") for e in content[s].values())
    total += sum(int(e["size_bytes"]) for e in content["results"].values())
    lines += ["", f"Total: {human_size(total)} ({total:,} bytes) before this README and the "
              "manifest.", ""]  # fmt: skip

    lines += [
        "## Sweeps",
        "",
        "Every agent rolled out over the preference grid with the seeds of its sweep plan, "
        f"{SWEEP_BATCH_SIZE} episodes per agent call; the agents are batch-invariant, so a "
        "stored episode replays exactly alone.",
        "",
        "| agent | env | grid / seeds | hypervolume | HV / behaviour | sparsity | "
        "non-dominated | expected utility | RTG weighted error | RTG ratio error |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in content["agents"].items():
        figures = entry.get("figures") or {}
        plan = entry["sweep"]
        lines.append(
            f"| {name} | {entry['env']} | {plan['granularity']} / "
            f"{','.join(map(str, plan['seeds']))} | {_fmt(figures.get('hypervolume'))} | "
            f"{_fmt(figures.get('hypervolume_fraction_of_behaviour'), 3)} | "
            f"{_fmt(figures.get('sparsity'))} | {_fmt(figures.get('cardinality'))} | "
            f"{_fmt(figures.get('expected_utility'))} | "
            f"{_fmt(figures.get('rtg_weighted_error'))} | {_fmt(figures.get('rtg_ratio_error'))} |"
        )
    lines.append("")
    for name, entry in content["agents"].items():
        members = (entry.get("figures") or {}).get("members")
        if not members:
            continue
        spec = get_spec(entry["env"])
        objectives = ", ".join(spec.objective_names)
        lines += [
            f"### {name}: members at their own preferences",
            "",
            f"| preference ({objectives}) | mean return ({objectives}) | non-dominated |",
            "|---|---|---|",
        ]
        for member in members:
            preference = ", ".join(f"{value:.3g}" for value in member["preference"])
            returns = ", ".join(f"{value:.1f}" for value in member["mean_return"])
            flag = "yes" if member["non_dominated"] else "no"
            lines.append(f"| ({preference}) | ({returns}) | {flag} |")
        figures = entry["figures"]
        for key, title in (("run_most", "run-most"), ("energy_most", "energy-most")):
            if key in figures:
                motion = figures[key]
                lines.append("")
                lines.append(
                    f"The {title} member ({', '.join(f'{v:g}' for v in motion['preference'])}): "
                    f"mean forward speed {motion['mean_speed']:.2f} m/s, mean sum of squared "
                    f"actions {motion['mean_action_cost']:.3f} per step."
                )
        lines.append("")

    known = {
        name: entry["figures"]["known_front"]
        for name, entry in content["agents"].items()
        if "known_front" in (entry.get("figures") or {})
    }
    if known:
        lines += [
            "## Against known fronts",
            "",
            "| agent | env | gamma | hypervolume | known front's | fraction | known points "
            "reached | IGD | mean regret |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, figures in known.items():
            lines.append(
                f"| {name} | {content['agents'][name]['env']} | {figures['gamma']:g} | "
                f"{_fmt(figures.get('hypervolume'))} | "
                f"{_fmt(figures.get('known_front_hypervolume'))} | "
                f"{_fmt(figures.get('fraction_of_known_front'), 3)} | "
                f"{figures['known_points_reached']} of {figures['known_points']} | "
                f"{_fmt(figures.get('igd'))} | {_fmt(figures.get('mean_regret'))} |"
            )
        lines += ["", f"Known fronts: {next(iter(known.values()))['source']}.", ""]

    lines += [
        "## Datasets",
        "",
        "| dataset | trajectories | steps | hypervolume | non-dominated trajectories |",
        "|---|---|---|---|---|",
    ]
    for name, entry in content["datasets"].items():
        figures = entry.get("figures") or {}
        lines.append(
            f"| {name} | {_fmt(figures.get('trajectories'))} | {_fmt(figures.get('steps'))} | "
            f"{_fmt(figures.get('hypervolume'))} | "
            f"{_fmt(figures.get('non_dominated_trajectories'))} |"
        )
    lines += ["", "## Quality targets", "", "| artefact | target | value | |",
              "|---|---|---|---|"]  # fmt: skip
    for check in content["quality"]:
        lines.append(
            f"| {check['artefact']} | {check['target']} | {_fmt(check['value'])} | "
            f"{'met' if check['met'] else '**NOT met**'} |"
        )
    lines.append("")
    return "\n".join(lines)
