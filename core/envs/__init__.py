"""Environment specs and construction: `register`, `get_spec`, `list_specs`, `make_env`."""

from paretoscope.envs.builtin import register_builtin
from paretoscope.envs.registry import REGISTRY, get_spec, list_ids, list_specs, make_env, register
from paretoscope.envs.spec import CameraSpec, EnvSpec, Family, Objective

register_builtin()

__all__ = [
    "REGISTRY",
    "CameraSpec",
    "EnvSpec",
    "Family",
    "Objective",
    "get_spec",
    "list_ids",
    "list_specs",
    "make_env",
    "register",
]
