"""Environment specs and construction: `get_spec`, `list_specs`, `make_env`."""

from core.envs.registry import REGISTRY, get_spec, list_specs, make_env
from core.envs.spec import CameraSpec, EnvSpec, Family, Objective

__all__ = [
    "REGISTRY",
    "CameraSpec",
    "EnvSpec",
    "Family",
    "Objective",
    "get_spec",
    "list_specs",
    "make_env",
]
