"""The offline agents step: MORvS, BC and MODT trained on an env's dataset
(`paretoscope.train.offline.train_offline`), each with its recipe's settings object; and the
training runs, the same training keeping a snapshot every N steps."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from paretoscope.demo.build import DemoBuild, Step, torch_threads
from paretoscope.demo.recipe import TRAINING_THREADS, EnvRecipe, OfflineRecipe, RunRecipe


def offline_settings_record(agent: OfflineRecipe | RunRecipe) -> dict[str, Any]:
    """The recipe entry as the ledger keeps it: kind, dataset, hyper-parameters and network
    fields side by side. An agent's snapshot frequency is left out: it does not change the
    agent (a resumed run may change it), and the ledgers were written before it was a setting;
    a run's is kept, its snapshots being what it is for."""
    hyperparameters = agent.settings.hyperparameters()
    if not isinstance(agent, RunRecipe):
        del hyperparameters["snapshot_every"]
    return {
        "kind": agent.kind,
        "dataset": agent.dataset,
        **hyperparameters,
        **asdict(agent.settings.network),
    }


def offline_agent_step(build: DemoBuild, env: EnvRecipe, agent: OfflineRecipe | RunRecipe) -> Step:
    """An offline agent, or a training run (its snapshots in ``snapshots/step=N/``)."""
    is_run = isinstance(agent, RunRecipe)
    name = env.run_name(agent) if isinstance(agent, RunRecipe) else env.agent_name(agent)
    folder = build.agent_dir(name)
    dataset_name = env.dataset_name(agent.dataset)

    def settings() -> dict[str, Any]:
        return {
            "env_id": env.env_id,
            "dataset_fingerprint": build.dataset_fingerprint(dataset_name, f"agent {name}"),
            **offline_settings_record(agent),
        }

    def run() -> dict[str, Any]:
        from paretoscope.agents.checkpoint import parameter_count
        from paretoscope.runs.run import open_run
        from paretoscope.train.offline import STATE_FILE, TRAINING_DIR, train_offline

        with torch_threads(TRAINING_THREADS):
            trained = train_offline(
                agent.kind,
                build.dataset_dir(dataset_name),
                folder,
                agent.settings,
                env_id=env.env_id,
                resume=True,
                progress=build.progress,
            )
        if not build.recipe.keep_offline_training_state:
            (folder / TRAINING_DIR / STATE_FILE).unlink(missing_ok=True)
        history = (trained.training or {}).get("loss_history") or []
        snapshots = {"snapshot_steps": sorted(open_run(folder).steps)} if is_run else {}
        return {
            "fingerprint": trained.fingerprint(),
            "figures": {
                "training_steps": int((trained.training or {}).get("steps", 0)),
                "final_loss": float(history[-1][1]) if history else None,
                "parameters": int(parameter_count(folder)),
                **snapshots,
            },
        }

    return Step(
        id=f"{'run' if is_run else 'agent'}:{name}",
        kind="agents",
        name=name,
        outputs=(folder / "config.json",),
        settings=settings,
        run=run,
        growable=frozenset({"steps", "checkpoint_every"}),
        env_id=env.env_id,
    )
