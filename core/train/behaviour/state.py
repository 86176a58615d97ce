"""One member's training state, saved after every iteration as
``OUT/training/member-NNN.safetensors`` (at a snapshot iteration also as a copy in
``OUT/training/snapshots/``) and read back on a resume."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.atomic import write_bytes_atomically
from paretoscope.errors import ParetoscopeError
from paretoscope.train.ars import ObservationStats

TRAINING_DIR = "training"


# OUT/training/snapshots/: the members' states at the snapshot iterations.
MEMBER_SNAPSHOTS_DIR = "snapshots"
MEMBER_SNAPSHOT_NAME = re.compile(r"member-(\d+)-iteration-(\d+)\.safetensors")


@dataclass
class MemberState:
    """One member's training state, as saved after every iteration."""

    index: int
    preference: FloatArray
    matrix: FloatArray
    stats: ObservationStats
    iteration: int = 0
    env_steps: int = 0
    elapsed_seconds: float = 0.0
    history: list[float] = field(default_factory=list)  # mean scalarised return per iteration
    warm_started_from: int | None = None
    evaluated_iteration: int | None = None
    eval_returns: FloatArray | None = None  # (E, n_obj) noise-free episodes, no shift
    transfers: list[tuple[int, int]] = field(default_factory=list)  # (iteration, source member)

    @property
    def mean_return(self) -> FloatArray:
        """The mean of its evaluation episodes' return vectors."""
        return np.asarray(self.eval_returns).mean(axis=0)

    @property
    def evaluated(self) -> bool:
        return self.eval_returns is not None and self.evaluated_iteration == self.iteration


def member_path(out_dir: Path, index: int) -> Path:
    return out_dir / TRAINING_DIR / f"member-{index:03d}.safetensors"


def member_snapshot_path(out_dir: Path, index: int, iteration: int) -> Path:
    """Where member `index`'s state after `iteration` is kept for the snapshot there."""
    name = f"member-{index:03d}-iteration-{iteration}.safetensors"
    return out_dir / TRAINING_DIR / MEMBER_SNAPSHOTS_DIR / name


def save_member(path: Path, state: MemberState) -> None:
    """Write `state` atomically: the tensors plus a JSON header entry."""
    from safetensors.numpy import save as save_tensors

    tensors = {
        "matrix": np.ascontiguousarray(state.matrix),
        "obs_mean": np.ascontiguousarray(state.stats.mean),
        "obs_m2": np.ascontiguousarray(state.stats.m2),
        "preference": np.ascontiguousarray(state.preference),
    }
    if state.eval_returns is not None:
        tensors["eval_returns"] = np.ascontiguousarray(state.eval_returns)
    header = {
        "index": state.index,
        "obs_count": state.stats.count,
        "iteration": state.iteration,
        "env_steps": state.env_steps,
        "elapsed_seconds": state.elapsed_seconds,
        "history": state.history,
        "warm_started_from": state.warm_started_from,
        "evaluated_iteration": state.evaluated_iteration,
        "transfers": [list(pair) for pair in state.transfers],
    }
    write_bytes_atomically(path, save_tensors(tensors, metadata={"state": json.dumps(header)}))


def load_member(path: Path) -> MemberState:
    """Read a member state written by `save_member`; a damaged file raises with its path."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="numpy") as handle:
            header = json.loads((handle.metadata() or {})["state"])
            tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118
        stats = ObservationStats(int(header["obs_count"]), tensors["obs_mean"], tensors["obs_m2"])
        return MemberState(
            index=int(header["index"]),
            preference=tensors["preference"],
            matrix=tensors["matrix"],
            stats=stats,
            iteration=int(header["iteration"]),
            env_steps=int(header["env_steps"]),
            elapsed_seconds=float(header["elapsed_seconds"]),
            history=[float(value) for value in header["history"]],
            warm_started_from=header["warm_started_from"],
            evaluated_iteration=header["evaluated_iteration"],
            eval_returns=tensors.get("eval_returns"),
            transfers=[(int(it), int(src)) for it, src in header.get("transfers", [])],
        )
    except (SafetensorError, OSError, KeyError, TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"{path}: damaged training state ({error}); delete it to retrain that member"
        ) from None


def save_member_state(folder: Path, state: MemberState, snapshot_every: int | None) -> None:
    """Save a member's state; at a snapshot iteration, first a copy for that snapshot (so a
    member file at that iteration always has its copy, whenever the run was interrupted)."""
    if snapshot_every is not None and state.iteration > 0 and state.iteration % snapshot_every == 0:
        copy = member_snapshot_path(folder, state.index, state.iteration)
        copy.parent.mkdir(parents=True, exist_ok=True)
        save_member(copy, state)
    save_member(member_path(folder, state.index), state)
