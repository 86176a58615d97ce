"""The MORL-Baselines agents step: an MO-Gymnasium agent trained by MORL-Baselines' own code (a
build-time extra, `paretoscope.demo.morlb_training`), then imported and saved by paretoscope."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from paretoscope.demo.build import DemoBuild, Step, torch_threads
from paretoscope.demo.morlb_training import MORL_BASELINES_VERSION
from paretoscope.demo.recipe import TRAINING_THREADS, MorlbRecipe
from paretoscope.envs import get_spec
from paretoscope.envs.known_fronts import known_front


def morlb_step(build: DemoBuild, agent: MorlbRecipe) -> Step:
    """Train with MORL-Baselines (build-time extra), then import and save the agent."""
    folder = build.agent_dir(agent.name)

    def settings() -> dict[str, Any]:
        settings = {**asdict(agent), "sweep": None, "morl_baselines": MORL_BASELINES_VERSION}
        if agent.keep_saved_file:  # the default: earlier ledgers stay valid
            del settings["keep_saved_file"]
        return settings

    def run() -> dict[str, Any]:
        from paretoscope.agents import save
        from paretoscope.agents.checkpoint import parameter_count
        from paretoscope.agents.importers import import_agent
        from paretoscope.demo import morlb_training as training

        scratch = folder / training.TRAINING_DIR
        saved = scratch / training.saved_file_name(agent.algorithm)
        if not saved.is_file():
            with torch_threads(TRAINING_THREADS):
                front = (
                    None
                    if agent.front_gamma is None
                    else known_front(agent.env_id, agent.front_gamma)
                )
                training.train_with_morl_baselines(
                    agent.algorithm,
                    agent.env_id,
                    scratch,
                    timesteps=agent.timesteps,
                    seed=agent.seed,
                    episode_limit=agent.episode_limit,
                    options={key: _plain(value) for key, value in agent.options},
                    train_options={key: _plain(value) for key, value in agent.train_options},
                    reference_point=get_spec(agent.env_id).reference_point,
                    known_front=None if front is None else front.points.tolist(),
                    progress=build.progress,
                )
        imported = import_agent(
            saved, env_id=agent.env_id, kind=training.import_kind(agent.algorithm)
        )
        save(imported, folder)
        if not agent.keep_saved_file:
            saved.unlink()
        return {
            "fingerprint": build.agent_fingerprint(agent.name, f"agent {agent.name}"),
            "figures": {
                "training_steps": agent.timesteps,
                "parameters": int(parameter_count(folder)),
            },
        }

    return Step(
        id=f"agent:{agent.name}",
        kind="agents",
        name=agent.name,
        outputs=(folder / "config.json",),
        settings=settings,
        run=run,
        env_id=agent.env_id,
    )


def _plain(value: Any) -> Any:
    """A recipe value as the library takes it: tuples (kept hashable in the recipe) as lists."""
    return list(value) if isinstance(value, tuple) else value
