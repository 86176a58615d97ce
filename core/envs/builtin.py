"""What paretoscope registers by default: D4MORL's tasks, then every MO-Gymnasium id it can run.

`mo-supermario-v0` is left out: it needs game ROMs that no package installs.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from paretoscope.envs.mo_gymnasium_suite import TASKS, spec_from_env
from paretoscope.envs.mujoco_specs import SPECS
from paretoscope.envs.registry import register
from paretoscope.envs.spec import EnvSpec


def _make_d4morl(spec: EnvSpec, render_mode: str | None = None, **kwargs: Any) -> Any:
    from paretoscope.envs.d4morl import make_d4morl_env

    return make_d4morl_env(spec, render_mode=render_mode, **kwargs)


def register_builtin() -> None:
    for spec in SPECS:
        make = partial(_make_d4morl, spec) if spec.family == "d4morl" else None
        register(spec.id, spec, make=make)
    for task in TASKS:
        register(task.id, partial(spec_from_env, task), family="mo-gymnasium")
