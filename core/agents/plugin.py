"""Plug-in policies: the user's own code as an agent, named ``py:module.path:callable``.

paretoscope imports ``module.path`` and calls ``callable(env_id)``; what it returns must have
``act(observations, preferences, targets)`` (the Agent protocol's arrays: (B, obs_dim),
(B, n_obj), (B, n_obj)) returning (B, act_dim) actions, or (B,) integers for a discrete env.
Optional: ``reset(batch_size)``, ``initial_target(preferences)``, ``seed_rows(seeds)``,
``fingerprint()``, ``preference_blind``, and ``spec``: an `AgentSpec`, or a dict of
`Conditioning` fields (e.g. ``{"return_conditioned": True}``).

Importing the module runs its code: a plug-in runs only because its user named it (on the
command line, or by installing a package that declares it). The dashboard takes plug-ins from
its own command line (``paretoscope dashboard --agent py:...``) and from installed entry points
(group ``paretoscope.agents``), never from anything typed into the page, uploaded or linked.

An entry point of that group names either an agent factory (listed by the entry point's name;
a factory may say which envs it serves with an ``env_ids`` attribute) or an importer (an
object with ``sniff`` and ``convert``, `paretoscope.agents.importers`); `paretoscope.agents.builtin`
registers them.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

PLUGIN_PREFIX = "py:"
_DEFAULT_CONDITIONING = Conditioning(preference_in_state=True, return_conditioned=False)


def is_plugin(name: str | os.PathLike[str]) -> bool:
    return str(name).startswith(PLUGIN_PREFIX)


def parse_plugin(name: str) -> tuple[str, str]:
    """(module, attribute) of ``py:module.path:callable``; a malformed name raises."""
    body = name[len(PLUGIN_PREFIX) :] if is_plugin(name) else name
    module, sep, attribute = body.partition(":")
    valid = all(part.isidentifier() for part in [*module.split("."), *attribute.split(".")])
    if not sep or not module or not attribute or not valid:
        raise ParetoscopeError(
            f"{briefly(name)}: a plug-in is named py:module.path:callable (e.g. "
            "py:my_pkg.policies:make)"
        )
    return module, attribute


def resolve_factory(name: str) -> Callable[[str], Any]:
    """The callable that ``py:module:callable`` names (importing the module runs its code)."""
    module_name, attribute = parse_plugin(name)
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - a user's module may fail to import in any way
        raise ParetoscopeError(
            f"{name}: cannot import {briefly(module_name)} ({type(error).__name__}: {error})"
        ) from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ParetoscopeError(
                f"{name}: {briefly(module_name)} has no attribute {briefly(attribute)}"
            )
        target = getattr(target, part)
    if not callable(target):
        raise ParetoscopeError(f"{name}: {briefly(attribute)} is not callable")
    factory: Callable[[str], Any] = target
    return factory


def load_plugin(name: str, env_id: str) -> PluginAgent:
    """The plug-in `name` built for `env_id`, wrapped into the Agent protocol."""
    return build_plugin(name, resolve_factory(name), env_id)


def build_plugin(name: str, factory: Callable[[str], Any], env_id: str) -> PluginAgent:
    spec = get_spec(env_id)
    policy = user_call(name, f"calling it with {briefly(spec.id)}", factory, spec.id)
    if not callable(getattr(policy, "act", None)):
        raise ParetoscopeError(
            f"{name}: returned a {type(policy).__name__} without act(observations, "
            "preferences, targets)"
        )
    return PluginAgent(name, policy, spec.id, _source_digest(factory))


class PluginAgent:
    """A user's policy object, checked at every step like any agent's output."""

    def __init__(self, name: str, policy: Any, env_id: str, source_digest: str = "") -> None:
        env = get_spec(env_id)
        self.name = name
        self.policy = policy
        self.env = env
        self.spec = _spec(name, getattr(policy, "spec", None), env)
        self.preference_blind = bool(getattr(policy, "preference_blind", False))
        self._source_digest = source_digest
        self._batch_size = 0

    def reset(self, batch_size: int) -> None:
        self._batch_size = int(batch_size)
        if callable(getattr(self.policy, "reset", None)):
            self._call("reset", batch_size)

    def seed_rows(self, seeds: np.ndarray) -> None:
        if callable(getattr(self.policy, "seed_rows", None)):
            self._call("seed_rows", seeds)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        actions = np.asarray(self._call("act", observations, preferences, targets))
        rows = len(observations)
        if self.env.discrete and actions.shape == (rows, 1):
            actions = actions[:, 0]
        expected = (rows, *self.env.action_shape)
        if actions.shape != expected:
            raise ParetoscopeError(
                f"{self.name}: act returned shape {actions.shape}, expected {expected} for "
                f"{self.env.id} ({self.env.describe_actions()})"
            )
        return actions

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        prefs = np.asarray(preferences, dtype=np.float64)
        if not callable(getattr(self.policy, "initial_target", None)):
            return np.zeros((len(prefs), self.spec.n_obj))
        target = np.asarray(self._call("initial_target", prefs), dtype=np.float64)
        if target.shape != (len(prefs), self.spec.n_obj):
            raise ParetoscopeError(
                f"{self.name}: initial_target returned shape {target.shape}, expected "
                f"{(len(prefs), self.spec.n_obj)}"
            )
        return target

    def fingerprint(self) -> str:
        """The plug-in's name, env and source (and its own fingerprint when it has one): a
        stored sweep is served again only while the code that made it is unchanged."""
        own = (
            self._call("fingerprint") if callable(getattr(self.policy, "fingerprint", None)) else ""
        )
        digest = hashlib.sha256(f"{self.name}|{self.env.id}|{self._source_digest}|{own}".encode())
        return f"plugin:{digest.hexdigest()[:24]}"

    def _call(self, method: str, *args: Any) -> Any:
        return user_call(self.name, method, getattr(self.policy, method), *args)

    def __repr__(self) -> str:
        return f"PluginAgent({self.name!r}, env_id={self.env.id!r})"


def user_call(name: str, what: str, function: Callable[..., Any], *args: Any) -> Any:
    """`function(*args)` from the user's code; whatever it raises becomes one message."""
    try:
        return function(*args)
    except ParetoscopeError:
        raise
    except Exception as error:  # noqa: BLE001 - the user's code may raise anything
        raise ParetoscopeError(f"{name}: {what} raised {type(error).__name__}: {error}") from None


def _spec(name: str, declared: object, env: Any) -> AgentSpec:
    conditioning = _DEFAULT_CONDITIONING
    if isinstance(declared, AgentSpec):
        if (declared.n_obj, declared.obs_dim) != (env.n_obj, env.obs_dim):
            raise ParetoscopeError(
                f"{name}: its spec is for {declared.n_obj} objectives and {declared.obs_dim} "
                f"observations, {env.id} has {env.n_obj} and {env.obs_dim}"
            )
        conditioning = declared.conditioning
    elif isinstance(declared, Mapping):
        known = {field.name for field in fields(Conditioning)}
        unknown = sorted(set(declared) - known)
        if unknown:
            raise ParetoscopeError(f"{name}: spec has unknown field(s) {unknown}; known: {known}")
        conditioning = Conditioning(**{**vars(_DEFAULT_CONDITIONING), **dict(declared)})
    elif declared is not None:
        raise ParetoscopeError(f"{name}: spec must be an AgentSpec or a dict of conditioning flags")
    return AgentSpec.for_env(env, "plugin", conditioning)


def _source_digest(factory: Callable[..., Any]) -> str:
    try:
        source = inspect.getsourcefile(factory)
    except TypeError:
        return ""
    if source is None or not Path(source).is_file():
        return ""
    return hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
