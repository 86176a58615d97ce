"""The torch agents: MORvS, BC and MODT, each a network wrapped in the Agent protocol.

Every kind keeps the contract of `paretoscope.agents.base` (raw observations in, env-ready actions
out, batch rows independent, one forward pass per step for the whole batch) and does the same
bookkeeping PEDA's evaluators do, so an imported PEDA checkpoint acts exactly as in PEDA:

- state = clip((concat(obs, preference) - mean) / std, -10, 10), the preference part with mean 0
  and std 1 (it is appended only when `conditioning.preference_in_state`);
- the return the network reads is ``p ⊙ target / rtg_scale`` (``target / rtg_scale`` when
  `preference_weighted_return` is off), summed to one number when the return is not a vector.
  `targets` arrive unweighted, in env units: the agent applies PEDA's weighting itself;
- actions: tanh output in [-1, 1] times the action bound.

Per kind:
- MORvS: input concat(state, goal), goal = encoded remaining target / (horizon - steps taken);
- BC: the last `context_length` states, oldest first, zero-padded on the left; no return;
- MODT: per row, the last `context_length` (return, state, action, timestep) steps, left-padded
  with zeros and masked. The rollout loop lowers each row's target by the reward it got, so the
  target shrinks by exactly the reward PEDA subtracts: encoding the current target gives PEDA's
  running return-to-go ``rtg_t = rtg_{t-1} - p ⊙ r / 1000`` without any reward bookkeeping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from paretoscope.agents import invariant
from paretoscope.agents.architecture import (
    Architecture,
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
    architecture_to_dict,
    build_network,
    input_sizes,
)
from paretoscope.agents.base import AgentKind, AgentSpec, Conditioning
from paretoscope.agents.device import resolve_device
from paretoscope.agents.networks import DecisionTransformer
from paretoscope.agents.target_model import LinearTargetModel
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# PEDA divides returns and rewards by this before they reach a network.
DEFAULT_RTG_SCALE = 1000.0
# PEDA clips normalised states to this range.
DEFAULT_STATE_CLIP = 10.0

# PEDA's flags for its published runs: the preference goes into the state for every kind, and
# also into the return and action tokens of the decision transformer; returns are vectors.
DEFAULT_CONDITIONING: dict[str, Conditioning] = {
    "modt": Conditioning(
        preference_in_state=True,
        preference_in_return=True,
        preference_in_action=True,
        return_conditioned=True,
        vector_return=True,
    ),
    "morvs": Conditioning(preference_in_state=True, return_conditioned=True, vector_return=True),
    "bc": Conditioning(preference_in_state=True, return_conditioned=False, vector_return=True),
}


@dataclass(frozen=True)
class ObservationNormalizer:
    """Per-dimension observation mean and std (raw observation part only) and the clip bound."""

    mean: tuple[float, ...]
    std: tuple[float, ...]
    clip: float = DEFAULT_STATE_CLIP

    def __post_init__(self) -> None:
        mean = np.asarray(self.mean, dtype=np.float64)
        std = np.asarray(self.std, dtype=np.float64)
        if mean.ndim != 1 or mean.shape != std.shape:
            raise ParetoscopeError(
                "observation_normalization: mean and std must be lists of the same length, "
                f"got {mean.shape} and {std.shape}"
            )
        if not (np.isfinite(mean).all() and np.isfinite(std).all()) or (std <= 0).any():
            raise ParetoscopeError(
                "observation_normalization: mean must be finite and std finite and positive"
            )
        if not self.clip > 0:
            raise ParetoscopeError(f"observation_normalization.clip: expected > 0, got {self.clip}")

    @classmethod
    def identity(cls, obs_dim: int) -> ObservationNormalizer:
        return cls(mean=(0.0,) * obs_dim, std=(1.0,) * obs_dim)

    @classmethod
    def from_observations(
        cls, observations: np.ndarray, min_std: float = 1e-6
    ) -> ObservationNormalizer:
        """Mean and std of observations (N, obs_dim); stds below `min_std` are raised to it."""
        data = np.asarray(observations, dtype=np.float64)
        if data.ndim != 2 or data.shape[0] < 1:
            raise ParetoscopeError(f"observations: expected (N, obs_dim), got {data.shape}")
        std = np.maximum(data.std(axis=0), min_std)
        return cls(mean=tuple(map(float, data.mean(axis=0))), std=tuple(map(float, std)))

    def to_dict(self) -> dict[str, Any]:
        return {"mean": list(self.mean), "std": list(self.std), "clip": self.clip}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], obs_dim: int) -> ObservationNormalizer:
        try:
            mean = tuple(float(value) for value in data["mean"])
            std = tuple(float(value) for value in data["std"])
            clip = float(data.get("clip", DEFAULT_STATE_CLIP))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ParetoscopeError(
                f"observation_normalization: expected mean and std lists ({error!r})"
            ) from None
        if len(mean) != obs_dim:
            raise ParetoscopeError(
                f"observation_normalization.mean: {len(mean)} values, the env has obs_dim={obs_dim}"
            )
        return cls(mean=mean, std=std, clip=clip)


class ConditionedAgent:
    """A torch network behind the Agent protocol; subclasses add the per-kind input assembly.

    Construct one with `create_agent` (fresh network), `paretoscope.agents.peda.import_peda` or
    `paretoscope.agents.load`. `network` is a plain `nn.Module` a trainer may train in place; the
    agent
    switches it to eval mode whenever it acts.
    """

    kind: ClassVar[AgentKind]
    architecture_type: ClassVar[type]

    def __init__(
        self,
        spec: AgentSpec,
        architecture: Architecture,
        network: nn.Module,
        normalizer: ObservationNormalizer,
        action_bound: Sequence[float],
        target_model: LinearTargetModel | None,
        rtg_scale: float = DEFAULT_RTG_SCALE,
        preference_weighted_return: bool = True,
        training: Mapping[str, Any] | None = None,
        device: str | torch.device = "cpu",
    ) -> None:
        if spec.kind != self.kind:
            raise ParetoscopeError(
                f"spec.kind: {briefly(spec.kind)}, expected {briefly(self.kind)}"
            )
        if not isinstance(architecture, self.architecture_type):
            raise ParetoscopeError(
                f"architecture: a {type(architecture).__name__} cannot describe a {self.kind} agent"
            )
        self._check_conditioning(spec.conditioning)
        if len(normalizer.mean) != spec.obs_dim:
            raise ParetoscopeError(
                f"observation_normalization: {len(normalizer.mean)} values, "
                f"obs_dim is {spec.obs_dim}"
            )
        bound = _numbers_or_none(action_bound)
        if (
            bound is None
            or bound.shape != (spec.act_dim,)
            or not np.isfinite(bound).all()
            or (bound <= 0).any()
        ):
            raise ParetoscopeError(
                f"action_bound: expected {spec.act_dim} positive numbers, "
                f"got {briefly(action_bound)}"
            )
        if spec.conditioning.return_conditioned and target_model is None:
            raise ParetoscopeError(
                f"target_model: a return-conditioned {self.kind} agent needs one "
                "(fit it from the training data, or use PEDA's published model)"
            )
        if target_model is not None and target_model.n_obj != spec.n_obj:
            raise ParetoscopeError(
                f"target_model: made for {target_model.n_obj} objectives, "
                f"the agent has {spec.n_obj}"
            )
        if not rtg_scale > 0:
            raise ParetoscopeError(f"rtg_scale: expected a positive number, got {rtg_scale}")
        self.spec = spec
        self.architecture = architecture
        self.normalizer = normalizer
        self.action_bound = bound
        self.target_model = target_model
        self.rtg_scale = float(rtg_scale)
        self.preference_weighted_return = bool(preference_weighted_return)
        self.training = dict(training or {})
        self.device = resolve_device(device)
        self.network = network.to(self.device).eval()
        self._mean = torch.tensor(normalizer.mean, dtype=torch.float32, device=self.device)
        self._std = torch.tensor(normalizer.std, dtype=torch.float32, device=self.device)
        self._batch_size: int | None = None
        self._steps = 0

    # --- the Agent protocol ------------------------------------------------------------------

    def reset(self, batch_size: int) -> None:
        """Start `batch_size` new episodes: forget all history, step counter back to 0."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise ParetoscopeError(
                f"batch_size: expected a positive integer, got {briefly(batch_size)}"
            )
        if batch_size < 1:
            raise ParetoscopeError(f"batch_size: expected a positive integer, got {batch_size}")
        self._batch_size = int(batch_size)
        self._steps = 0
        self._reset_history()

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        """Actions (B, act_dim) for one env step of every row, scaled to the action bounds."""
        obs, prefs, goals = self._check_inputs(observations, preferences, targets)
        if self.network.training:  # eval() walks every module: 50 us a step when called always
            self.network.eval()
        with torch.inference_mode():
            raw = self._predict(obs, prefs, goals)
        self._steps += 1
        return raw.detach().cpu().numpy().astype(np.float64) * self.action_bound

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        """Expected return per objective at each preference (zeros for agents that ignore it)."""
        prefs = np.asarray(preferences, dtype=np.float64)
        if self.target_model is None:
            if prefs.ndim not in (1, 2) or prefs.shape[-1] != self.spec.n_obj:
                raise ParetoscopeError(
                    f"preferences: expected shape (B, {self.spec.n_obj}), got {prefs.shape}"
                )
            return np.zeros_like(prefs)
        return self.target_model(prefs)

    # --- what subclasses provide ---------------------------------------------------------------

    def _check_conditioning(self, conditioning: Conditioning) -> None:
        """Refuse flags the kind cannot honour."""

    def _reset_history(self) -> None:
        """Clear per-row state (called by `reset`)."""

    def _predict(
        self, states: torch.Tensor, preferences: torch.Tensor, returns: torch.Tensor
    ) -> torch.Tensor:
        """Raw network actions in [-1, 1] for normalised states and encoded returns."""
        raise NotImplementedError

    # --- shared helpers ------------------------------------------------------------------------

    @property
    def parameter_count(self) -> int:
        return sum(parameter.numel() for parameter in self.network.parameters())

    def encode_returns(self, targets: np.ndarray, preferences: np.ndarray) -> np.ndarray:
        """The return the network reads: p ⊙ target / rtg_scale (summed if not a vector)."""
        values = np.asarray(targets, dtype=np.float64)
        if self.preference_weighted_return:
            values = values * np.asarray(preferences, dtype=np.float64)
        values = values / self.rtg_scale
        if not self.spec.conditioning.vector_return:
            values = values.sum(axis=-1, keepdims=True)
        return values

    def normalize_states(
        self, observations: torch.Tensor, preferences: torch.Tensor
    ) -> torch.Tensor:
        """PEDA's state: clip((obs - mean) / std, ±clip), the preference appended if configured."""
        states = (observations - self._mean) / self._std
        if self.spec.conditioning.preference_in_state:
            states = torch.cat((states, preferences), dim=-1)
        clip = self.normalizer.clip
        return states.clamp(-clip, clip)

    def _check_inputs(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if self._batch_size is None:
            raise ParetoscopeError("act() before reset(batch_size): call reset first")
        batch = self._batch_size
        spec = self.spec
        arrays = []
        for name, value, width in (
            ("observations", observations, spec.obs_dim),
            ("preferences", preferences, spec.n_obj),
            ("targets", targets, spec.n_obj),
        ):
            array = np.asarray(value, dtype=np.float64)
            if array.shape != (batch, width):
                raise ParetoscopeError(
                    f"{name}: expected shape ({batch}, {width}) after reset({batch}), "
                    f"got {array.shape}"
                )
            arrays.append(array)
        obs, prefs, goals = arrays
        goals = self.encode_returns(goals, prefs)
        return (
            self._tensor(obs),
            self._tensor(prefs),
            self._tensor(goals),
        )

    def _tensor(self, array: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(array, dtype=torch.float32, device=self.device)

    def to(self, device: str | torch.device) -> ConditionedAgent:
        """Move the network (and any history) to `device`; returns self."""
        self.device = resolve_device(device)
        self.network.to(self.device)
        self._mean = self._mean.to(self.device)
        self._std = self._std.to(self.device)
        if self._batch_size is not None:
            self.reset(self._batch_size)
        return self

    def checkpoint_state(self) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        """The kind-specific part of the checkpoint config, and the tensors to store."""
        config = {
            "architecture": architecture_to_dict(self.architecture),
            "observation_normalization": self.normalizer.to_dict(),
            "rtg_scale": self.rtg_scale,
            "preference_weighted_return": self.preference_weighted_return,
            "action_bound": [float(value) for value in self.action_bound],
            "target_model": None if self.target_model is None else self.target_model.to_dict(),
            "training": self.training,
        }
        tensors = {
            name: tensor.detach().to("cpu", torch.float32).contiguous()
            for name, tensor in self.network.state_dict().items()
        }
        return config, tensors

    def fingerprint(self) -> str:
        """A digest of everything that decides the actions (config and weights, not history)."""
        config, tensors = self.checkpoint_state()
        return invariant.fingerprint(config, self.spec.to_dict(), tensors)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(env_id={self.spec.env_id!r}, "
            f"parameters={self.parameter_count}, device={str(self.device)!r})"
        )


class MORvSAgent(ConditionedAgent):
    """MORvS: MLP(state, goal) with goal = encoded remaining target / steps left."""

    kind = "morvs"
    architecture_type = MORvSArchitecture
    architecture: MORvSArchitecture

    def _check_conditioning(self, conditioning: Conditioning) -> None:
        if conditioning.preference_in_return or conditioning.preference_in_action:
            raise ParetoscopeError(
                "conditioning: MORvS reads the preference through the state only "
                "(preference_in_return and preference_in_action must be false)"
            )
        if not conditioning.return_conditioned:
            raise ParetoscopeError("conditioning.return_conditioned: MORvS always reads a return")

    def _predict(
        self, states: torch.Tensor, preferences: torch.Tensor, returns: torch.Tensor
    ) -> torch.Tensor:
        steps_left = max(self.architecture.horizon - self._steps, 1)
        goal = returns / steps_left
        inputs = torch.cat((self.normalize_states(states, preferences), goal), dim=-1)
        return self.network(inputs)


class BCAgent(ConditionedAgent):
    """BC: MLP over the last `context_length` normalised states (with the preference)."""

    kind = "bc"
    architecture_type = BCArchitecture
    architecture: BCArchitecture

    def _check_conditioning(self, conditioning: Conditioning) -> None:
        if conditioning.return_conditioned:
            raise ParetoscopeError("conditioning.return_conditioned: BC does not read a return")
        if conditioning.preference_in_return or conditioning.preference_in_action:
            raise ParetoscopeError(
                "conditioning: BC reads the preference through the state only "
                "(preference_in_return and preference_in_action must be false)"
            )

    def _reset_history(self) -> None:
        assert self._batch_size is not None
        width = input_sizes(self.spec)["state"]
        self._window = torch.zeros(
            self._batch_size, self.architecture.context_length, width, device=self.device
        )

    def _predict(
        self, states: torch.Tensor, preferences: torch.Tensor, returns: torch.Tensor
    ) -> torch.Tensor:
        state = self.normalize_states(states, preferences)
        self._window = torch.cat((self._window[:, 1:], state[:, None]), dim=1)
        return self.network(self._window.reshape(self._window.shape[0], -1))


class MODTAgent(ConditionedAgent):
    """MODT: a decision transformer over each row's last few (return, state, action) steps."""

    kind = "modt"
    architecture_type = TransformerArchitecture
    architecture: TransformerArchitecture
    network: DecisionTransformer

    def _check_conditioning(self, conditioning: Conditioning) -> None:
        if not conditioning.return_conditioned:
            raise ParetoscopeError("conditioning.return_conditioned: MODT always reads a return")

    def _reset_history(self) -> None:
        assert self._batch_size is not None
        sizes = input_sizes(self.spec)
        batch, device = self._batch_size, self.device
        self._states = torch.zeros(batch, 0, sizes["state"], device=device)
        self._actions = torch.zeros(batch, 0, self.spec.act_dim, device=device)
        self._returns = torch.zeros(batch, 0, sizes["return_value"], device=device)
        self._preferences = torch.zeros(batch, 0, self.spec.n_obj, device=device)
        self._timesteps = torch.zeros(batch, 0, dtype=torch.long, device=device)

    def _predict(
        self, states: torch.Tensor, preferences: torch.Tensor, returns: torch.Tensor
    ) -> torch.Tensor:
        length = self.architecture.context_length
        batch = states.shape[0]
        timestep = min(self._steps, self.network.max_timestep - 1)

        def push(history: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
            return torch.cat((history, new[:, None]), dim=1)[:, -length:]

        self._states = push(self._states, self.normalize_states(states, preferences))
        self._returns = push(self._returns, returns)
        self._preferences = push(self._preferences, preferences)
        # The current step's action slot is zeros until the network has filled it.
        self._actions = push(self._actions, states.new_zeros(batch, self.spec.act_dim))
        self._timesteps = push(
            self._timesteps, torch.full((batch,), timestep, dtype=torch.long, device=self.device)
        )
        window = assemble_context(
            self._states,
            self._actions,
            self._returns,
            self._preferences,
            self._timesteps,
            self.spec.conditioning,
            self.architecture.context_length,
        )
        action = self.network(*window)[:, -1]
        self._actions[:, -1] = action
        return action


def assemble_context(
    states: torch.Tensor,
    actions: torch.Tensor,
    returns: torch.Tensor,
    preferences: torch.Tensor,
    timesteps: torch.Tensor,
    conditioning: Conditioning,
    context_length: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """MODT's network inputs from (B, T, .) histories, as PEDA's `get_action` builds them.

    Keeps the last `context_length` steps, appends the preference to the returns and actions
    where the conditioning says so, then left-pads every input with zeros (timestep 0, mask 0).
    Returns (states, actions, returns, timesteps, attention_mask) for `DecisionTransformer`.
    """
    states, actions, returns = (
        states[:, -context_length:],
        actions[:, -context_length:],
        returns[:, -context_length:],
    )
    preferences, timesteps = preferences[:, -context_length:], timesteps[:, -context_length:]
    if conditioning.preference_in_return:
        returns = torch.cat((returns, preferences), dim=-1)
    if conditioning.preference_in_action:
        actions = torch.cat((actions, preferences), dim=-1)
    batch, length = states.shape[0], states.shape[1]
    pad = context_length - length

    def left_pad(tensor: torch.Tensor) -> torch.Tensor:
        zeros = tensor.new_zeros((batch, pad, *tensor.shape[2:]))
        return torch.cat((zeros, tensor), dim=1)

    mask = torch.cat((states.new_zeros(batch, pad), states.new_ones(batch, length)), dim=1)
    return left_pad(states), left_pad(actions), left_pad(returns), left_pad(timesteps), mask


AGENT_CLASSES: dict[str, type[ConditionedAgent]] = {
    "morvs": MORvSAgent,
    "bc": BCAgent,
    "modt": MODTAgent,
}


def create_agent(
    kind: str,
    env_id: str,
    *,
    architecture: Architecture | None = None,
    conditioning: Conditioning | None = None,
    normalizer: ObservationNormalizer | None = None,
    target_model: LinearTargetModel | None = None,
    action_bound: Sequence[float] | None = None,
    rtg_scale: float = DEFAULT_RTG_SCALE,
    preference_weighted_return: bool = True,
    training: Mapping[str, Any] | None = None,
    device: str | torch.device = "cpu",
    seed: int | None = None,
) -> ConditionedAgent:
    """A fresh (untrained) agent of `kind` for `env_id`, with PEDA's defaults where not given.

    The default architecture uses the env's horizon for MODT's timestep table and MORvS's goal;
    the default action bound is the env's. `seed` makes the initial weights reproducible.
    """
    cls = AGENT_CLASSES.get(kind)
    if cls is None:
        raise ParetoscopeError(f"kind: {briefly(kind)}, expected one of {sorted(AGENT_CLASSES)}")
    env = get_spec(env_id)
    if architecture is None:
        if kind == "modt":
            architecture = TransformerArchitecture(max_timestep=env.horizon)
        elif kind == "morvs":
            architecture = MORvSArchitecture(horizon=env.horizon)
        else:
            architecture = BCArchitecture()
    spec = AgentSpec(
        env_id=env.id,
        n_obj=env.n_obj,
        obs_dim=env.obs_dim,
        act_dim=env.act_dim,
        kind=cls.kind,
        conditioning=conditioning or DEFAULT_CONDITIONING[kind],
    )
    if seed is not None:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            network = build_network(spec, architecture)
    else:
        network = build_network(spec, architecture)
    return cls(
        spec=spec,
        architecture=architecture,
        network=network,
        normalizer=normalizer or ObservationNormalizer.identity(env.obs_dim),
        action_bound=action_bound if action_bound is not None else env.action_high,
        target_model=target_model,
        rtg_scale=rtg_scale,
        preference_weighted_return=preference_weighted_return,
        training=training,
        device=device,
    )


def _numbers_or_none(values: object) -> np.ndarray | None:
    """`values` as float64 numbers, or None where they are not numbers (text, objects)."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None
