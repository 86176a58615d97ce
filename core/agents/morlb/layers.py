"""MORL-Baselines' MLPs read back from their state_dicts: which layer sits at which index.

MORL-Baselines builds every MLP as one `torch.nn.Sequential`: per hidden layer a Linear,
optionally Dropout and LayerNorm, then ReLU; then, for a network with an output, a last Linear.
Only Linear (2-D weight) and LayerNorm (1-D weight) have parameters, so a state_dict shows them
at their indices and the parameterless layers between follow: a gap of one index before the
next parameter layer is a ReLU, of two a Dropout and ReLU around a LayerNorm, and so on. The
layout is stored as plain data (`to_data`) in the checkpoint config and rebuilt with the same
indices, so the tensors keep MORL-Baselines' names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from paretoscope.agents.networks import LayerNorm, Linear, LogSoftmax, Sigmoid, Tanh
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# One Sequential slot: ("linear", in, out), ("layernorm", width), or a parameterless one:
# ("relu",), ("tanh",), ("dropout",), ("sigmoid",), ("log_softmax",).
Slot = tuple[Any, ...]
_PARAMETERLESS = ("relu", "tanh", "dropout", "sigmoid", "log_softmax")


@dataclass(frozen=True)
class SequentialLayout:
    """The slots of one `nn.Sequential`, index by index."""

    slots: tuple[Slot, ...]

    @property
    def input_width(self) -> int:
        return int(self.slots[0][1])

    @property
    def output_width(self) -> int:
        for slot in reversed(self.slots):
            if slot[0] == "linear":
                return int(slot[2])
            if slot[0] == "layernorm":
                return int(slot[1])
        raise AssertionError("a layout without parameter layers")  # pragma: no cover

    def hidden_sizes(self) -> list[int]:
        return [int(slot[2]) for slot in self.slots if slot[0] == "linear"]

    def to_data(self) -> list[list[str | int]]:
        return [list(slot) for slot in self.slots]

    @classmethod
    def from_data(cls, data: object, where: str) -> SequentialLayout:
        """A layout from a checkpoint config; anything malformed raises naming `where`."""
        if not isinstance(data, list) or not data:
            raise ParetoscopeError(f"{where}: expected a non-empty list of layers")
        slots: list[Slot] = []
        for item in data:
            if not isinstance(item, list) or not item or not isinstance(item[0], str):
                raise ParetoscopeError(f"{where}: layer {briefly(item)} is not [name, sizes...]")
            name, sizes = item[0], item[1:]
            expected = {"linear": 2, "layernorm": 1}.get(name, 0)
            if name not in ("linear", "layernorm", *_PARAMETERLESS) or len(sizes) != expected:
                raise ParetoscopeError(f"{where}: unknown layer {briefly(item)}")
            if not all(isinstance(size, int) and size > 0 for size in sizes):
                raise ParetoscopeError(f"{where}: layer {briefly(item)} needs positive sizes")
            slots.append((name, *sizes))
        if slots[0][0] != "linear":
            raise ParetoscopeError(f"{where}: the first layer must be linear")
        return cls(tuple(slots))

    def build(self) -> nn.Sequential:
        """The untrained network, of `paretoscope.agents.networks`' batch- and CPU-invariant
        layers."""
        modules: list[nn.Module] = []
        for slot in self.slots:
            name = slot[0]
            if name == "linear":
                modules.append(Linear(int(slot[1]), int(slot[2])))
            elif name == "layernorm":
                modules.append(LayerNorm(int(slot[1])))
            elif name == "relu":
                modules.append(nn.ReLU())
            elif name == "tanh":
                modules.append(Tanh())
            elif name == "sigmoid":
                modules.append(Sigmoid())
            elif name == "log_softmax":
                modules.append(LogSoftmax())
            else:  # dropout: evaluation only, so the identity
                modules.append(nn.Identity())
        return nn.Sequential(*modules)


def read_layout(
    tensors: Mapping[str, torch.Tensor],
    prefix: str,
    input_width: int | None,
    final_activation: bool,
    where: str,
    activation: str = "relu",
    input_what: str | None = None,
) -> SequentialLayout:
    """The layout of the Sequential whose tensors start with `prefix` (``"net."``).

    `input_width`, when given, is what the first layer must take (a message names the tensor
    otherwise); `final_activation`: whether the activation follows the last Linear
    (MORL-Baselines' feature extractors and actor bodies) or not (networks with an output
    layer); `activation`: "relu" (the library's default), "tanh" (PPO's) or "sigmoid" (PCN's
    embeddings); `input_what` says what the input is, for the message when it does not fit.
    """
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.weight$")
    found = sorted((int(m.group(1)), key) for key in tensors if (m := pattern.match(key)))
    if not found:
        raise ParetoscopeError(f"{where}: no tensors {prefix}<i>.weight")
    slots: dict[int, Slot] = {}
    width = input_width
    for index, key in found:
        shape = list(tensors[key].shape)
        bias = tensors.get(key[: -len("weight")] + "bias")
        if len(shape) == 2:
            out_features, in_features = shape
            if width is not None and in_features != width:
                raise ParetoscopeError(
                    f"{where}: tensor {briefly(key)} takes {in_features} inputs, but "
                    f"{_what_feeds(prefix, index, found, input_what)} gives {width}"
                )
            slots[index] = ("linear", in_features, out_features)
            width = out_features
        elif len(shape) == 1:
            if width is not None and shape[0] != width:
                raise ParetoscopeError(
                    f"{where}: tensor {briefly(key)} normalises {shape[0]} values, the layer "
                    "before "
                    f"gives {width}"
                )
            slots[index] = ("layernorm", shape[0])
        else:
            raise ParetoscopeError(
                f"{where}: tensor {briefly(key)} has shape {shape}, expected 1 or 2-D"
            )
        if bias is None or list(bias.shape) != [shape[0]]:
            raise ParetoscopeError(
                f"{where}: tensor {key[: -len('weight')] + 'bias'!r} is missing or not [{shape[0]}]"
            )
    if slots[found[0][0]][0] != "linear" or found[0][0] != 0:
        raise ParetoscopeError(f"{where}: {prefix}0 must be a Linear layer")
    layout: list[Slot] = []
    indices = [index for index, _ in found]
    for position, index in enumerate(indices):
        layout.append(slots[index])
        following = indices[position + 1] if position + 1 < len(indices) else None
        gap = (following - index - 1) if following is not None else None
        layout.extend(
            _fill(slots, index, following, gap, final_activation, where, prefix, activation)
        )
    return SequentialLayout(tuple(layout))


def _fill(
    slots: Mapping[int, Slot],
    index: int,
    following: int | None,
    gap: int | None,
    final_activation: bool,
    where: str,
    prefix: str,
    activation: str,
) -> list[Slot]:
    """The parameterless layers between the parameter layer at `index` and the next one."""
    current = slots[index][0]
    act: Slot = (activation,)
    if following is None:
        return [act] if current == "layernorm" or final_activation else []
    nxt = slots[following][0]
    # linear -> linear: activation; linear -> layernorm: (Dropout); layernorm -> linear:
    # activation; linear -> linear two apart: Dropout and activation (no LayerNorm).
    if current == "linear" and nxt == "linear" and gap == 1:
        return [act]
    if current == "linear" and nxt == "layernorm" and gap in (0, 1):
        return [("dropout",)] * int(gap)
    if current == "layernorm" and nxt == "linear" and gap == 1:
        return [act]
    if current == "linear" and nxt == "linear" and gap == 2:
        return [("dropout",), act]
    raise ParetoscopeError(
        f"{where}: layers {prefix}{index} and {prefix}{following} are not laid out as "
        "MORL-Baselines' mlp() lays them out (Linear, [Dropout], [LayerNorm], ReLU)"
    )


def _what_feeds(
    prefix: str, index: int, found: Sequence[tuple[int, str]], input_what: str | None
) -> str:
    if index == found[0][0]:
        return input_what or "the network's input"
    return f"the layer before {prefix}{index}"


def check_tensors(
    network: nn.Module, tensors: Mapping[str, torch.Tensor], where: str, prefix: str = ""
) -> dict[str, torch.Tensor]:
    """The tensors under `prefix` renamed to `network`'s keys, after checking each is there with
    the network's shape, is floating point and finite; extra tensors under `prefix` raise."""
    expected = network.state_dict()
    chosen = {key[len(prefix) :]: value for key, value in tensors.items() if key.startswith(prefix)}
    for name, reference in expected.items():
        tensor = chosen.get(name)
        if tensor is None:
            raise ParetoscopeError(f"{where}: tensor {briefly(prefix + name)} is missing")
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            raise ParetoscopeError(f"{where}: {briefly(prefix + name)} is not a float tensor")
        if tuple(tensor.shape) != tuple(reference.shape):
            raise ParetoscopeError(
                f"{where}: tensor {briefly(prefix + name)} has shape {list(tensor.shape)}, "
                "expected "
                f"{list(reference.shape)}"
            )
        if not torch.isfinite(tensor).all():
            raise ParetoscopeError(
                f"{where}: tensor {briefly(prefix + name)} holds NaN or infinity"
            )
    extra = sorted(set(chosen) - set(expected))
    if extra:
        raise ParetoscopeError(f"{where}: unexpected tensor(s) {[prefix + k for k in extra[:4]]}")
    return {name: chosen[name].detach().to(torch.float32) for name in expected}
