"""A PEDA model's architecture read from its tensors: hidden sizes, layer count, context length
(BC), timestep table (DT) and which inputs carry the preference, each checked against the env;
a mismatch names the tensor and what it should be. Only a transformer's head count cannot be
seen in the weights (PEDA uses one). `Layout.key_map` says where each tensor goes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import torch

from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
    build_network,
)
from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.agents.networks import MASKED_SCORE
from paretoscope.agents.peda.constants import (
    PEDA_EVAL_CONTEXT,
    PEDA_MAX_EPISODE_LENGTH,
    PEDA_TRAIN_CONTEXT,
)
from paretoscope.envs import EnvSpec
from paretoscope.errors import ParetoscopeError


@dataclass
class Layout:
    """What the tensors say: conditioning, architecture and where each tensor goes."""

    conditioning: Conditioning
    architecture: TransformerArchitecture | MORvSArchitecture | BCArchitecture
    key_map: dict[str, str]

    def describe(self) -> str:
        return layout_hint(self.architecture)

    def flags(self) -> dict[str, int | bool]:
        c = self.conditioning
        return {
            "concat_state_pref": int(c.preference_in_state),
            "concat_rtg_pref": int(c.preference_in_return),
            "concat_act_pref": int(c.preference_in_action),
            "mo_rtg": c.vector_return,
        }


def infer_layout(
    peda_type: str, tensors: Mapping[str, torch.Tensor], env: EnvSpec, n_head: int
) -> Layout:
    if peda_type == "dt":
        return _infer_dt(tensors, env, n_head)
    if peda_type == "rvs":
        return _infer_rvs(tensors, env)
    return _infer_bc(tensors, env)


def _require(tensors: Mapping[str, torch.Tensor], keys: list[str], what: str) -> None:
    missing = [key for key in keys if key not in tensors]
    if missing:
        sample = sorted(tensors)[:6]
        raise ParetoscopeError(
            f"not a PEDA {what} checkpoint: missing tensor(s) {missing[:4]}"
            f"{' ...' if len(missing) > 4 else ''}; its keys start {sample}"
        )


def _shape(tensors: Mapping[str, torch.Tensor], key: str, ndim: int) -> list[int]:
    shape = list(tensors[key].shape)
    if len(shape) != ndim:
        raise ParetoscopeError(f"tensor {key!r} has shape {shape}, expected {ndim} dimensions")
    return shape


def _layer_indices(tensors: Mapping[str, torch.Tensor], prefix: str) -> list[int]:
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.weight$")
    return sorted(int(m.group(1)) for key in tensors if (m := pattern.match(key)))


def _pref_flag(extra: int, n_obj: int, key: str, what: str, base: int, env: EnvSpec) -> bool:
    """Whether an input of width base + extra carries the preference (extra = n_obj) or not (0)."""
    if extra == 0:
        return False
    if extra == n_obj:
        return True
    raise ParetoscopeError(
        f"tensor {key!r} takes {base + extra} inputs, but {env.id} has {what} of {base} "
        f"({base} without the preference, {base + n_obj} with its {n_obj} weights)"
    )


def _infer_dt(tensors: Mapping[str, torch.Tensor], env: EnvSpec, n_head: int) -> Layout:
    _require(
        tensors,
        [
            "embed_state.weight",
            "embed_action.weight",
            "embed_return.weight",
            "embed_timestep.weight",
            "embed_ln.weight",
            "predict_action.0.weight",
            "transformer.ln_f.weight",
            "transformer.h.0.mlp.c_fc.weight",
        ],
        "decision transformer",
    )
    if "transformer.wpe.weight" in tensors:
        raise ParetoscopeError(
            "tensor 'transformer.wpe.weight' is a position embedding, which PEDA's decision "
            "transformer does not have: this checkpoint comes from another model"
        )
    block_indices = sorted(
        {int(m.group(1)) for key in tensors if (m := re.match(r"transformer\.h\.(\d+)\.", key))}
    )
    n_layer = len(block_indices)
    if block_indices != list(range(n_layer)):
        raise ParetoscopeError(f"transformer blocks are numbered {block_indices}, expected 0..n-1")
    hidden, state_in = _shape(tensors, "embed_state.weight", 2)
    act_out = _shape(tensors, "predict_action.0.weight", 2)[0]
    action_in = _shape(tensors, "embed_action.weight", 2)[1]
    return_in = _shape(tensors, "embed_return.weight", 2)[1]
    max_timestep = _shape(tensors, "embed_timestep.weight", 2)[0]
    inner = _shape(tensors, "transformer.h.0.mlp.c_fc.weight", 2)[1]

    n_obj = env.n_obj
    if "embed_pref.weight" in tensors:
        pref_dim = _shape(tensors, "embed_pref.weight", 2)[1]
        if pref_dim != n_obj:
            raise ParetoscopeError(
                f"tensor 'embed_pref.weight' is made for {pref_dim} objectives, "
                f"{env.id} has {n_obj}"
            )
    if act_out != env.act_dim:
        raise ParetoscopeError(
            f"tensor 'predict_action.0.weight' outputs {act_out} actions, {env.id} has "
            f"act_dim={env.act_dim}"
        )
    in_state = _pref_flag(
        state_in - env.obs_dim, n_obj, "embed_state.weight", "observations", env.obs_dim, env
    )
    in_action = _pref_flag(
        action_in - env.act_dim, n_obj, "embed_action.weight", "actions", env.act_dim, env
    )
    # (vector return, preference appended) for each possible width of the return input.
    return_options = {
        n_obj: (True, False),
        2 * n_obj: (True, True),
        1: (False, False),
        1 + n_obj: (False, True),
    }
    if return_in not in return_options:
        raise ParetoscopeError(
            f"tensor 'embed_return.weight' takes {return_in} inputs; for {env.id}'s {n_obj} "
            f"objectives expected {n_obj} (vector return), {2 * n_obj} (with the preference), "
            f"1 or {1 + n_obj} (scalar return)"
        )
    vector, in_return = return_options[return_in]
    auxiliary = ("embed_pref.weight", "predict_return.weight", "predict_pref.0.weight")
    has_aux = any(key in tensors for key in auxiliary)
    conditioning = Conditioning(
        preference_in_state=in_state,
        preference_in_return=in_return,
        preference_in_action=in_action,
        return_conditioned=True,
        vector_return=vector,
    )
    try:
        architecture = TransformerArchitecture(
            hidden_size=hidden,
            n_layer=n_layer,
            n_head=n_head,
            inner_size=inner,
            activation="relu",
            dropout=0.1,
            max_timestep=max_timestep,
            context_length=PEDA_EVAL_CONTEXT,
            train_context_length=PEDA_TRAIN_CONTEXT,
            auxiliary_heads=has_aux,
        )
    except ParetoscopeError as error:
        raise ParetoscopeError(
            f"{error} (hidden size {hidden} read from embed_state.weight)"
        ) from None
    allowed_extra = {"transformer.wte.weight"}
    for index in range(n_layer):
        prefix = f"transformer.h.{index}.attn."
        _check_attention_buffers(tensors, prefix)
        allowed_extra |= {prefix + "bias", prefix + "masked_bias"}
    spec = AgentSpec(env.id, n_obj, env.obs_dim, env.act_dim, "modt", conditioning)
    key_map = {key: key for key in expected_shapes(spec, architecture)}
    _require(tensors, list(key_map), "decision transformer")
    unexpected = sorted(set(tensors) - set(key_map) - allowed_extra)
    if unexpected:
        raise ParetoscopeError(
            f"unexpected tensor(s) {unexpected[:4]} for a PEDA decision transformer "
            f"({layout_hint(architecture)})"
        )
    return Layout(conditioning=conditioning, architecture=architecture, key_map=key_map)


def expected_shapes(
    spec: AgentSpec, architecture: TransformerArchitecture | MORvSArchitecture | BCArchitecture
) -> dict[str, list[int]]:
    """Tensor names and shapes of the network, computed on the meta device (no memory)."""
    with torch.device("meta"):
        network = build_network(spec, architecture)
    return {name: list(tensor.shape) for name, tensor in network.state_dict().items()}


def layout_hint(architecture: object) -> str:
    return ", ".join(f"{key}={value}" for key, value in vars(architecture).items())


def _check_attention_buffers(tensors: Mapping[str, torch.Tensor], prefix: str) -> None:
    """PEDA's GPT-2 stores its causal mask and masking constant; they must be the standard ones."""
    mask = tensors.get(prefix + "bias")
    if mask is not None:
        if mask.ndim != 4 or mask.shape[-1] != mask.shape[-2]:
            raise ParetoscopeError(
                f"tensor {prefix + 'bias'!r} has shape {list(mask.shape)}, expected GPT-2's "
                "causal mask [1, 1, n, n]"
            )
        square = mask[0, 0].to(torch.bool)
        if not torch.equal(square, torch.ones_like(square).tril()):
            raise ParetoscopeError(
                f"tensor {prefix + 'bias'!r} is not a causal (lower-triangular) mask"
            )
    masked = tensors.get(prefix + "masked_bias")
    if masked is not None and (masked.numel() != 1 or float(masked) != MASKED_SCORE):
        raise ParetoscopeError(
            f"tensor {prefix + 'masked_bias'!r} is {masked.tolist()}, expected {MASKED_SCORE}"
        )


def _chain(tensors: Mapping[str, torch.Tensor], keys: list[str], first_input: int) -> list[int]:
    """Output widths of consecutive Linear layers; each must take the previous one's output."""
    width = first_input
    sizes = []
    for key in keys:
        out_features, in_features = _shape(tensors, key, 2)
        if in_features != width:
            raise ParetoscopeError(
                f"tensor {key!r} takes {in_features} inputs, but the layer before it gives {width}"
            )
        bias_key = key[: -len("weight")] + "bias"
        if bias_key in tensors and list(tensors[bias_key].shape) != [out_features]:
            raise ParetoscopeError(
                f"tensor {bias_key!r} has shape {list(tensors[bias_key].shape)}, "
                f"expected [{out_features}]"
            )
        sizes.append(out_features)
        width = out_features
    return sizes


def _infer_rvs(tensors: Mapping[str, torch.Tensor], env: EnvSpec) -> Layout:
    shared = "model.mlp_extractor.shared_net."
    policy = "model.mlp_extractor.policy_net."
    layer_keys = [f"{shared}{i}.weight" for i in _layer_indices(tensors, shared)]
    layer_keys += [f"{policy}{i}.weight" for i in _layer_indices(tensors, policy)]
    _require(tensors, ["model.action_net.weight", "model.action_net.bias"], "RvS")
    if not layer_keys:
        raise ParetoscopeError(f"not a PEDA RvS checkpoint: no {shared}* layers")
    n_obj = env.n_obj
    first_input = _shape(tensors, layer_keys[0], 2)[1]
    extra = first_input - env.obs_dim
    options = {
        2 * n_obj: (True, True),
        n_obj + 1: (True, False),
        n_obj: (False, True),
        1: (False, False),
    }
    if extra not in options:
        raise ParetoscopeError(
            f"tensor {layer_keys[0]!r} takes {first_input} inputs; {env.id} needs "
            f"{env.obs_dim} observations + {n_obj} preference weights + {n_obj} returns = "
            f"{env.obs_dim + 2 * n_obj} (PEDA's flags), or {env.obs_dim + n_obj + 1}, "
            f"{env.obs_dim + n_obj}, {env.obs_dim + 1} with other flags"
        )
    in_state, vector = options[extra]
    hidden = _chain(tensors, layer_keys, first_input)
    act_out = _chain(tensors, ["model.action_net.weight"], hidden[-1])[0]
    if act_out != env.act_dim:
        raise ParetoscopeError(
            f"tensor 'model.action_net.weight' outputs {act_out} actions, {env.id} has "
            f"act_dim={env.act_dim}"
        )
    if "model.log_std" in tensors and list(tensors["model.log_std"].shape) != [env.act_dim]:
        raise ParetoscopeError(
            f"tensor 'model.log_std' has shape {list(tensors['model.log_std'].shape)}, "
            f"expected [{env.act_dim}]"
        )
    key_map = {}
    for index, key in enumerate(layer_keys):
        stem = key[: -len("weight")]
        key_map[stem + "weight"] = f"layers.{index}.weight"
        key_map[stem + "bias"] = f"layers.{index}.bias"
    key_map["model.action_net.weight"] = "output.weight"
    key_map["model.action_net.bias"] = "output.bias"
    _require(tensors, list(key_map), "RvS")
    ignored = ("model.log_std", "model.mlp_extractor.value_net.", "model.value_net.")
    unexpected = sorted(
        key for key in tensors if key not in key_map and not key.startswith(ignored)
    )
    if unexpected:
        raise ParetoscopeError(f"unexpected tensor(s) {unexpected[:4]} for a PEDA RvS model")
    return Layout(
        conditioning=Conditioning(
            preference_in_state=in_state, return_conditioned=True, vector_return=vector
        ),
        architecture=MORvSArchitecture(
            hidden_sizes=tuple(hidden), dropout=0.1, horizon=PEDA_MAX_EPISODE_LENGTH
        ),
        key_map=key_map,
    )


def _infer_bc(tensors: Mapping[str, torch.Tensor], env: EnvSpec) -> Layout:
    indices = _layer_indices(tensors, "model.")
    if len(indices) < 2:
        raise ParetoscopeError(
            "not a PEDA BC checkpoint: expected model.<i>.weight for at least two Linear layers"
        )
    layer_keys = [f"model.{i}.weight" for i in indices]
    first_input = _shape(tensors, layer_keys[0], 2)[1]
    n_obj = env.n_obj
    candidates = []
    for in_state in (True, False):
        width = env.obs_dim + (n_obj if in_state else 0)
        if first_input % width == 0:
            candidates.append((first_input // width, in_state))
    if not candidates:
        raise ParetoscopeError(
            f"tensor 'model.{indices[0]}.weight' takes {first_input} inputs, not a multiple of "
            f"{env.obs_dim + n_obj} ({env.id} observation + preference) nor of {env.obs_dim}: "
            f"the checkpoint does not fit {env.id}"
        )
    # Both readings fit only by coincidence; prefer PEDA's context of 20, then its flags.
    candidates.sort(key=lambda c: (c[0] != PEDA_TRAIN_CONTEXT, not c[1]))
    context, in_state = candidates[0]
    sizes = _chain(tensors, layer_keys, first_input)
    if sizes[-1] != env.act_dim:
        raise ParetoscopeError(
            f"tensor {layer_keys[-1]!r} outputs {sizes[-1]} actions, {env.id} has "
            f"act_dim={env.act_dim}"
        )
    key_map = {}
    for position, index in enumerate(indices):
        target = "output" if position == len(indices) - 1 else f"layers.{position}"
        key_map[f"model.{index}.weight"] = f"{target}.weight"
        key_map[f"model.{index}.bias"] = f"{target}.bias"
    _require(tensors, list(key_map), "BC")
    unexpected = sorted(set(tensors) - set(key_map))
    if unexpected:
        raise ParetoscopeError(f"unexpected tensor(s) {unexpected[:4]} for a PEDA BC model")
    return Layout(
        conditioning=Conditioning(
            preference_in_state=in_state, return_conditioned=False, vector_return=True
        ),
        architecture=BCArchitecture(
            hidden_sizes=tuple(sizes[:-1]), dropout=0.1, context_length=context
        ),
        key_map=key_map,
    )
