"""The six D4MORL environments of the PEDA paper, rebuilt on today's MuJoCo and gymnasium.

- `make_d4morl_env(spec)` builds the gymnasium env (`paretoscope.envs.make_env` calls it);
- `D4MORLPhysics` / `load_physics(env_id)` give the compiled model and the task's formulas for
  code that steps `mujoco.MjData` directly (batched rollouts);
- `formulas` holds the pure reward / termination / observation functions.
"""

from paretoscope.envs.d4morl.env import D4MORLEnv, make_d4morl_env
from paretoscope.envs.d4morl.model import compile_model, gymnasium_assets_dir
from paretoscope.envs.d4morl.physics import RESET_NOISE, D4MORLPhysics, StepOutcome, load_physics
from paretoscope.envs.d4morl.tasks import TASKS, D4MORLTask, get_task

__all__ = [
    "RESET_NOISE",
    "TASKS",
    "D4MORLEnv",
    "D4MORLPhysics",
    "D4MORLTask",
    "StepOutcome",
    "compile_model",
    "get_task",
    "gymnasium_assets_dir",
    "load_physics",
    "make_d4morl_env",
]
