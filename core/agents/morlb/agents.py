"""Agents imported from MORL-Baselines: its networks, acting exactly as its ``eval(obs, w)``.

Every kind is a set of named `nn.Sequential` parts (`SequentialLayout`, stored as data) plus a
few buffers, and a rule that turns their outputs into actions:

- ``morlb_actor`` (CAPQL, GPI-PD continuous): tanh(mean(latent_pi([obs, w]))) * scale + bias.
- ``morlb_envelope`` (Envelope): argmax_a w · Q(obs, w)[a], Q = net([obs, w]) as [A, R].
- ``morlb_gpi`` (GPI-LS, GPI-PD discrete): argmax_a max_{m in support} w · Q(obs, m)[a], with
  Q(obs, m) = net(state_features(obs) * weights_features(m)) of the first psi network; without
  GPI, argmax_a w · min_i Q_i(obs, w)[a] over all psi networks.
- ``morlb_pcn`` (PCN): the command (desired return, desired horizon) scaled by the saved
  factor; the desired return is the agent's target (it shrinks by each reward, as in PCN's own
  loop), the horizon starts at the imported value and drops by one a step, never below 1.
- ``morlb_actor_set`` (MORL/D, PGMORL): several obs-only actors (MOSAC's, MO-PPO's), each with
  the weight it was trained for and, for archive members, its archived evaluation. A row's
  preference is served by the member whose weight is nearest; where members share that
  weight, by the one whose archived evaluation scalarises best under it. Actions are the
  deterministic mean; MORL/D imported with ``sample=true`` samples as MOSAC's own eval does,
  with each row's noise drawn from a generator seeded by its episode's seed.

Observations and weights are cast to float32, as MORL-Baselines' ``eval`` does. The checkpoint is
paretoscope's own (config.json + weights.safetensors, `paretoscope.agents.checkpoint`): kind, env,
the
layouts, the buffers' shapes, the behaviour above and where the file came from.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from paretoscope.agents import invariant, portable_math
from paretoscope.agents.architecture import check_parameter_count, planned_parameters
from paretoscope.agents.base import AgentKind, AgentSpec, Conditioning
from paretoscope.agents.morlb.layers import SequentialLayout, check_tensors
from paretoscope.agents.networks import tanh
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

_WEIGHT_CONDITIONED = Conditioning(preference_in_state=True, return_conditioned=False)
_SELECTED_BY_PREFERENCE = Conditioning(preference_in_state=False, return_conditioned=False)
_COMMAND_CONDITIONED = Conditioning(preference_in_state=False, return_conditioned=True)


class Parts(nn.Module):
    """Named `nn.Sequential` parts and buffers: one network (or one member of a set)."""

    def __init__(
        self, layouts: Mapping[str, SequentialLayout], buffers: Mapping[str, tuple[int, ...]]
    ) -> None:
        super().__init__()
        self.layouts = dict(layouts)
        self.buffer_shapes = {name: tuple(shape) for name, shape in buffers.items()}
        for name, layout in self.layouts.items():
            self.add_module(name, layout.build())
        for name, shape in self.buffer_shapes.items():
            self.register_buffer(name, torch.zeros(shape))

    def part(self, name: str) -> nn.Module:
        module: nn.Module = getattr(self, name)
        return module

    def tensor(self, name: str) -> torch.Tensor:
        value: torch.Tensor = getattr(self, name)
        return value

    def to_data(self) -> dict[str, Any]:
        return {
            "parts": {name: layout.to_data() for name, layout in self.layouts.items()},
            "buffers": {name: list(shape) for name, shape in self.buffer_shapes.items()},
        }

    @classmethod
    def from_data(cls, data: object, where: str) -> Parts:
        if not isinstance(data, Mapping) or not isinstance(data.get("parts"), Mapping):
            raise ParetoscopeError(f"{where}: expected {{'parts': ..., 'buffers': ...}}")
        layouts = {
            str(name): SequentialLayout.from_data(layout, f"{where}.parts.{name}")
            for name, layout in data["parts"].items()
        }
        buffers = data.get("buffers") or {}
        if not isinstance(buffers, Mapping) or not all(
            isinstance(shape, list) and all(isinstance(n, int) and n > 0 for n in shape)
            for shape in buffers.values()
        ):
            raise ParetoscopeError(f"{where}.buffers: expected name -> list of positive sizes")
        return cls(layouts, {str(name): tuple(shape) for name, shape in buffers.items()})


class MorlbAgent:
    """The part every MORL-Baselines kind shares: spec, networks, checkpoint, input checks."""

    kind: ClassVar[AgentKind]
    conditioning: ClassVar[Conditioning]

    def __init__(
        self,
        env_id: str,
        members: list[Parts],
        behaviour: Mapping[str, Any],
        training: Mapping[str, Any] | None = None,
    ) -> None:
        env = get_spec(env_id)
        self.env = env
        self.spec = AgentSpec.for_env(env, self.kind, self.conditioning)
        if env.obs_shape is not None and len(env.obs_shape) > 1:
            raise ParetoscopeError(
                f"{env.id}: image observations {env.obs_shape}; MORL-Baselines' image networks "
                "(NatureCNN) are not imported yet"
            )
        # Evaluation mode: dropout off, as MORL-Baselines' eval() switches it off.
        self.members: list[Parts] = [member.eval() for member in members]
        # Where PPO-style means are clipped (`_actor_mean`): read once, not at every step.
        self.action_bounds = (
            torch.as_tensor(np.asarray(env.action_low), dtype=torch.float32),
            torch.as_tensor(np.asarray(env.action_high), dtype=torch.float32),
        )
        self.behaviour = dict(behaviour)
        self.training = dict(training or {})
        self._batch_size: int | None = None
        self.check()

    # --- what each kind provides ------------------------------------------------------------

    def check(self) -> None:
        """Refuse parts or behaviour that do not fit the env (raises ParetoscopeError)."""

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # --- the Agent protocol -----------------------------------------------------------------

    def reset(self, batch_size: int) -> None:
        if int(batch_size) < 0:
            raise ParetoscopeError(f"batch_size must be non-negative, got {batch_size}")
        self._batch_size = int(batch_size)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        obs = self._rows("observations", observations, self.spec.obs_dim)
        weights = self._rows("preferences", preferences, self.spec.n_obj)
        goals = self._rows("targets", targets, self.spec.n_obj)
        with torch.no_grad():
            return self._act(
                torch.as_tensor(obs, dtype=torch.float32),
                torch.as_tensor(weights, dtype=torch.float32),
                goals,
            )

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        prefs = np.asarray(preferences, dtype=np.float64)
        return np.zeros((len(prefs), self.spec.n_obj))

    def _rows(self, name: str, value: np.ndarray, width: int) -> np.ndarray:
        array = np.asarray(value, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != width:
            raise ParetoscopeError(f"{name}: expected shape (B, {width}), got {array.shape}")
        if self._batch_size is not None and array.shape[0] != self._batch_size:
            raise ParetoscopeError(f"{name}: {array.shape[0]} rows after reset({self._batch_size})")
        return array

    def _actions(self, values: torch.Tensor) -> np.ndarray:
        """Continuous actions as the env takes them: float64 of the float32 result."""
        return values.to(torch.float32).numpy().astype(np.float64)

    # --- checkpoint -------------------------------------------------------------------------

    def checkpoint_config(self) -> dict[str, Any]:
        return {
            "members": [member.to_data() for member in self.members],
            "behaviour": self.behaviour,
            "training": self.training,
        }

    def checkpoint_tensors(self) -> dict[str, torch.Tensor]:
        return {
            f"members.{index}.{name}": tensor.detach().to(torch.float32).contiguous()
            for index, member in enumerate(self.members)
            for name, tensor in member.state_dict().items()
        }

    def fingerprint(self) -> str:
        """A digest of what decides the actions: kind, env, parts, behaviour, weights."""
        config = self.checkpoint_config()
        return invariant.fingerprint(config, self.spec.to_dict(), self.checkpoint_tensors())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(env_id={self.spec.env_id!r}, members={len(self.members)})"


def _scalarised(weights: torch.Tensor, q_values: torch.Tensor) -> torch.Tensor:
    """w · Q per action: (B, R) weights and (B, A, R) values -> (B, A), in float32, summed
    objective by objective in one order (a BLAS product's order depends on the CPU, and an
    argmax over near-equal values would follow it)."""
    total = weights[:, None, 0] * q_values[..., 0]
    for objective in range(1, q_values.shape[-1]):
        total = total + weights[:, None, objective] * q_values[..., objective]
    return total


class ActorAgent(MorlbAgent):
    """CAPQL, GPI-PD continuous: a deterministic weight-conditioned actor."""

    kind = "morlb_actor"
    conditioning = _WEIGHT_CONDITIONED

    def check(self) -> None:
        _check_actor(self.members[0], self.spec, weight_input=True)

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        return self._actions(
            _actor_mean(self.members[0], torch.cat((obs, weights), dim=-1), self.action_bounds)
        )


class EnvelopeAgent(MorlbAgent):
    """Envelope Q-learning: argmax_a w · Q(obs, w)[a]."""

    kind = "morlb_envelope"
    conditioning = _WEIGHT_CONDITIONED

    def check(self) -> None:
        net = _layout(self.members[0], "net")
        _expect(net.input_width, self.spec.obs_dim + self.spec.n_obj, "net.0.weight inputs")
        _expect(net.output_width, _n_actions(self.spec) * self.spec.n_obj, "net outputs")

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        member = self.members[0]
        q_values = member.part("net")(torch.cat((obs, weights), dim=-1))
        q_values = q_values.view(len(obs), _n_actions(self.spec), self.spec.n_obj)
        return _scalarised(weights, q_values).argmax(dim=1).numpy().astype(np.int64)


class GPIAgent(MorlbAgent):
    """GPI-LS and GPI-PD (discrete): generalised policy improvement over the weight support."""

    kind = "morlb_gpi"
    conditioning = _WEIGHT_CONDITIONED

    def check(self) -> None:
        n_obj, n_actions = self.spec.n_obj, _n_actions(self.spec)
        for index, member in enumerate(self.members):
            where = f"psi net {index}"
            _expect(_layout(member, "state_features").input_width, self.spec.obs_dim, where)
            _expect(_layout(member, "weights_features").input_width, n_obj, where)
            _expect(_layout(member, "net").output_width, n_actions * n_obj, f"{where} outputs")
        support = self.members[0].buffer_shapes.get("support")
        if support is None or len(support) != 2 or support[1] != n_obj:
            raise ParetoscopeError(f"the weight support must be [M, {n_obj}], got {support}")
        if not isinstance(self.behaviour.get("use_gpi"), bool):
            raise ParetoscopeError("behaviour.use_gpi must be true or false")

    def _q(self, member: Parts, obs: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        features = member.part("state_features")(obs) * member.part("weights_features")(weights)
        return member.part("net")(features).view(len(obs), _n_actions(self.spec), self.spec.n_obj)

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        if not self.behaviour["use_gpi"]:
            psi = torch.stack([self._q(member, obs, weights) for member in self.members])
            return _scalarised(weights, psi.min(dim=0).values).argmax(dim=1).numpy()
        support = self.members[0].tensor("support")
        count, rows = support.shape[0], len(obs)
        # Every row against every support weight m: Q(obs, m), scored with the row's own w.
        q_values = self._q(
            self.members[0], obs.repeat_interleave(count, dim=0), support.repeat(rows, 1)
        )
        scores = _scalarised(weights.repeat_interleave(count, dim=0), q_values)
        # argmax over (m, a) in row-major order = MORL-Baselines' max over a, then argmax over m.
        best = scores.view(rows, count * scores.shape[1]).argmax(dim=1)
        return (best % scores.shape[1]).numpy().astype(np.int64)


class PCNAgent(MorlbAgent):
    """PCN: acts for a command (desired return = the target, desired horizon counting down)."""

    kind = "morlb_pcn"
    conditioning = _COMMAND_CONDITIONED

    def check(self) -> None:
        n_obj, member = self.spec.n_obj, self.members[0]
        _expect(_layout(member, "s_emb").input_width, self.spec.obs_dim, "s_emb.0.weight inputs")
        _expect(_layout(member, "c_emb").input_width, n_obj + 1, "c_emb.0.weight inputs")
        outputs = _n_actions(self.spec) if self.spec.n_actions else self.spec.act_dim
        _expect(_layout(member, "fc").output_width, outputs, "fc outputs")
        horizon = self.behaviour.get("horizon")
        if isinstance(horizon, bool) or not isinstance(horizon, (int, float)) or horizon < 1:
            raise ParetoscopeError(
                f"behaviour.horizon must be a number >= 1, got {briefly(horizon)}"
            )
        for name in ("max_return", "command_front"):
            value = self.behaviour.get(name)
            if value is not None:
                array = np.asarray(value, dtype=np.float64)
                if array.shape[-1] != n_obj or not np.isfinite(array).all():
                    raise ParetoscopeError(f"behaviour.{name}: expected {n_obj} finite values")
        self._steps = 0

    def reset(self, batch_size: int) -> None:
        super().reset(batch_size)
        self._steps = 0

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        member = self.members[0]
        desired = targets.astype(np.float32)
        if self.behaviour.get("max_return") is not None:
            desired = np.minimum(desired, np.asarray(self.behaviour["max_return"], np.float32))
        horizon = np.float32(max(float(self.behaviour["horizon"]) - self._steps, 1.0))
        self._steps += 1
        command = torch.cat(
            (torch.as_tensor(desired), torch.full((len(obs), 1), float(horizon))), dim=-1
        )
        embedded = member.part("s_emb")(obs) * member.part("c_emb")(
            command * member.tensor("scaling_factor")
        )
        prediction = member.part("fc")(embedded)
        if self.spec.n_actions:
            return prediction.argmax(dim=1).numpy().astype(np.int64)
        return self._actions(prediction)

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        """The command-front point that scores best under each preference (zeros if none)."""
        prefs = np.asarray(preferences, dtype=np.float64)
        front = self.behaviour.get("command_front")
        if not front:
            return np.zeros((len(prefs), self.spec.n_obj))
        points = np.asarray(front, dtype=np.float64)
        return points[np.argmax(prefs @ points.T, axis=1)]


class ActorSetAgent(MorlbAgent):
    """MORL/D's and PGMORL's archives: one obs-only actor per member; the preference picks."""

    kind = "morlb_actor_set"
    conditioning = _SELECTED_BY_PREFERENCE

    def check(self) -> None:
        info = self.behaviour.get("members")
        if not isinstance(info, list) or len(info) != len(self.members):
            raise ParetoscopeError(
                f"behaviour.members: expected one entry per member ({len(self.members)})"
            )
        n_obj = self.spec.n_obj
        self._weights = np.array([entry.get("weights") for entry in info], dtype=np.float64)
        if self._weights.shape != (len(info), n_obj) or not np.isfinite(self._weights).all():
            raise ParetoscopeError(f"behaviour.members: every member needs {n_obj} finite weights")
        evaluations = [entry.get("evaluation") for entry in info]
        # A member without an archived evaluation loses every tie to one that has it.
        self._scores = np.array(
            [
                -np.inf if value is None else float(np.dot(weight, value))
                for weight, value in zip(self._weights, evaluations, strict=True)
            ]
        )
        for member in self.members:
            _check_actor(member, self.spec, weight_input=False)
        self._generators: list[torch.Generator] = []

    def member_for(self, preferences: np.ndarray) -> np.ndarray:
        """Each row's member: nearest weight, then the best scalarised archived evaluation,
        then the lowest index."""
        prefs = np.asarray(preferences, dtype=np.float64)
        distances = ((prefs[:, None, :] - self._weights[None]) ** 2).sum(axis=2)
        nearest = np.isclose(distances, distances.min(axis=1, keepdims=True), rtol=0, atol=1e-12)
        # Among the nearest, the best score; a member without an evaluation ranks below any that
        # has one but above every member that is not nearest. argmax takes the first on ties.
        unscored = np.finfo(np.float64).min
        scores = np.where(np.isfinite(self._scores), self._scores, unscored)
        return np.argmax(np.where(nearest, scores[None], -np.inf), axis=1)

    def _act(self, obs: torch.Tensor, weights: torch.Tensor, targets: np.ndarray) -> np.ndarray:
        members = self.member_for(weights.numpy().astype(np.float64))
        actions = np.zeros((len(obs), self.spec.act_dim))
        noise = self._noise(len(obs)) if self.behaviour.get("sample") else None
        for index in np.unique(members):
            rows = np.flatnonzero(members == index)
            chosen = obs[torch.as_tensor(rows)]
            member = self.members[int(index)]
            if noise is None:
                action = _actor_mean(member, chosen, self.action_bounds)
            else:
                action = _actor_sample(member, chosen, noise[torch.as_tensor(rows)])
            actions[rows] = self._actions(action)
        return actions

    def reset(self, batch_size: int) -> None:
        super().reset(batch_size)
        self.seed_rows(np.arange(batch_size))

    def seed_rows(self, seeds: np.ndarray) -> None:
        """Sampling members draw each row's noise from a generator seeded with its episode's
        seed, as ``torch.manual_seed(seed)`` before MOSAC's eval would."""
        if self.behaviour.get("sample"):
            self._generators = [torch.Generator().manual_seed(int(seed)) for seed in seeds]

    def _noise(self, rows: int) -> torch.Tensor:
        if len(self._generators) != rows:
            raise ParetoscopeError(f"{rows} rows after seeding {len(self._generators)}")
        width = self.spec.act_dim
        return torch.stack(
            [torch.empty(1, width).normal_(generator=g)[0] for g in self._generators]
        )


def _actor_mean(
    member: Parts, inputs: torch.Tensor, bounds: tuple[torch.Tensor, torch.Tensor]
) -> torch.Tensor:
    """A Gaussian actor's deterministic action: the squashed mean (SAC-style actors:
    ``latent_pi`` and ``mean`` parts, rescaled by their buffers) or PPO's mean (one
    ``actor_mean`` part), clipped to the env's bounds as MO-PPO's ClipAction wrapper does."""
    if "actor_mean" in member.layouts:
        return torch.clamp(member.part("actor_mean")(inputs), *bounds)
    hidden = member.part("latent_pi")(inputs)
    mean = member.part("mean")(hidden)
    return tanh(mean) * member.tensor("action_scale") + member.tensor("action_bias")


# MOSAC squashes its log-std into this range (tanh, then affine).
MOSAC_LOG_STD = (-5.0, 2.0)


def _actor_sample(member: Parts, inputs: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    """MOSAC's sampled action: tanh(mean + std * noise), rescaled (needs the log-std head)."""
    if "log_std" not in member.layouts:
        raise ParetoscopeError("sampling needs the actors' log-std heads (import with sample=true)")
    hidden = member.part("latent_pi")(inputs)
    low, high = MOSAC_LOG_STD
    log_std = low + 0.5 * (high - low) * (tanh(member.part("log_std")(hidden)) + 1)
    raw = member.part("mean")(hidden) + portable_math.exp(log_std).to(log_std.dtype) * noise
    return tanh(raw) * member.tensor("action_scale") + member.tensor("action_bias")


def _check_actor(member: Parts, spec: AgentSpec, weight_input: bool) -> None:
    width = spec.obs_dim + (spec.n_obj if weight_input else 0)
    if "actor_mean" in member.layouts:
        _expect(_layout(member, "actor_mean").input_width, width, "actor_mean.0.weight inputs")
        _expect(_layout(member, "actor_mean").output_width, spec.act_dim, "actor_mean outputs")
        return
    _expect(_layout(member, "latent_pi").input_width, width, "latent_pi.0.weight inputs")
    _expect(_layout(member, "mean").output_width, spec.act_dim, "mean head outputs")
    for name in ("action_scale", "action_bias"):
        _expect(member.buffer_shapes.get(name, (0,))[0], spec.act_dim, name)


def _layout(member: Parts, name: str) -> SequentialLayout:
    layout = member.layouts.get(name)
    if layout is None:
        raise ParetoscopeError(f"the network has no part {name!r}")
    return layout


def _expect(found: int, expected: int, what: str) -> None:
    if found != expected:
        raise ParetoscopeError(f"{what}: {found}, but the env needs {expected}")


def _n_actions(spec: AgentSpec) -> int:
    if not spec.n_actions:
        raise ParetoscopeError(f"{spec.env_id} has continuous actions; this kind needs discrete")
    return int(spec.n_actions)


AGENT_KINDS: dict[str, type[MorlbAgent]] = {
    cls.kind: cls for cls in (ActorAgent, EnvelopeAgent, GPIAgent, PCNAgent, ActorSetAgent)
}


def build_agent(
    kind: str,
    env_id: str,
    members: list[Parts],
    tensors: Mapping[str, torch.Tensor],
    behaviour: Mapping[str, Any],
    training: Mapping[str, Any] | None,
    where: str,
) -> MorlbAgent:
    """An agent of `kind` with `tensors` (named ``members.<i>.<part>...``) checked and loaded."""
    for index, member in enumerate(members):
        member.load_state_dict(check_tensors(member, tensors, where, prefix=f"members.{index}."))
    extra = sorted(key for key in tensors if not key.startswith("members."))
    if extra:
        raise ParetoscopeError(f"{where}: unexpected tensor(s) {extra[:4]}")
    try:
        return AGENT_KINDS[kind](env_id, members, behaviour, training)
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{where}: {error}") from None


# --- paretoscope checkpoints of these kinds (registered in paretoscope.agents.checkpoint)
# ------------


def load_morlb(path: Path, config: dict[str, Any], device: str = "cpu") -> MorlbAgent:
    from paretoscope.agents.checkpoint import read_weights, weights_path

    where = str(path)
    members_data = config.get("members")
    if not isinstance(members_data, list) or not members_data:
        raise ParetoscopeError(f"{where}: config field 'members' must be a non-empty list")
    tensors = read_weights(path, config)
    members = _bounded_members(members_data, where, weights_path(path).stat().st_size)
    behaviour = config.get("behaviour")
    if not isinstance(behaviour, Mapping):
        raise ParetoscopeError(f"{where}: config field 'behaviour' must be an object")
    training = config.get("training") or {}
    return build_agent(
        config["kind"],
        config["env_id"],
        members,
        tensors,
        behaviour,
        training if isinstance(training, Mapping) else {},
        where,
    )


def _bounded_members(members_data: list[Any], where: str, stored_bytes: int) -> list[Parts]:
    """The members' networks, built once their weights in all are known to fit the cap and the
    weights file (each is first counted on the meta device, which allocates nothing)."""
    total = 0
    for index, data in enumerate(members_data):
        what = f"{where}: members[{index}]"
        total += planned_parameters(functools.partial(Parts.from_data, data, what))
        check_parameter_count(
            total, what if index == 0 else f"{where}: members[0..{index}]", stored_bytes
        )
    return [
        Parts.from_data(data, f"{where}: members[{index}]")
        for index, data in enumerate(members_data)
    ]


def save_morlb(agent: MorlbAgent, path: Path) -> Path:
    from paretoscope.agents.checkpoint import write_checkpoint

    return write_checkpoint(agent.spec, agent.checkpoint_config(), agent.checkpoint_tensors(), path)
