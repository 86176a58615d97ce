"""The datasets step: episodes collected from an env's behaviour set (`paretoscope.collect`),
D4MORL style."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from paretoscope.demo.build import DemoBuild, Step
from paretoscope.demo.recipe import DatasetRecipe, EnvRecipe
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError


def dataset_step(build: DemoBuild, env: EnvRecipe, dataset: DatasetRecipe) -> Step:
    name = env.dataset_name(dataset)
    folder = build.dataset_dir(name)
    spec = get_spec(env.env_id)

    def settings() -> dict[str, Any]:
        return {
            "env_id": env.env_id,
            "agent": env.behaviour_name,
            "agent_fingerprint": build.agent_fingerprint(env.behaviour_name, f"dataset {name}"),
            # Without noise, the settings (and so the ledgers) of noiseless sets are unchanged.
            **{
                key: value
                for key, value in asdict(dataset).items()
                if key != "batch_size" and (key != "action_noise" or value)
            },
            "horizon": dataset.horizon or spec.horizon,
        }

    def run() -> dict[str, Any]:
        from paretoscope.agents import load
        from paretoscope.collect import collect

        if (folder / "paretoscope-dataset.json").is_file():
            raise ParetoscopeError(
                f"{folder}: a dataset made with other settings is in the way; delete it to "
                "collect it again"
            )
        agent = load(build.agent_dir(env.behaviour_name))
        collect(
            agent,
            env.env_id,
            episodes=dataset.episodes,
            out=folder,
            distribution=dataset.distribution,
            quality=dataset.quality,
            seed=dataset.seed,
            batch_size=dataset.batch_size,
            horizon=dataset.horizon,
            progress=build.progress,
            agent_name=env.behaviour_name,
            action_noise=dataset.action_noise,
        )
        return dataset_details(build, name)

    def adopt(current: dict[str, Any]) -> dict[str, Any] | None:
        header_path = folder / "paretoscope-dataset.json"
        if not header_path.is_file():
            return None
        header = json.loads(header_path.read_text(encoding="utf-8"))
        info = header.get("info") or {}
        extra = info.get("extra") or {}
        same = (
            info.get("env_id") == env.env_id
            and info.get("quality") == dataset.quality
            and info.get("preference_distribution") == dataset.distribution
            and extra.get("seed") == dataset.seed
            and extra.get("episodes_requested") == dataset.episodes
            and extra.get("horizon") == current["horizon"]
            and extra.get("agent") == env.behaviour_name
            and extra.get("action_noise", 0.0) == dataset.action_noise
        )
        return dataset_details(build, name) if same else None

    return Step(
        id=f"dataset:{name}",
        kind="datasets",
        name=name,
        outputs=(folder / "paretoscope-dataset.json",),
        settings=settings,
        run=run,
        adopt=adopt,
        env_id=env.env_id,
    )


def dataset_details(build: DemoBuild, name: str) -> dict[str, Any]:
    """The ledger's record of a finished dataset: its fingerprint and figures."""
    from paretoscope.data.sources import dataset_summary

    summary = dataset_summary(build.dataset_dir(name))
    return {
        "fingerprint": build.dataset_fingerprint(name, f"dataset {name}"),
        "figures": {
            "trajectories": int(summary.n_trajectories),
            "steps": int(summary.n_steps),
            "hypervolume": float(summary.hypervolume),
            "non_dominated_trajectories": int(summary.n_non_dominated),
            "return_min": [float(value) for value in summary.return_min],
            "return_max": [float(value) for value in summary.return_max],
        },
    }
