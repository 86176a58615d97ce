"""`PolicySetAgent`: a finite set of single-preference linear policies.

This is what PGMORL-style methods and the behaviour-policy trainer (`paretoscope.train.behaviour`)
produce: K members, each trained for one preference. For every batch row the member whose
preference is nearest (Euclidean) to the row's preference acts: it normalises the raw
observation with its own running mean/std, applies its linear map and clips to the action
bounds. Ties go to the member listed first. Targets are ignored (not return-conditioned).

Checkpoint layout (a directory, no code inside):
- ``config.json``: ``format`` "paretoscope-agent", ``format_version`` 1, ``kind`` "policy_set",
  env_id, n_obj, obs_dim, act_dim, conditioning, and ``members``: per member its preference,
  observation mean and std, and (when measured) its mean return vector; optional ``training``
  metadata (method, hyper-parameters) that loading ignores.
- ``weights.safetensors``: ``matrices`` of shape (K, act_dim, obs_dim), float64; its sha256
  is recorded in config.json (``weights.sha256``) so a config never pairs with other weights.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from paretoscope.agents.base import AgentSpec, Conditioning, check_config_fits_env
from paretoscope.atomic import write_bytes_atomically
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.jsonfile import loads
from paretoscope.text import briefly

FloatArray = npt.NDArray[np.float64]

KIND: Final = "policy_set"
FORMAT = "paretoscope-agent"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.safetensors"
MATRICES_TENSOR = "matrices"

# The preference only selects a member; no network input carries it, and targets are unused.
POLICY_SET_CONDITIONING = Conditioning(
    preference_in_state=False,
    preference_in_return=False,
    preference_in_action=False,
    return_conditioned=False,
    vector_return=False,
)


def linear_actions(
    matrices: FloatArray,
    obs_mean: FloatArray,
    obs_std: FloatArray,
    observations: FloatArray,
    action_low: FloatArray,
    action_high: FloatArray,
) -> FloatArray:
    """clip(M_b · (o_b − mean_b) / std_b) per row b: the one formula training and acting share.

    Shapes: matrices (B, act_dim, obs_dim), obs_mean/obs_std/observations (B, obs_dim);
    returns (B, act_dim) float64. Each row is computed on its own (no cross-row arithmetic).
    """
    normalised = (observations - obs_mean) / obs_std
    raw = np.einsum("bij,bj->bi", matrices, normalised)
    return np.clip(raw, action_low, action_high)


def _as_array(name: str, value: object, shape: tuple[int, ...]) -> FloatArray:
    """`value` as a finite float64 array of exactly `shape`, or a ParetoscopeError naming it."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"{name}: expected numbers of shape {shape}") from None
    if array.shape != shape:
        raise ParetoscopeError(f"{name}: expected shape {shape}, got {array.shape}")
    if not np.isfinite(array).all():
        raise ParetoscopeError(f"{name}: expected finite numbers, found NaN or infinity")
    return array


class PolicySetAgent:
    """K linear policies, one per preference; the nearest member answers each batch row."""

    def __init__(
        self,
        env_id: str,
        preferences: object,
        matrices: object,
        obs_mean: object,
        obs_std: object,
        mean_returns: object | None = None,
        training: Mapping[str, Any] | None = None,
    ) -> None:
        env = get_spec(env_id)
        n_obj, obs_dim, act_dim = env.n_obj, env.obs_dim, env.act_dim
        preference_array = np.array(preferences, dtype=np.float64, ndmin=2)
        count = preference_array.shape[0]
        if preference_array.ndim != 2 or count == 0:
            raise ParetoscopeError(
                f"preferences: expected at least one row of shape (K, {n_obj}), "
                f"got {preference_array.shape}"
            )
        self.preferences = _as_array("preferences", preference_array, (count, n_obj))
        if (self.preferences < 0).any() or not np.allclose(
            self.preferences.sum(axis=1), 1.0, atol=1e-6
        ):
            raise ParetoscopeError(
                "preferences: every member's preference must be non-negative and sum to 1"
            )
        self.matrices = _as_array("matrices", matrices, (count, act_dim, obs_dim))
        self.obs_mean = _as_array("obs_mean", obs_mean, (count, obs_dim))
        self.obs_std = _as_array("obs_std", obs_std, (count, obs_dim))
        if (self.obs_std <= 0).any():
            raise ParetoscopeError("obs_std: every observation std must be positive")
        self.mean_returns = (
            None
            if mean_returns is None
            else _as_array("mean_returns", mean_returns, (count, n_obj))
        )
        self.training: dict[str, Any] = dict(training or {})
        self.action_low = np.asarray(env.action_low, dtype=np.float64)
        self.action_high = np.asarray(env.action_high, dtype=np.float64)
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=n_obj,
            obs_dim=obs_dim,
            act_dim=act_dim,
            kind=KIND,
            conditioning=POLICY_SET_CONDITIONING,
        )

    @property
    def size(self) -> int:
        """Number of members K."""
        return int(self.preferences.shape[0])

    # --- the Agent protocol -----------------------------------------------------------------

    def reset(self, batch_size: int) -> None:
        """Nothing to reset: the members are stateless."""
        if int(batch_size) < 0:
            raise ParetoscopeError(f"batch_size must be non-negative, got {batch_size}")

    def nearest_members(self, preferences: np.ndarray) -> npt.NDArray[np.int64]:
        """Index of the member nearest (Euclidean) to each row; ties go to the lower index."""
        rows = self._check_rows("preferences", preferences, self.spec.n_obj)
        squared = ((rows[:, None, :] - self.preferences[None, :, :]) ** 2).sum(axis=2)
        return np.argmin(squared, axis=1).astype(np.int64)

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        """Each row's action from the member nearest to its preference; targets are unused."""
        obs = self._check_rows("observations", observations, self.spec.obs_dim)
        members = self.nearest_members(preferences)
        if members.shape[0] != obs.shape[0]:
            raise ParetoscopeError(
                f"preferences: expected {obs.shape[0]} rows (one per observation), "
                f"got {members.shape[0]}"
            )
        return linear_actions(
            self.matrices[members],
            self.obs_mean[members],
            self.obs_std[members],
            obs,
            self.action_low,
            self.action_high,
        )

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        """The nearest member's measured mean return when stored, zeros otherwise."""
        members = self.nearest_members(preferences)
        if self.mean_returns is None:
            return np.zeros((members.shape[0], self.spec.n_obj))
        return self.mean_returns[members].copy()

    @staticmethod
    def _check_rows(name: str, value: np.ndarray, width: int) -> FloatArray:
        array = np.asarray(value, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != width:
            raise ParetoscopeError(f"{name}: expected shape (B, {width}), got {array.shape}")
        if not np.isfinite(array).all():
            raise ParetoscopeError(f"{name}: expected finite numbers, found NaN or infinity")
        return array

    # --- checkpoint pieces --------------------------------------------------------------------

    def checkpoint_config(self) -> dict[str, Any]:
        """The JSON-ready config.json content (floats round-trip exactly through JSON)."""
        members = []
        for index in range(self.size):
            members.append(
                {
                    "preference": self.preferences[index].tolist(),
                    "obs_mean": self.obs_mean[index].tolist(),
                    "obs_std": self.obs_std[index].tolist(),
                    "mean_return": None
                    if self.mean_returns is None
                    else self.mean_returns[index].tolist(),
                }
            )
        spec = self.spec
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "kind": KIND,
            "env_id": spec.env_id,
            "n_obj": spec.n_obj,
            "obs_dim": spec.obs_dim,
            "act_dim": spec.act_dim,
            "conditioning": spec.to_dict()["conditioning"],
            "members": members,
            "training": self.training,
        }

    def checkpoint_tensors(self) -> dict[str, np.ndarray]:
        """The arrays that go to weights.safetensors."""
        return {MATRICES_TENSOR: np.ascontiguousarray(self.matrices)}

    def fingerprint(self) -> str:
        """A digest of everything that decides the actions (members and weights, not provenance).

        Stored mean returns are left out too: they describe the policies, they do not act.
        """
        config = self.checkpoint_config()
        config.pop("training")
        for member in config["members"]:
            member.pop("mean_return")
        digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode("utf-8"))
        digest.update(np.ascontiguousarray(self.matrices).tobytes())
        return digest.hexdigest()[:32]

    @classmethod
    def from_checkpoint(
        cls,
        config: Mapping[str, Any],
        tensors: Mapping[str, np.ndarray],
        source: str = "checkpoint",
    ) -> PolicySetAgent:
        """Rebuild from a config dict and its tensors; anything missing or malformed raises."""
        if config.get("kind") != KIND:
            raise ParetoscopeError(
                f"{source}: kind is {briefly(config.get('kind'))}, expected {KIND!r}"
            )
        env_id = check_config_fits_env(config, source).id
        members = config.get("members")
        if not isinstance(members, list) or not members:
            raise ParetoscopeError(f"{source}: config field 'members' must be a non-empty list")
        try:
            preferences = [member["preference"] for member in members]
            obs_mean = [member["obs_mean"] for member in members]
            obs_std = [member["obs_std"] for member in members]
            returns = [member.get("mean_return") for member in members]
        except (KeyError, TypeError) as error:
            raise ParetoscopeError(
                f"{source}: every member needs 'preference', 'obs_mean' and 'obs_std' ({error})"
            ) from None
        if all(value is None for value in returns):
            mean_returns = None
        elif any(value is None for value in returns):
            raise ParetoscopeError(f"{source}: 'mean_return' is given for some members only")
        else:
            mean_returns = returns
        if MATRICES_TENSOR not in tensors:
            raise ParetoscopeError(f"{source}: weights have no tensor {MATRICES_TENSOR!r}")
        training = config.get("training") or {}
        if not isinstance(training, Mapping):
            raise ParetoscopeError(f"{source}: config field 'training' must be an object")
        return cls(
            env_id,
            preferences,
            np.asarray(tensors[MATRICES_TENSOR], dtype=np.float64),
            obs_mean,
            obs_std,
            mean_returns,
            training,
        )


# --- saving and loading a policy-set directory ---------------------------------------------------


def save_policy_set(agent: PolicySetAgent, directory: str | os.PathLike[str]) -> Path:
    """Write `agent` as config.json + weights.safetensors into `directory` (created if needed)."""
    from safetensors.numpy import save as save_tensors

    folder = Path(directory)
    make_folder(folder)
    payload = save_tensors(agent.checkpoint_tensors())
    config = agent.checkpoint_config()
    config["weights"] = {"file": WEIGHTS_FILE, "sha256": hashlib.sha256(payload).hexdigest()}
    write_bytes_atomically(folder / WEIGHTS_FILE, payload)
    config_text = json.dumps(config, indent=2, allow_nan=False)
    write_bytes_atomically(folder / CONFIG_FILE, config_text.encode("utf-8"))
    return folder


def load_policy_set(directory: str | os.PathLike[str]) -> PolicySetAgent:
    """Read a policy set written by `save_policy_set`; a bad or partial checkpoint raises."""
    from safetensors import SafetensorError
    from safetensors.numpy import load as load_tensors

    folder = Path(directory)
    config_path, weights_path = folder / CONFIG_FILE, folder / WEIGHTS_FILE
    for path in (config_path, weights_path):
        if not path.is_file():
            raise ParetoscopeError(f"{folder}: not a policy-set checkpoint ({path.name} missing)")
    config = loads(config_path.read_bytes(), config_path)
    if not isinstance(config, dict):
        raise ParetoscopeError(f"{config_path}: expected a JSON object")
    if config.get("format") != FORMAT or config.get("format_version") != FORMAT_VERSION:
        raise ParetoscopeError(
            f"{config_path}: format {briefly(config.get('format'))} version "
            f"{briefly(config.get('format_version'))}, expected {FORMAT!r} version {FORMAT_VERSION}"
        )
    payload = weights_path.read_bytes()
    weights_info = config.get("weights") or {}
    if not isinstance(weights_info, dict):
        raise ParetoscopeError(f"{config_path}: config field 'weights' must be an object")
    digest = weights_info.get("sha256")
    if digest is not None and hashlib.sha256(payload).hexdigest() != digest:
        raise ParetoscopeError(
            f"{weights_path}: does not match {CONFIG_FILE} (sha256 differs): the weights were "
            "truncated, modified, or come from another save"
        )
    try:
        tensors = load_tensors(payload)
    except (SafetensorError, OSError, ValueError) as error:
        raise ParetoscopeError(
            f"{weights_path}: not a readable safetensors file ({error})"
        ) from None
    return PolicySetAgent.from_checkpoint(config, tensors, source=str(config_path))
