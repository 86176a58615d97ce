"""The Agent protocol: the one interface every rollout, sweep and dashboard view drives.

Contract (every kind keeps it):
- ``reset(batch_size)`` starts B independent episodes (one per batch row).
- ``act(observations, preferences, targets) -> actions`` is called once per env step for the
  whole batch:
    observations  (B, *obs_shape) raw env observations (no normalisation: that is the agent's
                                job); (B, obs_dim) for vector observations, images as they are;
    preferences   (B, n_obj)    non-negative, each row sums to 1;
    targets       (B, n_obj)    the return still to collect per objective, in the env's own
                                reward units (at the first step: the initial target);
  and returns actions (B, act_dim) ready for ``env.step`` (already scaled to the action bounds),
  or (B,) integers in [0, n) for a Discrete(n) action space.
  Row i's actions depend only on row i's inputs. Stateful agents (decision transformers) keep
  their context per row and infer each step's reward from how the row's target shrank.
- ``initial_target(preferences)`` gives the return a return-conditioned agent should be asked
  for at a preference (the linear model its training data implies); agents that ignore targets
  return zeros.
- ``seed_rows(seeds)`` (optional): agents that draw random numbers get each row's episode seed
  after ``reset``, so a row's actions depend on its seed alone, not on the batch around it.
- ``preference_blind = True`` (optional): the agent's actions depend on neither the preference
  nor the target, so a sweep plays one episode per seed and reports it at every preference.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from paretoscope.envs import EnvSpec, get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly, quoted

AgentKind = Literal[
    "morvs",
    "bc",
    "modt",
    "policy_set",
    "random",
    # Imported from MORL-Baselines (`paretoscope.agents.morlb.agents`).
    "morlb_actor",
    "morlb_envelope",
    "morlb_gpi",
    "morlb_pcn",
    "morlb_actor_set",
    # A user's own policy (`paretoscope.agents.plugin`).
    "plugin",
]


@dataclass(frozen=True)
class Conditioning:
    """Which inputs carry the preference, and whether the agent reads the target at all."""

    preference_in_state: bool = True
    preference_in_return: bool = False
    preference_in_action: bool = False
    return_conditioned: bool = True
    vector_return: bool = True


@dataclass(frozen=True)
class AgentSpec:
    """What an agent is for: the env it acts in and how it is conditioned."""

    env_id: str
    n_obj: int
    obs_dim: int
    act_dim: int
    kind: AgentKind
    conditioning: Conditioning
    # Discrete agents: the number of actions they choose from (act_dim is then 1).
    n_actions: int | None = None
    # Observations that are not flat vectors (images): their shape; None means (obs_dim,).
    obs_shape: tuple[int, ...] | None = None

    @classmethod
    def for_env(cls, env: EnvSpec, kind: AgentKind, conditioning: Conditioning) -> AgentSpec:
        """The spec of an agent of `kind` that acts in `env` with its whole spaces."""
        return cls(
            env_id=env.id,
            n_obj=env.n_obj,
            obs_dim=env.obs_dim,
            act_dim=env.act_dim,
            kind=kind,
            conditioning=conditioning,
            n_actions=env.n_actions,
            obs_shape=env.obs_shape,
        )

    def to_dict(self) -> dict[str, object]:
        """The fields as plain data; the discrete and image fields only where they are set, so
        the dict (and so the fingerprint of every agent saved before they existed) is unchanged
        for continuous agents on vector observations."""
        record = asdict(self)
        for optional in ("n_actions", "obs_shape"):
            if record[optional] is None:
                del record[optional]
        return record


def check_config_fits_env(config: Mapping[str, Any], where: str) -> EnvSpec:
    """The env a checkpoint config names, after checking its n_obj/obs_dim/act_dim against it.

    Raises `ParetoscopeError` prefixed with `where` (the file) naming the first field that is
    wrong. Torch-free, so asset discovery can call it without loading any weights code.
    """
    env_id = config.get("env_id")
    if not isinstance(env_id, str):
        raise ParetoscopeError(f"{where}: env_id must be a string, got {quoted(repr(env_id))}")
    try:
        env = get_spec(env_id)
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{where}: {error}") from None
    for field, expected in (
        ("n_obj", env.n_obj),
        ("obs_dim", env.obs_dim),
        ("act_dim", env.act_dim),
    ):
        if config.get(field) != expected:
            raise ParetoscopeError(
                f"{where}: {field} is {briefly(config.get(field))}, but {env_id} has "
                f"{field}={expected}"
            )
    return env


@runtime_checkable
class Agent(Protocol):
    """A preference-conditioned policy acting on a batch of episodes at once."""

    spec: AgentSpec

    def reset(self, batch_size: int) -> None: ...

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray: ...

    def initial_target(self, preferences: np.ndarray) -> np.ndarray: ...


def agent_fingerprint(agent: Agent) -> str:
    """What identifies the agent's behaviour: its own `fingerprint`, else a hash of its state."""
    own = getattr(agent, "fingerprint", None)
    if callable(own):
        own = own()
    if isinstance(own, str) and own:
        return own
    # In-memory agents built by this process: hashing their pickled state is deterministic.
    return hashlib.sha256(pickle.dumps(agent)).hexdigest()[:32]
