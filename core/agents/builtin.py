"""Agents known by name, and `load_agent`, which reads any agent argument.

Named agents need no file: the built-in ``random`` (`paretoscope evaluate random ...`) and the
plug-ins this process was told about (`register_plugin`: the dashboard's ``--agent py:...``,
and the agent factories of installed entry points, `register_entry_points`). The dashboard
lists them beside the assets' agents for every env they serve.

A built-in's name is an agent only when no file or folder of that name exists: a checkpoint
saved as ``./random`` is still loaded from disk.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paretoscope.agents.base import Agent
from paretoscope.agents.random_agent import RANDOM_AGENT, RandomAgent
from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry
from paretoscope.text import briefly

if TYPE_CHECKING:
    from paretoscope.agents.importers import ImportAnswers

BUILTIN_FORMAT = "builtin"
PLUGIN_FORMAT = "plugin"
ENTRY_POINT_GROUP = "paretoscope.agents"


@dataclass(frozen=True)
class NamedAgent:
    """An agent known by name: how to build it for an env, and which envs it serves."""

    name: str
    format: str  # BUILTIN_FORMAT or PLUGIN_FORMAT
    build: Callable[[str], Agent]
    label: str
    description: str
    env_ids: tuple[str, ...] | None = None  # None: every env

    def serves(self, env_id: str) -> bool:
        return self.env_ids is None or env_id in self.env_ids


def _unknown_agent(name: object, known: list[str]) -> str:
    return f"no agent named {briefly(name)} (named agents: {', '.join(known)})"


def _agent_from_entry_point(name: str, value: Any) -> NamedAgent | None:
    """An installed package's entry point in ``paretoscope.agents``: an agent factory (named
    here), or an importer (registered with the importers, where that name is still free)."""
    from paretoscope.agents.importers import IMPORTERS, is_importer
    from paretoscope.agents.plugin import build_plugin

    if is_importer(value):
        if name not in IMPORTERS:
            IMPORTERS.register(name, value)
        return None
    if not callable(value):
        raise ParetoscopeError("neither an agent factory nor an importer")
    served = getattr(value, "env_ids", None)
    return NamedAgent(
        name,
        PLUGIN_FORMAT,
        functools.partial(build_plugin, name, value),
        f"{name} (installed plug-in)",
        "an agent an installed package declares (entry point paretoscope.agents)",
        tuple(served) if served else None,
    )


NAMED_AGENTS: Registry[NamedAgent] = Registry(
    "agent",
    {
        RANDOM_AGENT: NamedAgent(
            RANDOM_AGENT,
            BUILTIN_FORMAT,
            RandomAgent,
            "random (uniform baseline)",
            "paretoscope's built-in random agent: a baseline that needs no file",
        )
    },
    entry_point_group=ENTRY_POINT_GROUP,
    from_entry_point=_agent_from_entry_point,
    # Installed agents are the dashboard's offer (`register_entry_points`); the CLI names an
    # agent by path or py:module:callable and never needs them.
    load_entry_points_on_first_use=False,
    unknown=_unknown_agent,
)
BUILTIN_AGENTS: tuple[str, ...] = tuple(NAMED_AGENTS.names())


def is_builtin(name: str | os.PathLike[str]) -> bool:
    return str(name) in BUILTIN_AGENTS and not Path(name).exists()


def named_agents(env_id: str | None = None) -> list[NamedAgent]:
    """The named agents (for `env_id`: those that serve it), built-ins first."""
    return [agent for agent in NAMED_AGENTS.values() if env_id is None or agent.serves(env_id)]


def named_agent(name: str) -> NamedAgent:
    """The named agent `name`, else a ParetoscopeError listing them."""
    return NAMED_AGENTS.get(name)


def check_builtin(name: str) -> str:
    """`name` if it names a built-in or registered plug-in agent; raises otherwise."""
    return named_agent(name).name


def builtin_agent(name: str, env_id: str) -> Agent:
    """The named agent `name` built for `env_id`, whatever files exist (the dashboard offers it
    by name beside the catalog's files, so a file called ``random`` must not stand in)."""
    agent = named_agent(name)
    if not agent.serves(env_id):
        raise ParetoscopeError(
            f"agent {briefly(name)} serves {', '.join(agent.env_ids or ())}, not {env_id}"
        )
    return agent.build(env_id)


def register_plugin(source: str) -> NamedAgent:
    """Name the plug-in ``py:module:callable`` as an agent of this process (the dashboard's
    ``--agent``): listed for every env, built by calling it when chosen. The module is imported
    now, so a wrong name fails at start rather than in a page."""
    from paretoscope.agents.plugin import build_plugin, parse_plugin, resolve_factory

    parse_plugin(source)
    factory = resolve_factory(source)
    served = getattr(factory, "env_ids", None)
    agent = NamedAgent(
        source,
        PLUGIN_FORMAT,
        lambda env_id: build_plugin(source, factory, env_id),
        f"{source} (plug-in)",
        "a plug-in policy named on the dashboard's command line (the user's own code)",
        tuple(served) if served else None,
    )
    NAMED_AGENTS.register(source, agent, replace=True)  # the same source names the same code
    return agent


def register_entry_points() -> list[str]:
    """Register, once per process, the agents and importers installed packages declare
    (entry-point group ``paretoscope.agents``); returns the messages of those that failed."""
    return NAMED_AGENTS.load_entry_points()


def load_agent(
    name_or_path: str | os.PathLike[str],
    env_id: str | None = None,
    device: str = "cpu",
    answers: ImportAnswers | None = None,
) -> Agent:
    """What an agent argument names: a built-in agent, a ``py:module:callable`` plug-in
    (`paretoscope.agents.plugin`), a paretoscope checkpoint, or another tool's file, imported
    on the fly (`paretoscope.agents.importers`; a file that needs more answers or trust says so).

    `env_id` is needed for a built-in or a plug-in (they are built for an env); a checkpoint
    knows its env, and an importer reads what the file tells. `answers` answer an importer's
    questions (kind, trust, its options); any other source refuses them rather than ignore them.
    A `device` other than the CPU is refused for an agent that would not act on it.
    """
    from paretoscope.agents.device import check_device_used, resolve_device

    resolved = resolve_device(device)
    agent = _load_agent(name_or_path, env_id, device, answers)
    check_device_used(agent, resolved, name_or_path)
    return agent


def _load_agent(
    name_or_path: str | os.PathLike[str],
    env_id: str | None,
    device: str,
    answers: ImportAnswers | None,
) -> Agent:
    from paretoscope.agents.plugin import is_plugin

    if is_builtin(name_or_path) or is_plugin(name_or_path):
        _refuse_answers(name_or_path, answers)
        if env_id is None:
            raise ParetoscopeError(
                f"agent {briefly(str(name_or_path))} is built for an environment: name its env id"
            )
        if is_builtin(name_or_path):
            return builtin_agent(str(name_or_path), env_id)
        from paretoscope.agents.plugin import load_plugin

        return load_plugin(str(name_or_path), env_id)
    from paretoscope.agents.checkpoint import load
    from paretoscope.agents.checkpoint_header import is_checkpoint_path

    location = Path(name_or_path)
    if location.exists() and not is_checkpoint_path(location):
        from paretoscope.agents.importers import import_agent, sniff_import

        if sniff_import(location) is not None:
            return import_agent(
                location,
                env_id=env_id or (answers.env_id if answers else None),
                kind=answers.kind if answers else None,
                trust=answers.trust if answers else False,
                options=answers.options if answers else None,
            )
    _refuse_answers(name_or_path, answers)
    return load(location, device=device)


def _refuse_answers(source: str | os.PathLike[str], answers: ImportAnswers | None) -> None:
    """Answers are for an importer's questions; elsewhere they would be silently ignored."""
    if answers is None:
        return
    given = [f"kind={answers.kind}"] if answers.kind is not None else []
    given += ["trust=True"] if answers.trust else []
    given += [f"{name}={value}" for name, value in answers.options.items()]
    if given:
        raise ParetoscopeError(
            f"{source}: {', '.join(given)} answer an importer's questions, and no importer "
            "reads this agent (only another tool's files take them)"
        )
