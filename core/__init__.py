"""paretoscope: see and feel the trade-offs a multi-objective agent has learned.

The public API is the names below (docs/python-api.md): list and make environments, load or
convert an agent, sweep it over preferences, record an episode, plot fronts and open the
dashboard on it. Everything else is internal and may move. The Streamlit app is
`paretoscope.dashboard`, the command line `paretoscope.cli` (``paretoscope`` or
``python -m paretoscope``).

Importing this package loads nothing heavy (no torch, mujoco or streamlit): each public name is
imported from its module the first time it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from paretoscope.errors import ParetoscopeError

__version__ = "0.1.0"

# Public name -> the module that defines it.
_PUBLIC_NAMES = {
    "list_envs": "paretoscope.api.envs",
    "make_env": "paretoscope.api.envs",
    "get_spec": "paretoscope.api.envs",
    "load_agent": "paretoscope.api.agents",
    "from_morl_baselines": "paretoscope.api.morl_baselines",
    "sweep": "paretoscope.api.sweeping",
    "Sweep": "paretoscope.api.sweeping",
    "record": "paretoscope.api.recording",
    "Recording": "paretoscope.api.recording",
    "explore": "paretoscope.api.explore",
    "Explorer": "paretoscope.api.explore",
}
# Public modules, imported on first use like the names.
_PUBLIC_MODULES = ("plot",)

__all__ = ["ParetoscopeError", "__version__", *_PUBLIC_NAMES, *_PUBLIC_MODULES]

if TYPE_CHECKING:  # what type checkers and editors see; at run time, __getattr__ below
    from paretoscope import plot as plot
    from paretoscope.api.agents import load_agent as load_agent
    from paretoscope.api.envs import get_spec as get_spec
    from paretoscope.api.envs import list_envs as list_envs
    from paretoscope.api.envs import make_env as make_env
    from paretoscope.api.explore import Explorer as Explorer
    from paretoscope.api.explore import explore as explore
    from paretoscope.api.morl_baselines import from_morl_baselines as from_morl_baselines
    from paretoscope.api.recording import Recording as Recording
    from paretoscope.api.recording import record as record
    from paretoscope.api.sweeping import Sweep as Sweep
    from paretoscope.api.sweeping import sweep as sweep


def __getattr__(name: str) -> Any:
    if name in _PUBLIC_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module_name = _PUBLIC_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value  # later uses skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
