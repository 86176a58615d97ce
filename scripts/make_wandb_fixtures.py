"""Make the W&B run fixtures under tests/fixtures/wandb/ with W&B's own library (offline).

Run with a Python that has wandb 0.31 and, for the MORL-Baselines run, morl-baselines 1.3.0:

    python scripts/make_wandb_fixtures.py [OUT]   (default tests/fixtures/wandb)

It writes five runs, each an ``offline-run-*`` folder as ``wandb.init(mode="offline")``
leaves it:
- ``logged/``: a few fronts (``eval/front``, and a second table ``eval/front_greedy``) and
  scalars keyed to ``global_step``, logged with ``wandb.log`` directly;
- ``backwards/``: a run whose ``global_step`` goes back once (as a resumed run's can);
- ``morlb/``: MORL-Baselines' Envelope on deep-sea-treasure-v0 for 1,500 steps, evaluated
  every 500 by its own ``log_all_multi_policy_metrics`` (its ``setup_wandb`` asks for an online
  run: ``wandb.init`` is wrapped here to force offline); ``morlb-seed1/`` and ``morlb-seed2/``
  the same with seeds 1 and 2 (one algorithm's seeds, for Compare's spread).

Only what the reader needs is kept (the record log ``run-ID.wandb`` and the table files under
``files/media/``); the rest (``logs/``, ``files/code``, ``requirements.txt``, the saved
weights) is deleted so the fixtures stay small.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV_ID = "deep-sea-treasure-v0"
# Points of deep-sea-treasure's front (treasure, -time), a growing front per step.
LOGGED_FRONTS = {
    100: [[1.0, -1.0], [2.0, -3.0]],
    200: [[1.0, -1.0], [2.0, -3.0], [3.0, -5.0], [5.0, -7.0]],
    300: [[1.0, -1.0], [2.0, -3.0], [3.0, -5.0], [5.0, -7.0], [8.0, -8.0], [16.0, -9.0]],
}


def _offline(**options: Any) -> Any:
    import wandb

    return wandb.init(
        mode="offline",
        settings=wandb.Settings(console="off", x_disable_stats=True, disable_git=True),
        save_code=False,
        **options,
    )


def _keep_what_the_reader_reads(work: Path, out: Path) -> None:
    """Move the one offline run under `work` to `out`, less what the reader never opens."""
    (run,) = sorted((work / "wandb").glob("offline-run-*"))
    for extra in ("logs", "tmp"):
        shutil.rmtree(run / extra, ignore_errors=True)
    files = run / "files"
    for entry in list(files.iterdir()) if files.is_dir() else []:
        if entry.name not in ("media", "config.yaml"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.move(str(run), str(out / run.name))


def logged_run(out: Path) -> None:
    import wandb

    with tempfile.TemporaryDirectory() as work:
        run = _offline(
            project="paretoscope-fixtures",
            dir=work,
            id="loggedfix",
            config={"env_id": ENV_ID, "algo": "hand-logged", "gamma": 1.0},
        )
        wandb.define_metric("*", step_metric="global_step")
        for step, front in LOGGED_FRONTS.items():
            wandb.log({"train/loss": 1.0 / step, "global_step": step})
            wandb.log({"eval/cardinality": len(front), "global_step": step}, commit=False)
            columns = ["objective_1", "objective_2"]
            wandb.log(
                {
                    "eval/front": wandb.Table(columns=columns, data=front),
                    "eval/front_greedy": wandb.Table(columns=columns, data=front[-1:]),
                }
            )
        run.finish()
        _keep_what_the_reader_reads(Path(work), out)


def backwards_run(out: Path) -> None:
    import wandb

    with tempfile.TemporaryDirectory() as work:
        run = _offline(
            project="paretoscope-fixtures", dir=work, id="backwardsfix", config={"env_id": ENV_ID}
        )
        wandb.define_metric("*", step_metric="global_step")
        columns = ["objective_1", "objective_2"]
        for step, front in (
            (100, [[1.0, -1.0]]),
            (200, [[2.0, -3.0]]),
            (150, [[3.0, -5.0]]),
            (300, [[5.0, -7.0]]),
        ):
            wandb.log({"eval/front": wandb.Table(columns=columns, data=front), "global_step": step})
        run.finish()
        _keep_what_the_reader_reads(Path(work), out)


def morlb_run(out: Path, seed: int = 0) -> None:
    import mo_gymnasium
    import numpy as np
    import wandb
    from morl_baselines.common.evaluation import seed_everything
    from morl_baselines.multi_policy.envelope.envelope import Envelope

    original = wandb.init

    def offline_init(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(mode="offline", save_code=False, dir=work)
        kwargs["settings"] = wandb.Settings(console="off", x_disable_stats=True, disable_git=True)
        return original(*args, **kwargs)

    with tempfile.TemporaryDirectory() as work:
        wandb.init = offline_init
        cwd = os.getcwd()
        os.chdir(work)  # Envelope's save() writes weights/ in the working folder
        try:
            seed_everything(seed)
            env = mo_gymnasium.make(ENV_ID)
            eval_env = mo_gymnasium.make(ENV_ID)
            agent = Envelope(
                env,
                log=True,
                seed=seed,
                device="cpu",
                learning_starts=100,
                project_name="paretoscope-fixtures",
                experiment_name="Envelope",
            )
            agent.train(
                total_timesteps=1500,
                eval_env=eval_env,
                ref_point=np.array([0.0, -25.0]),
                known_pareto_front=env.unwrapped.pareto_front(gamma=0.99),
                eval_freq=500,
                num_eval_weights_for_front=10,
                num_eval_episodes_for_front=1,
                num_eval_weights_for_eval=10,
            )
            wandb.finish()
        finally:
            os.chdir(cwd)
            wandb.init = original
        _keep_what_the_reader_reads(Path(work), out)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/wandb")
    logged_run(out / "logged")
    backwards_run(out / "backwards")
    morlb_run(out / "morlb")
    for seed in (1, 2):
        morlb_run(out / f"morlb-seed{seed}", seed)
    for path in sorted(out.rglob("*")):
        if path.is_file():
            print(f"{path.stat().st_size:>8}  {path}")


if __name__ == "__main__":
    main()
