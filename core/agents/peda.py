"""Import checkpoints written by PEDA's training script (MODT, MORvS, BC) as paretoscope agents.

PEDA saves ``torch.save({'model': state_dict, 'optimizer': ...}, 'ckpt/step=N.ckpt')`` with no
metadata, so everything is recovered from the tensors and from what the user says (env, type):

- The file is read with ``torch.load(weights_only=True)``: tensors and plain containers only;
  a pickle that would build any other object is refused before it can run.
- The architecture is inferred from tensor shapes: hidden sizes, layer count, context length
  (BC), timestep table (DT) and which inputs carry the preference. Only a transformer's head
  count cannot be seen in the weights; PEDA uses one head (``n_head`` to override).
- Everything is checked against the env (observation, action and objective counts) and against
  the inferred architecture; a mismatch names the tensor and what it should be.
- PEDA's fixed per-env observation statistics (`peda_constants`), scale 1000, horizon 500 and
  evaluation contexts come with the import. The initial target comes from a D4MORL dataset (a
  least-squares fit, as PEDA) or from PEDA's published linear models.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
    build_network,
)
from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.agents.conditioned import AGENT_CLASSES, ConditionedAgent, ObservationNormalizer
from paretoscope.agents.importers import file_sha256
from paretoscope.agents.networks import MASKED_SCORE
from paretoscope.agents.peda_constants import PEDA_OBSERVATION_STATISTICS
from paretoscope.agents.peda_importer import SIGNATURE_KEYS, env_in_path, type_from_keys
from paretoscope.agents.target_model import (
    LinearTargetModel,
    fit_linear_target_model,
    published_target_model,
)
from paretoscope.envs import EnvSpec, get_spec, list_specs
from paretoscope.errors import ParetoscopeError
from paretoscope.torch_files import load_tensors

PathLike = str | os.PathLike[str]

# PEDA's model types and the paretoscope kinds they become.
PEDA_TYPES: dict[str, str] = {"dt": "modt", "rvs": "morvs", "bc": "bc"}
PEDA_SCALE = 1000.0
PEDA_MAX_EPISODE_LENGTH = 500
PEDA_EVAL_CONTEXT = 5
PEDA_TRAIN_CONTEXT = 20


@dataclass(frozen=True)
class PedaCheckpointInfo:
    """What can be told about a PEDA checkpoint before importing it (for the dashboard)."""

    path: Path
    peda_type: str | None  # "dt" | "rvs" | "bc", None when the keys fit none
    env_from_path: str | None  # a D4MORL env id found in the path (PEDA's run directories)
    env_candidates: tuple[str, ...]  # D4MORL envs whose dims fit the tensors
    n_tensors: int
    n_parameters: int
    training_steps: int | None
    shapes: dict[str, list[int]] = field(repr=False, default_factory=dict)

    @property
    def env_guess(self) -> str | None:
        """The env to propose: the one in the path if the tensors fit it, else a unique fit."""
        if self.env_from_path in self.env_candidates:
            return self.env_from_path
        return self.env_candidates[0] if len(self.env_candidates) == 1 else None


# --- reading --------------------------------------------------------------------------------------


def read_peda_checkpoint(path: PathLike) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """The model state_dict and the rest of the file, read without running any code.

    Accepts PEDA's ``{'model': ..., 'optimizer': ...}``, a Lightning-style ``{'state_dict': ...}``
    or a bare state_dict; a leading ``module.`` (DataParallel) is stripped.
    """
    location = Path(path)
    if not location.is_file():
        raise ParetoscopeError(f"{location}: no such file")
    content = load_tensors(location)
    if not isinstance(content, Mapping):
        raise ParetoscopeError(
            f"{location}: holds a {type(content).__name__}, expected a dict with a 'model' "
            "state_dict (what PEDA's training script saves)"
        )
    extra: dict[str, Any] = {}
    if "model" in content and isinstance(content["model"], Mapping):
        state, extra = content["model"], {k: v for k, v in content.items() if k != "model"}
    elif "state_dict" in content and isinstance(content["state_dict"], Mapping):
        state, extra = (
            content["state_dict"],
            {k: v for k, v in content.items() if k != "state_dict"},
        )
    else:
        state = content
    if not state or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in state.items()
    ):
        raise ParetoscopeError(
            f"{location}: expected {{'model': state_dict}} with named tensors (PEDA's layout); "
            f"found top-level keys {sorted(map(str, content))[:8]}"
        )
    tensors = dict(state)
    if all(key.startswith("module.") for key in tensors):
        tensors = {key[len("module.") :]: value for key, value in tensors.items()}
    return tensors, extra


def guess_peda_type(tensors: Mapping[str, torch.Tensor]) -> str | None:
    """ "dt", "rvs" or "bc" from the key names, or None when they fit none (or several)."""
    return type_from_keys(set(tensors))


def inspect_peda(path: PathLike) -> PedaCheckpointInfo:
    """Type, fitting envs and size of a PEDA checkpoint: what a UI shows before it asks."""
    location = Path(path)
    tensors, extra = read_peda_checkpoint(location)
    peda_type = guess_peda_type(tensors)
    candidates: list[str] = []
    if peda_type is not None:
        for env in list_specs("d4morl"):
            try:
                _infer(peda_type, tensors, env, n_head=1)
            except ParetoscopeError:
                continue
            candidates.append(env.id)
    env_from_path = env_in_path(location)
    if env_from_path in candidates:
        candidates.remove(env_from_path)
        candidates.insert(0, env_from_path)
    return PedaCheckpointInfo(
        path=location,
        peda_type=peda_type,
        env_from_path=env_from_path,
        env_candidates=tuple(candidates),
        n_tensors=len(tensors),
        n_parameters=sum(t.numel() for t in tensors.values() if t.is_floating_point()),
        training_steps=_training_steps(location, extra),
        shapes={name: list(tensor.shape) for name, tensor in tensors.items()},
    )


# --- importing ------------------------------------------------------------------------------------


def import_peda(
    path: PathLike,
    env_id: str,
    peda_type: str,
    dataset: PathLike | None = None,
    n_head: int = 1,
    device: str = "cpu",
) -> ConditionedAgent:
    """A paretoscope agent that acts exactly as PEDA's evaluator would with this checkpoint."""
    location = Path(path)
    if peda_type not in PEDA_TYPES:
        raise ParetoscopeError(f"type: {peda_type!r}, expected one of {sorted(PEDA_TYPES)}")
    env = get_spec(env_id)
    if env.family != "d4morl" or env.id not in PEDA_OBSERVATION_STATISTICS:
        raise ParetoscopeError(
            f"env: PEDA trains on the D4MORL tasks only; {env.id} is not one "
            f"(known: {', '.join(sorted(PEDA_OBSERVATION_STATISTICS))})"
        )
    tensors, extra = read_peda_checkpoint(location)
    found = guess_peda_type(tensors)
    if found is not None and found != peda_type:
        raise ParetoscopeError(
            f"{location}: --type {peda_type}, but the tensors are those of a PEDA {found} model "
            f"({SIGNATURE_KEYS[found]} is present)"
        )
    try:
        layout = _infer(peda_type, tensors, env, n_head=n_head)
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{location}: {error}") from None

    kind = PEDA_TYPES[peda_type]
    spec = AgentSpec(
        env_id=env.id,
        n_obj=env.n_obj,
        obs_dim=env.obs_dim,
        act_dim=env.act_dim,
        kind=AGENT_CLASSES[kind].kind,
        conditioning=layout.conditioning,
    )
    expected = _expected_shapes(spec, layout.architecture)
    mapped: dict[str, torch.Tensor] = {}
    for peda_key, our_key in layout.key_map.items():
        tensor = tensors[peda_key]
        if list(tensor.shape) != expected[our_key]:
            raise ParetoscopeError(
                f"{location}: tensor {peda_key!r} has shape {list(tensor.shape)}, but the "
                f"architecture read from the other tensors ({layout.describe()}) needs "
                f"{expected[our_key]}"
            )
        if not tensor.is_floating_point():
            raise ParetoscopeError(f"{location}: tensor {peda_key!r} has dtype {tensor.dtype}")
        mapped[our_key] = tensor.to(torch.float32)
    with torch.device("meta"):
        network = build_network(spec, layout.architecture)
    network = network.to_empty(device="cpu")
    network.load_state_dict(mapped)

    statistics = PEDA_OBSERVATION_STATISTICS[env.id]
    normalizer = ObservationNormalizer(
        mean=tuple(statistics["mean"]),
        std=tuple(math.sqrt(value) for value in statistics["var"]),
    )
    target_model, dataset_info = _target_model(env, dataset, layout.conditioning)
    training = {
        "source": "peda",
        "peda_type": peda_type,
        "peda_flags": layout.flags(),
        "original_file": location.name,
        "original_sha256": file_sha256(location),
        "steps": _training_steps(location, extra),
        "dataset": dataset_info,
    }
    return AGENT_CLASSES[kind](
        spec=spec,
        architecture=layout.architecture,
        network=network,
        normalizer=normalizer,
        action_bound=env.action_high,
        target_model=target_model,
        rtg_scale=PEDA_SCALE,
        preference_weighted_return=True,
        training=training,
        device=device,
    )


# --- architecture inference -----------------------------------------------------------------------


@dataclass
class _Layout:
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


def _infer(
    peda_type: str, tensors: Mapping[str, torch.Tensor], env: EnvSpec, n_head: int
) -> _Layout:
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


def _infer_dt(tensors: Mapping[str, torch.Tensor], env: EnvSpec, n_head: int) -> _Layout:
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
    key_map = {key: key for key in _expected_shapes(spec, architecture)}
    _require(tensors, list(key_map), "decision transformer")
    unexpected = sorted(set(tensors) - set(key_map) - allowed_extra)
    if unexpected:
        raise ParetoscopeError(
            f"unexpected tensor(s) {unexpected[:4]} for a PEDA decision transformer "
            f"({layout_hint(architecture)})"
        )
    return _Layout(conditioning=conditioning, architecture=architecture, key_map=key_map)


def _expected_shapes(
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


def _infer_rvs(tensors: Mapping[str, torch.Tensor], env: EnvSpec) -> _Layout:
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
    return _Layout(
        conditioning=Conditioning(
            preference_in_state=in_state, return_conditioned=True, vector_return=vector
        ),
        architecture=MORvSArchitecture(
            hidden_sizes=tuple(hidden), dropout=0.1, horizon=PEDA_MAX_EPISODE_LENGTH
        ),
        key_map=key_map,
    )


def _infer_bc(tensors: Mapping[str, torch.Tensor], env: EnvSpec) -> _Layout:
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
    return _Layout(
        conditioning=Conditioning(
            preference_in_state=in_state, return_conditioned=False, vector_return=True
        ),
        architecture=BCArchitecture(
            hidden_sizes=tuple(sizes[:-1]), dropout=0.1, context_length=context
        ),
        key_map=key_map,
    )


# --- target model, provenance ---------------------------------------------------------------------


def _target_model(
    env: EnvSpec, dataset: PathLike | None, conditioning: Conditioning
) -> tuple[LinearTargetModel | None, dict[str, Any] | None]:
    if dataset is not None:
        fitted, info = target_model_from_d4morl(dataset, env.id)
        return (fitted if conditioning.return_conditioned else None), info
    if not conditioning.return_conditioned:
        return None, None
    model = published_target_model(env.id)
    if model is None:
        raise ParetoscopeError(
            f"no published PEDA target model for {env.id}; give the training dataset "
            "(--dataset) to fit one"
        )
    return model, None


def target_model_from_d4morl(
    dataset: PathLike, env_id: str
) -> tuple[LinearTargetModel, dict[str, Any]]:
    """Fit PEDA's linear target model on a D4MORL file; also return the file's fingerprint."""
    from paretoscope.data.d4morl import load_d4morl, parse_d4morl_name

    location = Path(dataset)
    named = parse_d4morl_name(location.name)
    if named is not None and named.env_id != env_id:
        raise ParetoscopeError(
            f"{location}: by its name a dataset for {named.env_id}, but the agent is for {env_id}"
        )
    loaded = load_d4morl(location, env_id=env_id)
    preferences, returns = [], []
    for trajectory in loaded.trajectories(release=True):
        preferences.append(np.asarray(trajectory.preference, dtype=np.float64))
        returns.append(trajectory.returns)
    digest = file_sha256(location)
    model = fit_linear_target_model(
        np.stack(preferences), np.stack(returns), source=f"least squares on {location.name}"
    )
    info = {
        "file": location.name,
        "sha256": digest,
        "n_trajectories": len(preferences),
        "env_id": env_id,
        "quality": loaded.info.quality,
        "preference_distribution": loaded.info.preference_distribution,
    }
    return model, info


def _training_steps(path: Path, extra: Mapping[str, Any]) -> int | None:
    """Optimizer steps from AdamW's state, else N from PEDA's file name ``step=N.ckpt``."""
    optimizer = extra.get("optimizer")
    if isinstance(optimizer, Mapping) and isinstance(optimizer.get("state"), Mapping):
        for state in optimizer["state"].values():
            step = state.get("step") if isinstance(state, Mapping) else None
            if isinstance(step, (int, float, torch.Tensor)):
                return int(float(step))
    match = re.fullmatch(r"step=(\d+)\.ckpt", path.name)
    return int(match.group(1)) if match else None
