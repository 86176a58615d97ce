"""What a conditioned agent's network looks like, as plain data: sizes, context, horizon.

One frozen dataclass per kind, with PEDA's published defaults (docs/reference.md#peda-agents),
a strict `from_dict` for checkpoint configs, and `build_network`, which turns (kind, spec,
architecture) into an untrained `nn.Module`. The network's input sizes are never stored: they
follow from the env dims and the conditioning flags (`input_sizes`), so a config cannot
contradict itself.

A config's sizes are checked before a network is built from them (`planned_parameters`,
`check_parameter_count`): counted on torch's meta device, which allocates nothing, and refused
past `MOST_PARAMETERS` or past what the checkpoint's weights file can hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import torch
from torch import nn

from paretoscope.agents.base import AgentSpec
from paretoscope.agents.networks import ACTIVATIONS, DecisionTransformer, MLPActor
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# The most weights (parameters and stored buffers) a network built from a checkpoint config may
# have (docs/agents.md): 1 GiB as float32, some hundred times PEDA's published sizes.
MOST_PARAMETERS = 2**28


@dataclass(frozen=True)
class TransformerArchitecture:
    """MODT: a GPT-2 style decision transformer over (return, state, action) tokens."""

    hidden_size: int = 512
    n_layer: int = 3
    n_head: int = 1
    inner_size: int = 2048
    activation: str = "relu"
    dropout: float = 0.1
    # Size of the timestep embedding table; later steps reuse the last entry.
    max_timestep: int = 500
    # Steps of history the agent feeds at evaluation (PEDA: 5) and the trainer uses (PEDA: 20).
    context_length: int = 5
    train_context_length: int = 20
    # PEDA's unused return / preference prediction heads (kept when importing its checkpoints).
    auxiliary_heads: bool = False

    def __post_init__(self) -> None:
        _check_positive(self, ("hidden_size", "n_layer", "n_head", "inner_size", "max_timestep"))
        _check_positive(self, ("context_length", "train_context_length"))
        if self.hidden_size % self.n_head:
            raise ParetoscopeError(
                f"architecture.n_head: {self.n_head} does not divide hidden_size {self.hidden_size}"
            )
        if self.activation not in ACTIVATIONS:
            raise ParetoscopeError(
                f"architecture.activation: {briefly(self.activation)}, "
                f"expected one of {ACTIVATIONS}"
            )
        _check_dropout(self.dropout)


@dataclass(frozen=True)
class MORvSArchitecture:
    """MORvS: an MLP over (state, average return still to collect per step)."""

    hidden_sizes: tuple[int, ...] = (512, 512, 512)
    dropout: float = 0.1
    # Episode length the goal divides by: goal = remaining target / (horizon - steps taken).
    horizon: int = 500

    def __post_init__(self) -> None:
        _check_hidden_sizes(self.hidden_sizes)
        _check_positive(self, ("horizon",))
        _check_dropout(self.dropout)


@dataclass(frozen=True)
class BCArchitecture:
    """BC: an MLP over the last `context_length` states, flattened oldest first."""

    hidden_sizes: tuple[int, ...] = (512, 512, 512)
    dropout: float = 0.1
    context_length: int = 20

    def __post_init__(self) -> None:
        _check_hidden_sizes(self.hidden_sizes)
        _check_positive(self, ("context_length",))
        _check_dropout(self.dropout)


Architecture = TransformerArchitecture | MORvSArchitecture | BCArchitecture

ARCHITECTURES: dict[str, type[Architecture]] = {
    "modt": TransformerArchitecture,
    "morvs": MORvSArchitecture,
    "bc": BCArchitecture,
}


def architecture_to_dict(architecture: Architecture) -> dict[str, Any]:
    data = asdict(architecture)
    if "hidden_sizes" in data:
        data["hidden_sizes"] = list(data["hidden_sizes"])
    return data


def architecture_from_dict(kind: str, data: Mapping[str, Any]) -> Architecture:
    """The architecture of `kind` from a checkpoint config; unknown or mistyped fields raise."""
    cls = ARCHITECTURES.get(kind)
    if cls is None:
        raise ParetoscopeError(f"kind: {briefly(kind)} has no network architecture")
    if not isinstance(data, Mapping):
        raise ParetoscopeError(f"architecture: expected an object, got {type(data).__name__}")
    known = {field.name: field for field in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ParetoscopeError(
            f"architecture: unknown field(s) {briefly(unknown)} for kind {briefly(kind)}; "
            f"known: {sorted(known)}"
        )
    values: dict[str, Any] = {}
    for name, value in data.items():
        default = getattr(cls(), name)
        values[name] = _coerce(f"architecture.{name}", value, default)
    return cls(**values)


def input_sizes(spec: AgentSpec) -> dict[str, int]:
    """Widths of the network inputs implied by the env dims and the conditioning flags."""
    conditioning = spec.conditioning
    n_obj = spec.n_obj
    return {
        "state": spec.obs_dim + (n_obj if conditioning.preference_in_state else 0),
        "action": spec.act_dim + (n_obj if conditioning.preference_in_action else 0),
        "return": (n_obj if conditioning.vector_return else 1)
        + (n_obj if conditioning.preference_in_return else 0),
        # The return as the agent encodes it, before any preference is appended.
        "return_value": n_obj if conditioning.vector_return else 1,
    }


def build_network(spec: AgentSpec, architecture: Architecture) -> nn.Module:
    """An untrained network for the agent described by `spec` and `architecture`."""
    sizes = input_sizes(spec)
    if isinstance(architecture, TransformerArchitecture):
        return DecisionTransformer(
            state_input=sizes["state"],
            action_input=sizes["action"],
            return_input=sizes["return"],
            act_dim=spec.act_dim,
            n_obj=spec.n_obj,
            hidden_size=architecture.hidden_size,
            n_layer=architecture.n_layer,
            n_head=architecture.n_head,
            inner_size=architecture.inner_size,
            activation=architecture.activation,
            dropout=architecture.dropout,
            max_timestep=architecture.max_timestep,
            auxiliary_heads=architecture.auxiliary_heads,
        )
    if isinstance(architecture, MORvSArchitecture):
        return MLPActor(
            sizes["state"] + sizes["return_value"],
            list(architecture.hidden_sizes),
            spec.act_dim,
            architecture.dropout,
        )
    return MLPActor(
        architecture.context_length * sizes["state"],
        list(architecture.hidden_sizes),
        spec.act_dim,
        architecture.dropout,
    )


def planned_parameters(build: Callable[[], nn.Module]) -> int:
    """How many weights the network `build()` makes would store (its state_dict's elements),
    counted on the meta device: nothing is allocated, whatever the sizes."""
    with torch.device("meta"):
        network = build()
    return sum(tensor.numel() for tensor in network.state_dict().values())


def check_parameter_count(count: int, what: str, stored_bytes: int | None = None) -> None:
    """Refuse `count` weights past `MOST_PARAMETERS`, or past `stored_bytes` (the weights file's
    size: every stored weight takes at least a byte) when the weights come from a file."""
    if count > MOST_PARAMETERS:
        raise ParetoscopeError(
            f"{what} declares {count:,} parameters, more than the {MOST_PARAMETERS:,} paretoscope "
            "builds (MOST_PARAMETERS)"
        )
    if stored_bytes is not None and count > stored_bytes:
        raise ParetoscopeError(
            f"{what} declares {count:,} parameters, more than its weights file's "
            f"{stored_bytes:,} bytes can hold"
        )


def _coerce(name: str, value: Any, default: Any) -> Any:
    """`value` converted to the type of `default`, or a ParetoscopeError naming the field."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ParetoscopeError(f"{name}: expected true or false, got {briefly(value)}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParetoscopeError(f"{name}: expected an integer, got {briefly(value)}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParetoscopeError(f"{name}: expected a number, got {briefly(value)}")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ParetoscopeError(f"{name}: expected a string, got {briefly(value)}")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(item, int) and not isinstance(item, bool) for item in value
        ):
            raise ParetoscopeError(f"{name}: expected a list of integers, got {briefly(value)}")
        return tuple(value)
    raise AssertionError(f"unhandled field type for {name}")  # pragma: no cover


def _check_positive(architecture: object, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(architecture, name)
        if not isinstance(value, int) or value < 1:
            raise ParetoscopeError(
                f"architecture.{name}: expected a positive integer, got {briefly(value)}"
            )


def _check_hidden_sizes(sizes: tuple[int, ...]) -> None:
    if not sizes or any(not isinstance(size, int) or size < 1 for size in sizes):
        raise ParetoscopeError(
            "architecture.hidden_sizes: expected one or more positive integers, "
            f"got {briefly(sizes)}"
        )


def _check_dropout(dropout: float) -> None:
    if not 0.0 <= dropout < 1.0:
        raise ParetoscopeError(f"architecture.dropout: expected a value in [0, 1), got {dropout}")
