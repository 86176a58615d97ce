"""paretoscope's agent checkpoint: a JSON config plus safetensors weights, no code anywhere.

Layout (format "paretoscope-agent", version 1; docs/agents.md has every field):
- a directory with ``config.json`` and ``weights.safetensors``; or
- a single ``.safetensors`` file whose header metadata holds the same config under the key
  ``paretoscope_config`` (handy for downloads; torch kinds only).

Every config starts with ``format``, ``format_version``, ``kind``, ``env_id``, ``n_obj``,
``obs_dim``, ``act_dim`` and ``conditioning``; the rest belongs to the kind. `load` checks the
common part against `paretoscope.envs.get_spec(env_id)` before anything is built, then hands over to
the kind's loader from a small registry (`register_kind`), so new kinds plug in without
touching this module. Loading never unpickles anything: JSON and safetensors only.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

from paretoscope.agents.architecture import (
    architecture_from_dict,
    build_network,
    check_parameter_count,
    planned_parameters,
)
from paretoscope.agents.base import Agent, AgentSpec, Conditioning, check_config_fits_env
from paretoscope.agents.checkpoint_header import (
    CONFIG_FILE,
    CONFIG_METADATA_KEY,
    FORMAT,
    FORMAT_VERSION,
    WEIGHTS_FILE,
)
from paretoscope.agents.conditioned import (
    AGENT_CLASSES,
    ConditionedAgent,
    ObservationNormalizer,
)
from paretoscope.agents.target_model import LinearTargetModel
from paretoscope.atomic import write_bytes_atomically
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.jsonfile import loads
from paretoscope.registry import Registry
from paretoscope.text import briefly, quoted

PathLike = str | os.PathLike[str]
# (checkpoint path as given, its parsed config, device) -> agent
Loader = Callable[[Path, dict[str, Any], str], Agent]
# (agent, destination directory) -> the directory written
Saver = Callable[[Any, Path], Path]

KIND_LOADERS: Registry[Loader] = Registry("agent kind")
KIND_SAVERS: Registry[Saver] = Registry("checkpoint writer")


def register_kind(
    kind: str, loader: Loader | str, saver: Saver | str | None = None, replace: bool = False
) -> None:
    """Teach `load` (and `save`) a kind. A string "module:function" is imported on first use; a
    kind already known is refused unless `replace`."""
    KIND_LOADERS.register(kind, loader, replace=replace)
    if saver is not None:  # a saver is registered with its kind's loader, never alone
        KIND_SAVERS.register(kind, saver, replace=replace)


def known_kinds() -> list[str]:
    return sorted(KIND_LOADERS.names())


# --- reading -------------------------------------------------------------------------------------


def read_config(path: PathLike) -> dict[str, Any]:
    """The config of a checkpoint (directory or single file), with the common part validated."""
    location = Path(path)
    if location.is_dir():
        config_path = location / CONFIG_FILE
        if not config_path.is_file():
            raise ParetoscopeError(
                f"{location}: not a paretoscope checkpoint ({CONFIG_FILE} is missing)"
            )
        config = loads(config_path.read_bytes(), config_path)
        where = str(config_path)
    elif location.is_file():
        config = _single_file_config(location)
        where = str(location)
    else:
        raise ParetoscopeError(f"{location}: no such checkpoint file or directory")
    if not isinstance(config, dict):
        raise ParetoscopeError(f"{where}: expected a JSON object")
    check_common_config(config, where)
    return config


def check_common_config(config: Mapping[str, Any], where: str) -> None:
    """Format, version, kind and the env dims; raises naming the first field that is wrong."""
    if config.get("format") != FORMAT:
        raise ParetoscopeError(
            f"{where}: format is {briefly(config.get('format'))}, expected {FORMAT!r}"
        )
    if config.get("format_version") != FORMAT_VERSION:
        raise ParetoscopeError(
            f"{where}: format_version is {briefly(config.get('format_version'))}; this paretoscope "
            f"reads version {FORMAT_VERSION}"
        )
    kind = config.get("kind")
    if kind not in KIND_LOADERS:
        raise ParetoscopeError(f"{where}: kind is {briefly(kind)}, expected one of {known_kinds()}")
    check_config_fits_env(config, where)
    if not isinstance(config.get("conditioning"), Mapping):
        raise ParetoscopeError(f"{where}: conditioning must be an object")


def load(path: PathLike, device: str = "cpu") -> Agent:
    """Rebuild the agent saved at `path` (directory or single file) on `device`."""
    location = Path(path)
    if location.is_file() and location.suffix in (".ckpt", ".pt", ".pth", ".tar"):
        raise ParetoscopeError(
            f"{location}: a torch checkpoint, not a paretoscope one; if PEDA or MORL-Baselines "
            "wrote it, import it with `paretoscope agent import FILE [--env ID] --out DIR`"
        )
    config = read_config(location)
    return KIND_LOADERS.get(config["kind"])(location, config, device)


def parameter_count(path: PathLike) -> int:
    """Number of stored weights (tensor elements), read from the safetensors header only."""
    from safetensors import safe_open

    weights = weights_path(Path(path))
    total = 0
    with _safetensors_errors(weights), safe_open(str(weights), framework="np") as handle:
        for key in handle.keys():  # noqa: SIM118 - safe_open is not a mapping
            total += int(np.prod(handle.get_slice(key).get_shape()))
    return total


# --- writing -------------------------------------------------------------------------------------


def save(agent: Agent, path: PathLike, single_file: bool = False) -> Path:
    """Write `agent` to `path`: a directory (default) or, with `single_file`, one .safetensors."""
    destination = Path(path)
    if isinstance(agent, ConditionedAgent):
        return _save_conditioned(agent, destination, single_file)
    if agent.spec.kind not in KIND_SAVERS:
        raise ParetoscopeError(f"save: no checkpoint writer for kind {agent.spec.kind!r}")
    if single_file:
        raise ParetoscopeError(f"save: kind {agent.spec.kind!r} is saved as a directory only")
    return KIND_SAVERS.get(agent.spec.kind)(agent, destination)


def versions() -> dict[str, str]:
    """Library versions recorded in every config (informational; loading ignores them)."""
    import safetensors

    from paretoscope import __version__

    return {
        "paretoscope": __version__,
        "torch": torch.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def build_config(agent: ConditionedAgent) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """The full config.json content of a torch agent (without the weights digest) and tensors."""
    body, tensors = agent.checkpoint_state()
    return checkpoint_config(agent.spec, body, tensors), tensors


def checkpoint_config(
    spec: AgentSpec, body: Mapping[str, Any], tensors: Mapping[str, torch.Tensor]
) -> dict[str, Any]:
    """A config.json: the common part from `spec`, then the kind's `body`, versions, weights."""
    record = spec.to_dict()
    optional: dict[str, Any] = {k: record[k] for k in ("n_actions", "obs_shape") if k in record}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": spec.kind,
        "env_id": spec.env_id,
        "n_obj": spec.n_obj,
        "obs_dim": spec.obs_dim,
        "act_dim": spec.act_dim,
        "conditioning": record["conditioning"],
        **optional,
        **body,
        "versions": versions(),
        "weights": {
            "file": WEIGHTS_FILE,
            "sha256": None,
            "parameter_count": int(sum(tensor.numel() for tensor in tensors.values())),
        },
    }


def write_checkpoint(
    spec: AgentSpec,
    body: Mapping[str, Any],
    tensors: Mapping[str, torch.Tensor],
    destination: Path,
) -> Path:
    """Write a checkpoint directory: config.json (`checkpoint_config`) + weights.safetensors."""
    return _write_directory(checkpoint_config(spec, body, tensors), dict(tensors), destination)


def _save_conditioned(agent: ConditionedAgent, destination: Path, single_file: bool) -> Path:
    from safetensors.torch import save as tensors_to_bytes

    config, tensors = build_config(agent)
    if single_file:
        if destination.suffix != ".safetensors":
            raise ParetoscopeError(f"{destination}: a single-file checkpoint ends in .safetensors")
        config["weights"]["file"] = None
        metadata = {CONFIG_METADATA_KEY: _to_json(config)}
        make_folder(destination.parent)
        write_bytes_atomically(destination, tensors_to_bytes(tensors, metadata=metadata))
        return destination
    return _write_directory(config, tensors, destination)


def _write_directory(
    config: dict[str, Any], tensors: dict[str, torch.Tensor], destination: Path
) -> Path:
    from safetensors.torch import save as tensors_to_bytes

    make_folder(destination)
    payload = tensors_to_bytes(tensors)
    config["weights"]["sha256"] = hashlib.sha256(payload).hexdigest()
    write_bytes_atomically(destination / WEIGHTS_FILE, payload)
    write_bytes_atomically(destination / CONFIG_FILE, _to_json(config).encode("utf-8"))
    return destination


def _to_json(config: Mapping[str, Any]) -> str:
    try:
        return json.dumps(config, indent=2, allow_nan=False)
    except ValueError as error:
        raise ParetoscopeError(f"config: not JSON-safe ({error}); NaN or infinity?") from None


# --- the torch kinds (morvs, bc, modt) -----------------------------------------------------------


def load_conditioned(path: Path, config: dict[str, Any], device: str = "cpu") -> ConditionedAgent:
    """Rebuild a MORvS / BC / MODT agent: config checked field by field, weights by shape."""
    where = str(path / CONFIG_FILE if path.is_dir() else path)
    kind = config["kind"]
    cls = AGENT_CLASSES[kind]
    spec = AgentSpec(
        env_id=config["env_id"],
        n_obj=config["n_obj"],
        obs_dim=config["obs_dim"],
        act_dim=config["act_dim"],
        kind=cls.kind,
        conditioning=_conditioning(config["conditioning"], where),
    )
    try:
        architecture = architecture_from_dict(kind, _field(config, "architecture", where))
        normalizer = ObservationNormalizer.from_dict(
            _field(config, "observation_normalization", where), spec.obs_dim
        )
        target_data = config.get("target_model")
        target_model = (
            None if target_data is None else LinearTargetModel.from_dict(target_data, spec.n_obj)
        )
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{where}: {error}") from None
    rtg_scale = _number(config, "rtg_scale", where)
    bound = _field(config, "action_bound", where)
    weighted = _field(config, "preference_weighted_return", where)
    if not isinstance(weighted, bool):
        raise ParetoscopeError(f"{where}: preference_weighted_return must be true or false")
    training = config.get("training") or {}
    if not isinstance(training, Mapping):
        raise ParetoscopeError(f"{where}: training must be an object")

    tensors = read_weights(path, config)
    planned = planned_parameters(lambda: build_network(spec, architecture))
    check_parameter_count(planned, f"{where}: architecture", weights_path(path).stat().st_size)
    network = build_network(spec, architecture)
    _load_checked(network, tensors, weights_path(path))
    try:
        return cls(
            spec=spec,
            architecture=architecture,
            network=network,
            normalizer=normalizer,
            action_bound=bound,
            target_model=target_model,
            rtg_scale=rtg_scale,
            preference_weighted_return=weighted,
            training=training,
            device=device,
        )
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{where}: {error}") from None


def check_weights(
    network: torch.nn.Module, tensors: Mapping[str, torch.Tensor], source: str
) -> None:
    """Every tensor the network expects is there, with its shape; nothing else is there."""
    expected = network.state_dict()
    missing = [name for name in expected if name not in tensors]
    if missing:
        raise ParetoscopeError(
            f"{source}: missing tensor(s) {missing[:5]}{' ...' if len(missing) > 5 else ''} "
            f"({len(missing)} of {len(expected)})"
        )
    unexpected = [name for name in tensors if name not in expected]
    if unexpected:
        raise ParetoscopeError(
            f"{source}: unexpected tensor(s) {unexpected[:5]}"
            f"{' ...' if len(unexpected) > 5 else ''} for this architecture"
        )
    for name, reference in expected.items():
        tensor = tensors[name]
        if tuple(tensor.shape) != tuple(reference.shape):
            raise ParetoscopeError(
                f"{source}: tensor {briefly(name)} has shape {list(tensor.shape)}, the "
                "architecture "
                f"in the config needs {list(reference.shape)}"
            )
        if not tensor.is_floating_point():
            raise ParetoscopeError(
                f"{source}: tensor {briefly(name)} has dtype {tensor.dtype}, expected floats"
            )
        if not torch.isfinite(tensor).all():
            raise ParetoscopeError(f"{source}: tensor {briefly(name)} holds NaN or infinite values")


def _load_checked(
    network: torch.nn.Module, tensors: Mapping[str, torch.Tensor], source: Path
) -> None:
    check_weights(network, tensors, str(source))
    network.load_state_dict({name: tensor.to(torch.float32) for name, tensor in tensors.items()})


def read_weights(path: Path, config: Mapping[str, Any]) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors, after checking them against the digest its config records."""
    from safetensors.torch import load as tensors_from_bytes

    weights = weights_path(path)
    if not weights.is_file():
        raise ParetoscopeError(f"{path}: {weights.name} is missing")
    record = config.get("weights") or {}
    if not isinstance(record, Mapping):
        where = path / CONFIG_FILE if path.is_dir() else path
        raise ParetoscopeError(f"{where}: weights must be an object, got {quoted(record)}")
    payload = weights.read_bytes()
    expected_digest = record.get("sha256") if path.is_dir() else None
    if expected_digest is not None and hashlib.sha256(payload).hexdigest() != expected_digest:
        raise ParetoscopeError(
            f"{weights}: does not match {CONFIG_FILE} (sha256 differs): the weights were "
            "truncated, modified, or come from another save"
        )
    with _safetensors_errors(weights):
        return tensors_from_bytes(payload)


def weights_path(path: Path) -> Path:
    return path / WEIGHTS_FILE if path.is_dir() else path


def _single_file_config(path: Path) -> Any:
    from safetensors import safe_open

    with _safetensors_errors(path), safe_open(str(path), framework="np") as handle:
        metadata = handle.metadata() or {}
    text = metadata.get(CONFIG_METADATA_KEY)
    if text is None:
        raise ParetoscopeError(
            f"{path}: a safetensors file without a paretoscope config (metadata key "
            f"{CONFIG_METADATA_KEY!r}); save agents with paretoscope.agents.save"
        )
    return loads(text, f"{path}: the embedded config")


@contextmanager
def _safetensors_errors(path: Path) -> Iterator[None]:
    """Turn safetensors' errors about a damaged or foreign file into a ParetoscopeError."""
    from safetensors import SafetensorError

    try:
        yield
    except (SafetensorError, OSError, ValueError, RuntimeError) as error:
        raise ParetoscopeError(
            f"{path}: not a readable safetensors file (truncated or not safetensors: {error})"
        ) from None


def _conditioning(data: Mapping[str, Any], where: str) -> Conditioning:
    defaults = Conditioning()
    values: dict[str, bool] = {}
    for name in defaults.__dataclass_fields__:
        value = data.get(name)
        if not isinstance(value, bool):
            raise ParetoscopeError(f"{where}: conditioning.{name} must be true or false")
        values[name] = value
    unknown = sorted(set(data) - set(values))
    if unknown:
        raise ParetoscopeError(f"{where}: unknown conditioning field(s) {unknown}")
    return Conditioning(**values)


def _field(config: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in config:
        raise ParetoscopeError(f"{where}: the config has no {name!r}")
    return config[name]


def _number(config: Mapping[str, Any], name: str, where: str) -> float:
    value = _field(config, name, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParetoscopeError(f"{where}: {name} must be a number, got {briefly(value)}")
    return float(value)


# --- policy sets (paretoscope.agents.policy_set keeps its own reader and writer)
# -------------------------


def _load_policy_set(path: Path, config: dict[str, Any], device: str = "cpu") -> Agent:
    from paretoscope.agents.policy_set import load_policy_set

    if not path.is_dir():
        raise ParetoscopeError(f"{path}: a policy set is stored as a directory")
    return cast(Agent, load_policy_set(path))


def _save_policy_set(agent: Any, path: Path) -> Path:
    from paretoscope.agents.policy_set import save_policy_set

    return cast(Path, save_policy_set(agent, path))


for _kind in AGENT_CLASSES:
    register_kind(_kind, load_conditioned)
register_kind("policy_set", _load_policy_set, _save_policy_set)
for _kind in ("morlb_actor", "morlb_envelope", "morlb_gpi", "morlb_pcn", "morlb_actor_set"):
    register_kind(
        _kind,
        "paretoscope.agents.morlb.agents:load_morlb",
        "paretoscope.agents.morlb.agents:save_morlb",
    )
