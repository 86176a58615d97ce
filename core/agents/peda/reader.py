"""Read, inspect and import a PEDA checkpoint (see the package's docstring): the tensors read
without running code, the architecture inferred from them (`layout`), PEDA's constants attached
(`constants`) and the initial target model fitted on a D4MORL dataset or taken from PEDA's
published ones.
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

from paretoscope.agents.architecture import build_network
from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.agents.conditioned import AGENT_CLASSES, ConditionedAgent, ObservationNormalizer
from paretoscope.agents.importers import file_sha256
from paretoscope.agents.peda.constants import PEDA_OBSERVATION_STATISTICS, PEDA_SCALE
from paretoscope.agents.peda.layout import expected_shapes, infer_layout
from paretoscope.agents.peda.signature import SIGNATURE_KEYS, env_in_path, type_from_keys
from paretoscope.agents.target_model import (
    LinearTargetModel,
    fit_linear_target_model,
    published_target_model,
)
from paretoscope.envs import EnvSpec, get_spec, list_specs
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly
from paretoscope.torch_files import load_tensors

PathLike = str | os.PathLike[str]

# PEDA's model types and the paretoscope kinds they become.
PEDA_KINDS: dict[str, str] = {"dt": "modt", "rvs": "morvs", "bc": "bc"}


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
                infer_layout(peda_type, tensors, env, n_head=1)
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
    if peda_type not in PEDA_KINDS:
        raise ParetoscopeError(f"type: {briefly(peda_type)}, expected one of {sorted(PEDA_KINDS)}")
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
        layout = infer_layout(peda_type, tensors, env, n_head=n_head)
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{location}: {error}") from None

    kind = PEDA_KINDS[peda_type]
    spec = AgentSpec(
        env_id=env.id,
        n_obj=env.n_obj,
        obs_dim=env.obs_dim,
        act_dim=env.act_dim,
        kind=AGENT_CLASSES[kind].kind,
        conditioning=layout.conditioning,
    )
    expected = expected_shapes(spec, layout.architecture)
    mapped: dict[str, torch.Tensor] = {}
    for peda_key, our_key in layout.key_map.items():
        tensor = tensors[peda_key]
        if list(tensor.shape) != expected[our_key]:
            raise ParetoscopeError(
                f"{location}: tensor {briefly(peda_key)} has shape {list(tensor.shape)}, but the "
                f"architecture read from the other tensors ({layout.describe()}) needs "
                f"{expected[our_key]}"
            )
        if not tensor.is_floating_point():
            raise ParetoscopeError(
                f"{location}: tensor {briefly(peda_key)} has dtype {tensor.dtype}"
            )
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
