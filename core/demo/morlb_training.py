"""The demo's MO-Gymnasium agent: trained by MORL-Baselines' own code, imported by paretoscope.

MORL-Baselines is a build-time extra of the demo (``pip install -e ".[demo]"``), never a
dependency of the dashboard: this module imports it only inside `train_with_morl_baselines`,
and what the demo ships is the paretoscope checkpoint that `paretoscope agent import` makes of
the library's saved file (kept beside it as ``training/<file>.tar``, without replay buffer).

Training is seeded (the library's own `seed`, one torch thread, CPU); the library prints its
weight-selection steps, which go to ``training/morl-baselines.log`` while a progress bar counts
the env steps. An interrupted training starts again (a few minutes on 2 cores); a finished one
is never redone: the import reads the saved file.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from paretoscope.errors import ParetoscopeError

MORL_BASELINES_VERSION = "1.3.0"
# An imported agent keeps the file MORL-Baselines saved here, beside its config.json.
TRAINING_DIR = "training"
TRAINING_LOG = "morl-baselines.log"
INSTALL_HINT = (
    'pip install -e ".[demo]" (MORL-Baselines is a build-time extra of the demo, '
    f"morl-baselines=={MORL_BASELINES_VERSION})"
)

# algorithm -> (module, class, the file name its save() writes, `paretoscope agent import --kind`)
ALGORITHMS: dict[str, tuple[str, str, str, str]] = {
    "gpi-ls": ("morl_baselines.multi_policy.gpi_pd.gpi_pd", "GPILS", "GPI-LS", "gpi-ls"),
    "capql": ("morl_baselines.multi_policy.capql.capql", "CAPQL", "CAPQL", "capql"),
    "envelope": (
        "morl_baselines.multi_policy.envelope.envelope",
        "Envelope",
        "Envelope",
        "envelope",
    ),
}


def saved_file_name(algorithm: str) -> str:
    return f"{_algorithm(algorithm)[2]}.tar"


def import_kind(algorithm: str) -> str:
    return _algorithm(algorithm)[3]


def _algorithm(algorithm: str) -> tuple[str, str, str, str]:
    try:
        return ALGORITHMS[algorithm]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise ParetoscopeError(
            f"MORL-Baselines algorithm {algorithm!r}: the demo trains one of {known}"
        ) from None


def morl_baselines_version() -> str:
    """The installed MORL-Baselines' version; a clear error (with the install line) without it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("morl-baselines")
    except PackageNotFoundError:
        raise ParetoscopeError(
            f"the demo's MO-Gymnasium agent is trained by MORL-Baselines, which is not "
            f"installed: {INSTALL_HINT}"
        ) from None


def _step_counter(env: Any, on_step: Callable[[], None]) -> Any:
    """`env` with `on_step()` called after every step (for the progress bar)."""
    import gymnasium

    class Counted(gymnasium.Wrapper):
        def step(self, action: Any) -> Any:
            result = self.env.step(action)
            on_step()
            return result

    return Counted(env)


@contextlib.contextmanager
def _library_output_to(path: Path) -> Iterator[None]:
    """The library's prints (weight selection, corner weights) into `path`, not the terminal."""
    with path.open("a", encoding="utf-8") as log, contextlib.redirect_stdout(log):
        yield


def train_with_morl_baselines(
    algorithm: str,
    env_id: str,
    folder: Path,
    timesteps: int,
    seed: int,
    episode_limit: int | None,
    options: dict[str, Any],
    train_options: dict[str, Any],
    reference_point: tuple[float, ...],
    known_front: list[list[float]] | None,
    progress: bool = True,
) -> Path:
    """Train `algorithm` on `env_id` for `timesteps` env steps and save it (no replay buffer)
    into `folder`; returns the saved file. The library's constructor gets `options` (plus
    seed, CPU, no wandb), its ``train`` gets `train_options` (plus the eval env, reference
    point and known front, which only feed its own logs)."""
    import numpy as np
    import torch
    from tqdm import tqdm

    morl_baselines_version()
    module_name, class_name, file_stem, _ = _algorithm(algorithm)
    import gymnasium
    import mo_gymnasium

    algorithm_class = getattr(importlib.import_module(module_name), class_name)
    from morl_baselines.common.evaluation import seed_everything

    folder.mkdir(parents=True, exist_ok=True)

    def make(on_step: Callable[[], None] | None = None) -> Any:
        env = mo_gymnasium.make(env_id)
        if episode_limit is not None:
            env = gymnasium.wrappers.TimeLimit(env, episode_limit)
        # Nor does the library seed the envs (their resets and action_space.sample).
        env.reset(seed=seed)
        env.action_space.seed(seed)
        return env if on_step is None else _step_counter(env, on_step)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    bar = tqdm(total=timesteps, desc=f"{class_name} on {env_id}", unit="step", disable=not progress)
    try:
        env = make(lambda: bar.update(1))
        with _library_output_to(folder / TRAINING_LOG):
            # The constructor's seed only seeds the agent's own generator: the networks'
            # initialisation, replay sampling and weight choices use the global ones.
            seed_everything(seed)
            agent = algorithm_class(env, **options, log=False, seed=seed, device="cpu")
            agent.train(
                total_timesteps=timesteps,
                eval_env=make(),
                ref_point=np.asarray(reference_point, dtype=np.float64),
                known_pareto_front=None
                if known_front is None
                else [np.asarray(point) for point in known_front],
                **train_options,
            )
            # save() joins save_dir + "/" + filename + ".tar" itself.
            agent.save(save_replay_buffer=False, save_dir=str(folder), filename=file_stem)
    finally:
        bar.close()
        torch.set_num_threads(threads)
    saved = folder / f"{file_stem}.tar"
    if not saved.is_file():
        raise ParetoscopeError(f"MORL-Baselines' {class_name}.save wrote no {saved}")
    return saved
