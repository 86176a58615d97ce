"""The Agent protocol: the one interface every rollout, sweep and dashboard view drives.

Contract (every kind keeps it):
- ``reset(batch_size)`` starts B independent episodes (one per batch row).
- ``act(observations, preferences, targets) -> actions`` is called once per env step for the
  whole batch:
    observations  (B, obs_dim)  raw env observations (no normalisation: that is the agent's job);
    preferences   (B, n_obj)    non-negative, each row sums to 1;
    targets       (B, n_obj)    the return still to collect per objective, in the env's own
                                reward units (at the first step: the initial target);
  and returns actions (B, act_dim) ready for ``env.step`` (already scaled to the action bounds).
  Row i's actions depend only on row i's inputs. Stateful agents (decision transformers) keep
  their context per row and infer each step's reward from how the row's target shrank.
- ``initial_target(preferences)`` gives the return a return-conditioned agent should be asked
  for at a preference (the linear model its training data implies); agents that ignore targets
  return zeros.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

AgentKind = Literal["morvs", "bc", "modt", "policy_set"]


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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@runtime_checkable
class Agent(Protocol):
    """A preference-conditioned policy acting on a batch of episodes at once."""

    spec: AgentSpec

    def reset(self, batch_size: int) -> None: ...

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray: ...

    def initial_target(self, preferences: np.ndarray) -> np.ndarray: ...
