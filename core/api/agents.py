"""`load_agent`: an agent from a checkpoint, another tool's file, ``"random"`` or a plug-in.

The same path as the command line's agent arguments (`paretoscope.agents.builtin.load_agent`):
a paretoscope checkpoint is loaded as it is; another tool's file goes through the importer
registry, which reads what the file tells and asks only the rest (the keyword arguments here
answer it); ``"random"`` and ``"py:module:callable"`` are built for the env named.
"""

from __future__ import annotations

import os
from pathlib import Path

from paretoscope.agents.base import Agent
from paretoscope.errors import ParetoscopeError

AgentSource = str | os.PathLike[str]

__all__ = ["AgentSource", "load_agent"]


def load_agent(
    source: AgentSource,
    env: str | None = None,
    *,
    kind: str | None = None,
    trust: bool = False,
    device: str = "cpu",
    **options: object,
) -> Agent:
    """Load an agent from a file, or build a named one for an environment.

    Parameters
    ----------
    source : str or path
        A paretoscope checkpoint (folder or ``.safetensors`` file); another tool's file that an
        importer reads (a MORL-Baselines ``Envelope.tar``, a PEDA ``step=N.ckpt``, ...);
        ``"random"`` (the uniform baseline); or ``"py:module:callable"``, your own policy
        factory (`paretoscope.agents.plugin`: importing the module runs its code).
    env : str, optional
        The environment id. Needed for ``"random"`` and plug-ins; for an imported file only
        when neither the file nor its path says it (it then overrides the file's guess).
    kind : str, optional
        An imported file's model kind, where the file does not tell (PEDA: ``dt``, ``rvs``,
        ``bc``).
    trust : bool, default False
        Read an imported file that is a whole pickled Python object (MORL-Baselines' PCN):
        reading it runs code the file names, so only for a file you made or trust. Without
        it such a file is refused and nothing from it runs.
    device : str, default "cpu"
        Torch device for a paretoscope checkpoint's networks.
    **options
        The importer's own questions, e.g. ``horizon=20`` for PCN or ``members="population"``
        for MORL/D (``paretoscope agent show FILE`` lists what a file still needs).

    Returns
    -------
    Agent
        An object with ``spec``, ``reset``, ``act`` and ``initial_target``, ready for
        `paretoscope.sweep` and `paretoscope.record`.

    Raises
    ------
    ParetoscopeError
        For an unknown env id, a missing or unreadable file, an imported file whose open
        questions are not answered (each one named), an untrusted pickled file, ``"random"``
        or a plug-in without `env`, or import answers given for an agent no importer reads.
    """
    from paretoscope.agents.builtin import load_agent as load_named_or_file
    from paretoscope.agents.importers import ImportAnswers

    if not isinstance(source, str | os.PathLike):
        raise ParetoscopeError(
            f"source: expected a path, 'random' or 'py:module:callable', got a "
            f"{type(source).__name__}"
        )
    if env is not None:
        _check_env(env)
    answers = ImportAnswers(
        env_id=env,
        kind=kind,
        trust=bool(trust),
        options={name: _option_text(value) for name, value in options.items()},
    )
    return load_named_or_file(source, env, device=device, answers=answers)


def resolve_agent(agent: Agent | AgentSource, env: str | None) -> tuple[Agent, str, str | None]:
    """(agent, env id, name) for `paretoscope.sweep` and `paretoscope.record`: an agent object
    as it is, anything `load_agent` accepts loaded; the env `env`, else the agent's own. The
    name is what `paretoscope evaluate` calls an agent given by path (its last part), None for
    an object (the sweep then names it by kind and fingerprint)."""
    if isinstance(agent, str | os.PathLike):
        loaded = load_agent(agent, env)
        return loaded, env or loaded.spec.env_id, Path(agent).name
    if not isinstance(agent, Agent):
        raise ParetoscopeError(
            "agent: expected an agent (with spec, reset, act and initial_target), a path, "
            f"'random' or 'py:module:callable', got a {type(agent).__name__}"
        )
    if env is not None:
        _check_env(env)
    return agent, env or agent.spec.env_id, None


def _option_text(value: object) -> str:
    """An importer option as the text it parses (the CLI's ``--set NAME=VALUE``)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _check_env(env: object) -> None:
    """An unknown env id is named with its closest registered ids before anything is loaded."""
    from paretoscope.envs import get_spec

    if not isinstance(env, str):
        raise ParetoscopeError(f"env: expected an environment id, got a {type(env).__name__}")
    get_spec(env)
