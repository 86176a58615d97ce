"""From a MORL-Baselines save() dict to a paretoscope agent, one function per layout.

Each reader takes the loaded dict (tensors already built, the rest skipped), checks every size
against the env and names the tensor when one does not fit, and returns the parts, tensors and
behaviour of one `paretoscope.agents.morlb.agents` kind. The save layouts are described in
docs/agents.md (and tests/fixtures/morl-baselines/README.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paretoscope.agents.morlb.agents import MorlbAgent, Parts, build_agent
from paretoscope.agents.morlb.algorithms import Algorithm
from paretoscope.agents.morlb.layers import SequentialLayout, read_layout
from paretoscope.envs import EnvSpec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import QUOTE_LIMIT, briefly, printable
from paretoscope.torch_files import Skipped, read_torch_file

Tensors = dict[str, torch.Tensor]
# (saved content, env, options, where) -> (members, tensors named members.<i>..., behaviour)
Reader = Callable[
    [Any, EnvSpec, Mapping[str, str], str], tuple[list[Parts], Tensors, dict[str, Any]]
]


def convert(
    path: Path,
    algorithm: Algorithm,
    env: EnvSpec,
    options: Mapping[str, str],
    trust: bool,
    training: Mapping[str, Any],
) -> MorlbAgent:
    """The agent saved in `path` by `algorithm`, for `env`."""
    where = path.name
    content = read_torch_file(path, trust=trust and algorithm.name == "pcn")
    data = content.data
    if isinstance(data, Skipped) or (algorithm.name != "pcn" and not isinstance(data, Mapping)):
        raise ParetoscopeError(
            f"{where}: holds a {getattr(data, 'name', type(data).__name__)}, not the dict "
            f"MORL-Baselines' {algorithm.label} save() writes"
        )
    provenance = {**training, "skipped": list(content.skipped)}
    return convert_saved(data, algorithm, env, options, provenance, where)


def convert_saved(
    data: Any,
    algorithm: Algorithm,
    env: EnvSpec,
    options: Mapping[str, str],
    training: Mapping[str, Any],
    where: str,
) -> MorlbAgent:
    """The agent of `data`, what `algorithm`'s save() writes (a dict; PCN: its model), for
    `env`: read from a file (`convert`) or from a live agent (`paretoscope.agents.morlb.live`).
    The agent holds copies of the tensors."""
    members, tensors, behaviour = READERS[algorithm.name](data, env, options, where)
    provenance = dict(training)
    optimizer_steps = _optimizer_steps(data) if isinstance(data, Mapping) else {}
    if optimizer_steps:
        provenance["optimizer_steps"] = optimizer_steps
    return build_agent(algorithm.kind, env.id, members, tensors, behaviour, provenance, where)


def inspect_file(
    path: Path, algorithm: Algorithm | None = None, named_env: str | None = None
) -> dict[str, Any]:
    """Tensor count, float values, Adam step counters and skipped objects of a save() file;
    with its `algorithm`, also the envs its tensors fit (`fitting_envs`) and the best guess."""
    content = read_torch_file(path)
    tensors: list[torch.Tensor] = []

    def collect(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            tensors.append(value)
        elif isinstance(value, Mapping):
            for item in value.values():
                collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)

    collect(content.data)
    steps = _optimizer_steps(content.data) if isinstance(content.data, Mapping) else {}
    found: dict[str, Any] = {
        "n_tensors": len(tensors),
        "parameter_count": sum(t.numel() for t in tensors if t.is_floating_point()),
        "optimizer_steps": [f"{key}: {value}" for key, value in steps.items()],
        "left_unread": list(content.skipped),
    }
    if algorithm is not None and isinstance(content.data, Mapping):
        candidates = fitting_envs(content.data, algorithm, named_env)
        found["env_candidates"] = candidates
        found["env_guess"] = candidates[0] if candidates else None
    return found


def fitting_envs(
    data: Mapping[str, Any], algorithm: Algorithm, named_env: str | None = None
) -> list[str]:
    """The registered envs whose observation, action and objective sizes the saved tensors fit
    (each one's reader accepts the file), best guess first: the env the file's path names,
    then MO-Gymnasium's ids (what MORL-Baselines trains on), then the others."""
    from paretoscope.envs import get_spec, list_ids

    fitting: list[EnvSpec] = []
    for env_id in list_ids():
        try:
            env = get_spec(env_id)
            READERS[algorithm.name](data, env, {}, "")
        except ParetoscopeError:
            continue  # does not fit (or cannot be built here): not offered
        fitting.append(env)
    order = {"mo-gymnasium": 0, "d4morl": 1}
    fitting.sort(key=lambda env: (env.id != named_env, order.get(env.family, 2)))
    return [env.id for env in fitting]


# --- shared pieces -------------------------------------------------------------------------


def _state_dict(data: Mapping[str, Any], key: str, where: str) -> Tensors:
    """`data[key]` as a flat name -> tensor dict, its keys prefixed with `key.` for messages."""
    value = data.get(key)
    if not isinstance(value, Mapping) or not value:
        raise ParetoscopeError(f"{where}: no {key!r} state_dict (keys: {sorted(data)[:8]})")
    tensors = {f"{key}.{name}": tensor for name, tensor in value.items()}
    for name, tensor in tensors.items():
        if not isinstance(tensor, torch.Tensor):
            raise ParetoscopeError(
                f"{where}: {briefly(name)} is a {type(tensor).__name__}, not a tensor"
            )
    return tensors


def _renamed(tensors: Tensors, source: str, target: str) -> Tensors:
    """The tensors under prefix `source` renamed to prefix `target`."""
    return {
        target + key[len(source) :]: value
        for key, value in tensors.items()
        if key.startswith(source)
    }


def _inputs(env: EnvSpec, weights: bool) -> tuple[int, str]:
    width = env.obs_dim + (env.n_obj if weights else 0)
    what = f"{env.id}'s {env.obs_dim} observations" + (f" + {env.n_obj} weights" if weights else "")
    return width, what


def _head(tensors: Tensors, key: str, inputs: int, outputs: int, what: str, where: str) -> None:
    weight = tensors.get(f"{key}.weight")
    bias = tensors.get(f"{key}.bias")
    if weight is None or bias is None:
        raise ParetoscopeError(f"{where}: tensor {briefly(key + '.weight')} or its bias is missing")
    if list(weight.shape) != [outputs, inputs] or list(bias.shape) != [outputs]:
        raise ParetoscopeError(
            f"{where}: tensor {briefly(key + '.weight')} has shape {list(weight.shape)}; the layer "
            f"before gives {inputs} and {what} needs {outputs} outputs"
        )


def _buffer(tensors: Tensors, key: str, width: int, what: str, where: str) -> torch.Tensor:
    tensor = tensors.get(key)
    if tensor is None:
        raise ParetoscopeError(f"{where}: tensor {briefly(key)} is missing")
    if list(tensor.shape) != [width]:
        raise ParetoscopeError(
            f"{where}: tensor {briefly(key)} has shape {list(tensor.shape)}, {what} needs [{width}]"
        )
    return tensor


def _actor(
    tensors: Tensors,
    prefix: str,
    mean: str,
    env: EnvSpec,
    weights: bool,
    where: str,
    log_std: str | None = None,
) -> tuple[Parts, Tensors]:
    """A SAC-style actor (``latent_pi``, a mean head, ``action_scale``/``action_bias``, and,
    with `log_std`, that head too: to sample)."""
    _continuous(env, where)
    width, what = _inputs(env, weights)
    latent = read_layout(tensors, f"{prefix}latent_pi.", width, True, where, input_what=what)
    _head(
        tensors, f"{prefix}{mean}", latent.output_width, env.act_dim, f"{env.id}'s actions", where
    )
    head = SequentialLayout((("linear", latent.output_width, env.act_dim),))
    for name in ("action_scale", "action_bias"):
        _buffer(tensors, prefix + name, env.act_dim, f"{env.id}'s action dimension", where)
    buffers = {"action_scale": (env.act_dim,), "action_bias": (env.act_dim,)}
    layouts = {"latent_pi": latent, "mean": head}
    named = {
        **_renamed(tensors, f"{prefix}latent_pi.", "latent_pi."),
        **_renamed(tensors, f"{prefix}{mean}.", "mean.0."),
        "action_scale": tensors[prefix + "action_scale"],
        "action_bias": tensors[prefix + "action_bias"],
    }
    if log_std is not None:
        _head(tensors, f"{prefix}{log_std}", latent.output_width, env.act_dim, "its log-std", where)
        layouts["log_std"] = head
        named.update(_renamed(tensors, f"{prefix}{log_std}.", "log_std.0."))
    return Parts(layouts, buffers), named


def _as_member(index: int, tensors: Tensors) -> Tensors:
    return {f"members.{index}.{key}": value for key, value in tensors.items()}


def _discrete(env: EnvSpec, where: str) -> int:
    if not env.n_actions:
        raise ParetoscopeError(
            f"{where}: this algorithm acts in discrete action spaces; {env.id} has "
            f"{env.describe_actions()}"
        )
    return int(env.n_actions)


def _continuous(env: EnvSpec, where: str) -> None:
    if env.n_actions:
        raise ParetoscopeError(
            f"{where}: this algorithm acts in continuous action spaces; {env.id} has "
            f"{env.describe_actions()}"
        )


def _optimizer_steps(data: Mapping[str, Any]) -> dict[str, int]:
    """Adam's step counter of every optimizer state in the file (training progress)."""
    found: dict[str, int] = {}
    for key, value in data.items():
        state = value.get("state") if isinstance(value, Mapping) else None
        if key.endswith("optimizer_state_dict") and isinstance(state, Mapping):
            for entry in state.values():
                step = entry.get("step") if isinstance(entry, Mapping) else None
                if isinstance(step, (int, float, torch.Tensor)):
                    found[key] = int(float(step))
                    break
    return found


# --- one reader per save layout -------------------------------------------------------------


def _read_actor(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """CAPQL and GPI-PD continuous: ``policy_state_dict`` (latent_pi on [obs, w], mean head)."""
    tensors = _state_dict(data, "policy_state_dict", where)
    parts, named = _actor(tensors, "policy_state_dict.", "mean", env, True, where)
    return [parts], _as_member(0, named), {}


def _read_envelope(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """Envelope: ``q_net_state_dict`` (net on [obs, w] -> actions x objectives)."""
    n_actions = _discrete(env, where)
    tensors = _state_dict(data, "q_net_state_dict", where)
    width, what = _inputs(env, True)
    net = read_layout(tensors, "q_net_state_dict.net.", width, False, where, input_what=what)
    _outputs(net, n_actions, env, "q_net_state_dict.net", where)
    return [Parts({"net": net}, {})], _as_member(0, _renamed(tensors, "q_net_state_dict.", "")), {}


def _outputs(layout: SequentialLayout, n_actions: int, env: EnvSpec, name: str, where: str) -> None:
    needed = n_actions * env.n_obj
    if layout.output_width != needed:
        last = max(index for index, slot in enumerate(layout.slots) if slot[0] == "linear")
        raise ParetoscopeError(
            f"{where}: tensor '{name}.{last}.weight' outputs {layout.output_width} values; "
            f"{env.id} needs {n_actions} actions x {env.n_obj} objectives = {needed}"
        )


def _read_gpi(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """GPI-LS / GPI-PD discrete: ``psi_net_<i>_state_dict`` and the weight support ``M``."""
    n_actions = _discrete(env, where)
    indices = sorted(
        int(m.group(1)) for key in data if (m := re.fullmatch(r"psi_net_(\d+)_state_dict", key))
    )
    if not indices:
        raise ParetoscopeError(f"{where}: no psi_net_<i>_state_dict")
    members, named = [], {}
    for position, index in enumerate(indices):
        key = f"psi_net_{index}_state_dict"
        tensors = _state_dict(data, key, where)
        weights = read_layout(
            tensors,
            f"{key}.weights_features.",
            env.n_obj,
            True,
            where,
            input_what=f"{env.id}'s {env.n_obj} weights",
        )
        if any(name.startswith(f"{key}.state_features.cnn") for name in tensors):
            raise ParetoscopeError(f"{where}: image features (NatureCNN) are not imported yet")
        width, what = _inputs(env, False)
        states = read_layout(tensors, f"{key}.state_features.", width, True, where, input_what=what)
        if states.output_width != weights.output_width:
            raise ParetoscopeError(
                f"{where}: {key}'s state features give {states.output_width} values, its weight "
                f"features {weights.output_width}; they must match"
            )
        net = read_layout(tensors, f"{key}.net.", states.output_width, False, where)
        _outputs(net, n_actions, env, f"{key}.net", where)
        layouts = {"weights_features": weights, "state_features": states, "net": net}
        support_shape: dict[str, tuple[int, ...]] = {}
        member_tensors = _renamed(tensors, f"{key}.", "")
        if position == 0:
            support = _support(data.get("M"), env, where)
            support_shape = {"support": tuple(support.shape)}
            member_tensors["support"] = support
        members.append(Parts(layouts, support_shape))
        named.update(_as_member(position, member_tensors))
    use_gpi = options.get("use_gpi", "true").lower()
    if use_gpi not in ("true", "false"):
        raise ParetoscopeError(
            f"--set use_gpi={printable(use_gpi, QUOTE_LIMIT)}: expected true or false"
        )
    return members, named, {"use_gpi": use_gpi == "true"}


def _support(value: Any, env: EnvSpec, where: str) -> torch.Tensor:
    if not isinstance(value, (list, tuple)) or not value:
        raise ParetoscopeError(f"{where}: 'M' (the weight support) must be a non-empty list")
    rows = []
    for index, weight in enumerate(value):
        tensor = torch.as_tensor(weight, dtype=torch.float32) if weight is not None else None
        if tensor is None or list(tensor.shape) != [env.n_obj]:
            raise ParetoscopeError(
                f"{where}: M[{index}] must be a weight of {env.n_obj} objectives, got "
                f"{None if tensor is None else list(tensor.shape)}"
            )
        rows.append(tensor)
    return torch.stack(rows)


def _read_pcn(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """PCN: the whole pickled model (read only when trusted); its state_dict."""
    state = data.state_dict() if isinstance(data, torch.nn.Module) else None
    if not isinstance(state, Mapping):
        raise ParetoscopeError(
            f"{where}: expected PCN's pickled model, found {type(data).__name__}"
        )
    tensors = dict(state)
    width, what = _inputs(env, False)
    s_emb = read_layout(tensors, "s_emb.", width, True, where, "sigmoid", input_what=what)
    c_emb = read_layout(
        tensors,
        "c_emb.",
        env.n_obj + 1,
        True,
        where,
        "sigmoid",
        input_what=f"{env.id}'s {env.n_obj} desired returns + the desired horizon",
    )
    fc = read_layout(tensors, "fc.", s_emb.output_width, False, where)
    outputs = int(env.n_actions) if env.n_actions else env.act_dim
    if fc.output_width != outputs:
        raise ParetoscopeError(
            f"{where}: tensor 'fc.{len(fc.slots) - 1}.weight' outputs {fc.output_width}, "
            f"{env.id} has {env.describe_actions()}"
        )
    if env.n_actions:  # its log-probabilities: argmax is taken of exactly what PCN computes
        fc = SequentialLayout((*fc.slots, ("log_softmax",)))
    scaling = _buffer(tensors, "scaling_factor", env.n_obj + 1, "the command", where)
    behaviour: dict[str, Any] = {"horizon": float(options["horizon"])}
    if options.get("max_return"):
        behaviour["max_return"] = _numbers(options["max_return"], env.n_obj, "max_return")
    # The desired return asked for: one given, else the env's known front (the point that
    # scores best under each preference).
    if options.get("desired_return"):
        behaviour["command_front"] = [
            _numbers(options["desired_return"], env.n_obj, "desired_return")
        ]
    elif (front := _known_front(env)) is not None:
        behaviour["command_front"] = front
    parts = Parts({"s_emb": s_emb, "c_emb": c_emb, "fc": fc}, {"scaling_factor": (env.n_obj + 1,)})
    named = {key: value for key, value in tensors.items() if key != "scaling_factor"}
    named["scaling_factor"] = scaling
    return [parts], _as_member(0, named), behaviour


def _numbers(text: str, count: int, name: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        values = []
    if len(values) != count or not all(np.isfinite(values)):
        raise ParetoscopeError(
            f"--set {name}={briefly(text)}: expected {count} numbers, comma-separated"
        )
    return values


def _known_front(env: EnvSpec) -> list[list[float]] | None:
    """The env's known Pareto front (undiscounted), the returns PCN is asked for by default."""
    from paretoscope.envs.known_fronts import known_front

    front = known_front(env.id, 1.0)
    return None if front is None else np.asarray(front.points, dtype=np.float64).tolist()


def _read_morld(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """MORL/D: ``archive_policy_<i>`` (+ ``_eval``) and ``population_policy_<i>`` MOSAC dicts."""
    sample = options.get("sample", "false").lower()
    if sample not in ("true", "false"):
        raise ParetoscopeError(
            f"--set sample={printable(sample, QUOTE_LIMIT)}: expected true or false"
        )
    which = options.get("members", "archive")
    if which not in ("archive", "population", "all"):
        raise ParetoscopeError(
            f"--set members={printable(which, QUOTE_LIMIT)}: expected archive, population or all"
        )
    groups = ("archive", "population") if which == "all" else (which,)
    keys = [
        key
        for group in groups
        for key in sorted(data, key=_index_of)
        if re.fullmatch(rf"{group}_policy_\d+", key)
    ]
    if not keys:
        other = "population" if which == "archive" else "archive"
        raise ParetoscopeError(
            f"{where}: no {which} policies in the file (try --set members={other})"
        )
    members, named, info = [], {}, []
    for position, key in enumerate(keys):
        policy = data[key]
        if not isinstance(policy, Mapping):
            raise ParetoscopeError(f"{where}: {briefly(key)} is not a MOSAC save dict")
        tensors = _state_dict(policy, "actor_state_dict", f"{where}: {key}")
        parts, member = _actor(
            tensors,
            "actor_state_dict.",
            "fc_mean",
            env,
            False,
            where,
            log_std="fc_logstd" if sample == "true" else None,
        )
        members.append(parts)
        named.update(_as_member(position, member))
        evaluation = data.get(f"{key}_eval")
        info.append(
            {
                "source": key,
                "weights": _vector(policy.get("weights"), env.n_obj, f"{key}.weights", where),
                "evaluation": None
                if evaluation is None
                else _vector(evaluation, env.n_obj, f"{key}_eval", where),
            }
        )
    return members, named, {"members": info, "sample": sample == "true"}


def _read_pgmorl(data: Any, env: EnvSpec, options: Mapping[str, str], where: str) -> Any:
    """PGMORL's archive saved as docs/agents.md shows: weights, evaluation, actor_mean."""
    _continuous(env, where)
    archive = data.get("pgmorl_archive")
    if not isinstance(archive, (list, tuple)) or not archive:
        raise ParetoscopeError(f"{where}: 'pgmorl_archive' must be a non-empty list")
    members, named, info = [], {}, []
    width, what = _inputs(env, False)
    for index, entry in enumerate(archive):
        if not isinstance(entry, Mapping):
            raise ParetoscopeError(f"{where}: pgmorl_archive[{index}] is not a dict")
        tensors = _state_dict(entry, "actor_mean", f"{where}: pgmorl_archive[{index}]")
        layout = read_layout(tensors, "actor_mean.", width, False, where, "tanh", input_what=what)
        if layout.output_width != env.act_dim:
            raise ParetoscopeError(
                f"{where}: pgmorl_archive[{index}]'s actor_mean outputs {layout.output_width} "
                f"actions, {env.id} has {env.act_dim}"
            )
        members.append(Parts({"actor_mean": layout}, {}))
        named.update(_as_member(index, tensors))
        info.append(
            {
                "source": f"pgmorl_archive[{index}]",
                "weights": _vector(entry.get("weights"), env.n_obj, "weights", where),
                "evaluation": _vector(entry.get("evaluation"), env.n_obj, "evaluation", where),
            }
        )
    return members, named, {"members": info}


def _vector(value: Any, count: int, name: str, where: str) -> list[float]:
    array = np.asarray(
        value.numpy() if isinstance(value, torch.Tensor) else value, dtype=np.float64
    )
    if array.shape != (count,) or not np.isfinite(array).all():
        raise ParetoscopeError(
            f"{where}: {name} must be {count} finite numbers, got {briefly(value)}"
        )
    return [float(number) for number in array]


def _index_of(key: str) -> tuple[str, int]:
    match = re.search(r"(\d+)$", key)
    return (key.rstrip("0123456789"), int(match.group(1)) if match else -1)


READERS: dict[str, Reader] = {
    "capql": _read_actor,
    "gpi-pd-continuous": _read_actor,
    "envelope": _read_envelope,
    "gpi-ls": _read_gpi,
    "gpi-pd": _read_gpi,
    "morld": _read_morld,
    "pcn": _read_pcn,
    "pgmorl": _read_pgmorl,
}
