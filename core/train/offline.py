"""Offline trainers for MORvS, BC and MODT: supervised action regression on a dataset (PEDA).

`train_offline(kind, data, out_dir)` reads top to bottom like a CleanRL script:

1. open the dataset, check it fits the env, take its fingerprint;
2. build a fresh agent: observation normalisation from the data, PEDA's linear initial-target
   model fitted on the data's (preference, return) pairs, the seeded network;
3. each step: draw a batch (`paretoscope.train.batches`), set the warm-up learning rate, minimise
the
   MSE between predicted and dataset actions (divided by the action bound) with AdamW;
4. every `checkpoint_every` steps: save the training state and the agent atomically; every
   `snapshot_every` steps (when set) and at the end: a snapshot of the agent
   (`paretoscope.train.snapshots`);
5. at the end: save the agent with `paretoscope.agents.checkpoint.save` into `out_dir`.

PEDA's conventions (docs/reference.md#training): batch 64, AdamW lr 1e-4, weight decay 1e-3, linear
warm-up over 10k steps (shortened to a tenth of the run for runs under 100k steps), gradient
norm clipped at 0.25 for MODT only, MODT trained with context 20.

Determinism: the randomness of step i (batch and dropout) is drawn from (seed, i) alone, and
the state saved at a checkpoint is everything else that changes (weights, AdamW moments and
step counts; the learning rate is a function of the step). So on CPU a run that is stopped and
resumed ends bit-identical to one that was not, and two runs with the same seed are equal.
The caller's global torch RNG and deterministic-algorithms flag are restored afterwards.

Layout of `out_dir`:

    config.json, weights.safetensors   the agent (latest checkpoint, then the final one)
    training/run.json                  settings that fix the outcome; a resume must match them
    training/state.pt                  step, weights, optimizer state, loss history
                                       (torch.save of tensors and plain values only; read back
                                       with weights_only=True)
    snapshots/step=N/                  with `snapshot_every`: the agent after N steps, a
                                       checkpoint equal to the one a run of exactly N steps
                                       saves (kept when the run is resumed)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from paretoscope.agents.architecture import (
    ARCHITECTURES,
    Architecture,
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
    architecture_to_dict,
)
from paretoscope.agents.checkpoint import save as save_agent
from paretoscope.agents.conditioned import (
    AGENT_CLASSES,
    DEFAULT_CONDITIONING,
    ConditionedAgent,
    ObservationNormalizer,
    create_agent,
)
from paretoscope.agents.target_model import fit_linear_target_model
from paretoscope.data.d4morl import parse_d4morl_name
from paretoscope.data.sources import open_dataset
from paretoscope.data.trajectories import Trajectories
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.jsonfile import read_json_object
from paretoscope.settings import NetworkSettings, OfflineTrainingSettings
from paretoscope.settings.fields import setting_fields
from paretoscope.text import QUOTE_LIMIT, changes, printable
from paretoscope.torch_files import load_tensors
from paretoscope.train.batches import (
    BATCH_BUILDERS,
    TrainingData,
    action_loss,
    observation_statistics,
    sample_steps,
)
from paretoscope.train.snapshots import write_snapshot

OFFLINE_KINDS = ("morvs", "bc", "modt")
RUN_FORMAT = "paretoscope-offline-run"
RUN_FORMAT_VERSION = 1
TRAINING_DIR = "training"
RUN_FILE = "run.json"
STATE_FILE = "state.pt"
# Settings that may change between a run and its resume (absent from older run.json files).
RESUMABLE_CHANGES = ("steps", "checkpoint_every", "snapshot_every")

StepCallback = Callable[[int, float], None]


def learning_rate_at(settings: OfflineTrainingSettings, step: int) -> float:
    """PEDA's LambdaLR schedule: lr · min((step + 1) / warmup, 1) for the 0-based step."""
    assert settings.warmup_steps is not None
    return settings.learning_rate * min((step + 1) / settings.warmup_steps, 1.0)


def default_architecture(kind: str, trajectories: Trajectories) -> Architecture:
    """PEDA's default sizes; MORvS's goal divides by the episode length the data were collected
    with, MODT's timestep table covers the env's horizon."""
    if kind == "modt":
        return TransformerArchitecture(max_timestep=get_spec(trajectories.info.env_id).horizon)
    if kind == "morvs":
        return MORvSArchitecture(horizon=trajectories.info.horizon)
    return BCArchitecture()


def architecture_changes(kind: str, network: NetworkSettings) -> dict[str, Any]:
    """The fields of `kind`'s default architecture that `network` changes (PEDA's names)."""
    for field in setting_fields(NetworkSettings):
        if getattr(network, field.name) is not None and not field.offered_for(kind):
            raise ParetoscopeError(f"{field.name}: a {kind} agent has no such setting")
    changes: dict[str, Any] = {}
    if network.dropout is not None:
        changes["dropout"] = network.dropout
    if kind == "modt":
        for option, name in (
            ("hidden", "hidden_size"),
            ("layers", "n_layer"),
            ("heads", "n_head"),
            ("inner", "inner_size"),
            ("context", "context_length"),
            ("train_context", "train_context_length"),
        ):
            if getattr(network, option) is not None:
                changes[name] = getattr(network, option)
        if network.hidden is not None and network.inner is None:
            changes["inner_size"] = 4 * network.hidden  # PEDA: n_inner = 4 * embed_dim
        return changes
    if network.hidden is not None or network.layers is not None:
        default_sizes = ARCHITECTURES[kind]().hidden_sizes  # type: ignore[union-attr]
        width = network.hidden if network.hidden is not None else default_sizes[0]
        depth = network.layers if network.layers is not None else len(default_sizes)
        changes["hidden_sizes"] = (width,) * depth
    if kind == "bc" and network.context is not None:
        changes["context_length"] = network.context
    if kind == "morvs" and network.horizon is not None:
        changes["horizon"] = network.horizon
    return changes


# --- the trainer ---------------------------------------------------------------------------------


def train_offline(
    kind: str,
    data: str | os.PathLike[str] | Trajectories,
    out_dir: str | os.PathLike[str],
    settings: OfflineTrainingSettings | None = None,
    architecture: Architecture | Mapping[str, Any] | None = None,
    env_id: str | None = None,
    resume: bool = False,
    device: str = "cpu",
    progress: bool = True,
    on_step: StepCallback | None = None,
) -> ConditionedAgent:
    """Train a `kind` agent (morvs, bc, modt) on `data` and save it into `out_dir`.

    `data` is a dataset path (any format `paretoscope.data.open_dataset` reads) or `Trajectories`.
    `settings` holds the hyper-parameters (default: PEDA's) and the network's shape where it
    differs from PEDA's (`settings.network`); `architecture` instead gives the network itself,
    or a mapping of fields to change in the default, e.g. ``{"hidden_sizes": (64, 64)}``.
    `env_id`, when given, must be the dataset's env. With `resume`, a run interrupted in
    `out_dir` continues from its last checkpoint (same settings; `settings.steps` may grow).
    `on_step(step, loss)` is called after every optimisation step (1-based step).
    """
    if kind not in OFFLINE_KINDS:
        raise ParetoscopeError(f"kind: {kind!r}, expected one of {', '.join(OFFLINE_KINDS)}")
    settings = settings or OfflineTrainingSettings()
    folder = Path(out_dir)

    # 1. The dataset, and the settings of the run this call starts or resumes.
    trajectories = _open_training_data(data, env_id)
    env = get_spec(trajectories.info.env_id)
    dataset_record = dataset_provenance(trajectories, data)
    network_changes = architecture_changes(kind, settings.network)
    if architecture is not None and network_changes:
        raise ParetoscopeError(
            "architecture: give the network's shape in the settings or as an architecture, not both"
        )
    if architecture is None or isinstance(architecture, Mapping):
        changes = dict(architecture or network_changes)
        if "hidden_sizes" in changes:
            changes["hidden_sizes"] = tuple(changes["hidden_sizes"])
        try:
            architecture = replace(default_architecture(kind, trajectories), **changes)
        except TypeError as error:
            raise ParetoscopeError(f"architecture: {error}") from None
    if not isinstance(architecture, AGENT_CLASSES[kind].architecture_type):
        raise ParetoscopeError(
            f"architecture: a {type(architecture).__name__} cannot describe a {kind} agent"
        )
    previous_run = _existing_run(folder, resume)
    if previous_run is not None and settings.warmup_steps is None:
        # An automatic warm-up was fixed by the first run's length; a longer resume keeps it.
        settings = replace(settings, warmup_steps=int(previous_run["warmup_steps"]))
    settings = settings.resolved(kind)
    run = _run_record(kind, env.id, settings, architecture, dataset_record)
    if previous_run is not None:
        _check_same_settings(folder, previous_run, run)

    # 2. A fresh, seeded agent with normalisation and initial targets from the data.
    mean, std = observation_statistics(trajectories.observations)
    target_model = None
    if DEFAULT_CONDITIONING[kind].return_conditioned:
        if trajectories.n_trajectories < 2:
            raise ParetoscopeError(
                f"dataset {printable(dataset_record['file'], QUOTE_LIMIT)}: a {kind} agent fits "
                "its initial target on at least 2 trajectories, the dataset has "
                f"{trajectories.n_trajectories}"
            )
        target_model = fit_linear_target_model(
            trajectories.preferences,
            trajectories.returns,
            source=f"least squares on dataset {dataset_record['sha256'][:16]} "
            f"({trajectories.n_trajectories} trajectories)",
        )
    agent = create_agent(
        kind,
        env.id,
        architecture=architecture,
        normalizer=ObservationNormalizer(mean=tuple(mean), std=tuple(std)),
        target_model=target_model,
        device=device,
        seed=settings.seed,
    )
    network = agent.network
    optimizer = torch.optim.AdamW(
        network.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    training_data = TrainingData.from_trajectories(trajectories)
    build_batch = BATCH_BUILDERS[kind]

    # Everything checked out: start the run on disk, or pick up where it stopped.
    first_step, loss_history = 0, []
    if previous_run is None:
        _start_run(folder, run)
    elif (state := _load_state(folder / TRAINING_DIR / STATE_FILE)) is not None:
        network.load_state_dict(state["network"])
        optimizer.load_state_dict(state["optimizer"])
        first_step = int(state["step"])
        # Stored as float64 rows: the step goes back to an int, as an uninterrupted run has it.
        loss_history = [[int(step), loss] for step, loss in state["loss_history"].tolist()]

    def checkpoint(step: int) -> None:
        _save_state(folder, run, step, network, optimizer, loss_history)
        agent.training = _training_info(kind, run, dataset_record, step, loss_history)
        save_agent(agent, folder)

    def snapshot(step: int, pending_losses: list[float]) -> None:
        # The loss history a run of exactly `step` steps ends with: its last entry covers the
        # steps since the previous checkpoint.
        history = loss_history + (
            [[step, float(np.mean(pending_losses))]] if pending_losses else []
        )
        agent.training = _training_info(kind, run, dataset_record, step, history)
        write_snapshot(folder, step, agent, folder / TRAINING_DIR)

    # A resumed run holds the agent of its last checkpoint: snapshot it when due (a run resumed
    # with --snapshot-every for the first time, or a finished one); an existing one is kept.
    every = settings.snapshot_every
    if (
        every is not None
        and first_step > 0
        and (first_step % every == 0 or first_step >= settings.steps)
    ):
        snapshot(first_step, [])

    # 3. The loop.
    bar = tqdm(
        total=settings.steps,
        initial=first_step,
        desc=f"{kind} {env.id}",
        unit="step",
        disable=not progress,
        dynamic_ncols=True,
    )
    interval_losses: list[float] = []
    with bar, _reproducible_torch(agent.device):
        network.train()
        for step in range(first_step, settings.steps):
            rng = np.random.default_rng([settings.seed, step])
            torch.manual_seed(int(rng.integers(2**62)))
            batch = build_batch(
                agent, training_data, sample_steps(training_data, rng, settings.batch_size)
            )
            for group in optimizer.param_groups:
                group["lr"] = learning_rate_at(settings, step)

            loss = action_loss(network, batch)
            optimizer.zero_grad()
            loss.backward()
            if settings.gradient_clip:
                torch.nn.utils.clip_grad_norm_(network.parameters(), settings.gradient_clip)
            optimizer.step()

            value = float(loss.detach())
            interval_losses.append(value)
            bar.update(1)
            if (step + 1) % 10 == 0 or step + 1 == settings.steps:
                bar.set_postfix(loss=f"{np.mean(interval_losses[-100:]):.4f}")
            if on_step is not None:
                on_step(step + 1, value)
            # 4. Periodic checkpoints and snapshots (and one of each at the end).
            last = step + 1 == settings.steps
            if (step + 1) % settings.checkpoint_every == 0 or last:
                loss_history.append([step + 1, float(np.mean(interval_losses))])
                interval_losses = []
                checkpoint(step + 1)
            if every is not None and ((step + 1) % every == 0 or last):
                snapshot(step + 1, interval_losses)
        network.eval()

    # 5. The final agent (already written by the last checkpoint unless nothing was left to do).
    if first_step >= settings.steps:
        agent.training = _training_info(kind, run, dataset_record, first_step, loss_history)
        save_agent(agent, folder)
    return agent


# --- the dataset ---------------------------------------------------------------------------------


def _open_training_data(
    data: str | os.PathLike[str] | Trajectories, env_id: str | None
) -> Trajectories:
    """The dataset as `Trajectories`, checked against `env_id` and the env's dims."""
    if isinstance(data, Trajectories):
        trajectories = data
        where = f"dataset {data.info.named}"
    else:
        path = Path(data)
        named = parse_d4morl_name(path.name)
        if env_id is not None and named is not None and named.env_id != env_id:
            raise ParetoscopeError(
                f"{path}: the file name says {named.env_id}, but --env is {env_id}"
            )
        trajectories = open_dataset(path, env_id=env_id)
        where = str(path)
    if env_id is not None:
        get_spec(env_id)  # an unknown id is its own error
        if trajectories.info.env_id != env_id:
            raise ParetoscopeError(
                f"{where}: the dataset is for {trajectories.info.env_id}, not {env_id}"
            )
    if trajectories.n_trajectories == 0 or trajectories.n_steps == 0:
        raise ParetoscopeError(f"{where}: the dataset holds no trajectories")
    env = get_spec(trajectories.info.env_id)
    for field, actual, expected in (
        ("obs_dim", trajectories.obs_dim, env.obs_dim),
        ("act_dim", trajectories.act_dim, env.act_dim),
        ("n_obj", trajectories.n_obj, env.n_obj),
    ):
        if actual != expected:
            raise ParetoscopeError(
                f"{where}: {field} is {actual}, but {env.id} has {field}={expected}"
            )
    return trajectories


def dataset_fingerprint(trajectories: Trajectories) -> str:
    """sha256 of a dataset's content summary, the same whatever format holds it.

    Covers the env, the dims, the trajectory offsets, preferences and returns (which depend on
    every reward), the first observation and the last action of every trajectory. Cheap on
    datasets of millions of steps: it reads 2 rows per trajectory, not the step columns.
    """
    digest = hashlib.sha256(b"paretoscope-dataset-content-v1")
    header = {
        "env_id": trajectories.info.env_id,
        "obs_dim": trajectories.obs_dim,
        "act_dim": trajectories.act_dim,
        "n_obj": trajectories.n_obj,
    }
    digest.update(json.dumps(header, sort_keys=True).encode("utf-8"))
    offsets = np.asarray(trajectories.offsets, dtype=np.int64)
    for array in (
        offsets,
        np.asarray(trajectories.preferences, dtype=np.float64),
        np.asarray(trajectories.returns, dtype=np.float64),
        np.asarray(trajectories.observations[offsets[:-1]], dtype=np.float64),
        np.asarray(trajectories.actions[offsets[1:] - 1], dtype=np.float64),
    ):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def dataset_provenance(
    trajectories: Trajectories, data: str | os.PathLike[str] | Trajectories
) -> dict[str, Any]:
    """The `training.dataset` entry of the agent's config."""
    info = trajectories.info
    file = info.source if isinstance(data, Trajectories) else str(Path(data).resolve())
    return {
        "file": file,
        "sha256": dataset_fingerprint(trajectories),
        "sha256_of": "content summary (dataset_fingerprint in core.train.offline)",
        "n_trajectories": trajectories.n_trajectories,
        "n_steps": trajectories.n_steps,
        "env_id": info.env_id,
        "quality": info.quality,
        "preference_distribution": info.preference_distribution,
    }


# --- run settings, state and provenance ----------------------------------------------------------


def _run_record(
    kind: str,
    env_id: str,
    settings: OfflineTrainingSettings,
    architecture: Architecture,
    dataset: dict[str, Any],
) -> dict[str, Any]:
    return {
        "format": RUN_FORMAT,
        "format_version": RUN_FORMAT_VERSION,
        "kind": kind,
        "env_id": env_id,
        **settings.hyperparameters(),
        "architecture": architecture_to_dict(architecture),
        "dataset_sha256": dataset["sha256"],
        "dataset_file": dataset["file"],
    }


def _existing_run(folder: Path, resume: bool) -> dict[str, Any] | None:
    """The settings of the run saved in `folder` when resuming it; None for a new run."""
    run_path = folder / TRAINING_DIR / RUN_FILE
    if not run_path.is_file():
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise ParetoscopeError(
                f"{folder}: exists and is not an offline training run; choose a new or empty "
                "output directory"
            )
        return None  # --resume without a run: start one
    if not resume:
        raise ParetoscopeError(
            f"{folder} already holds an offline training run; pass --resume to continue it, "
            "or choose another output directory"
        )
    return read_json_object(run_path)


def _start_run(folder: Path, run: dict[str, Any]) -> None:
    make_folder(folder / TRAINING_DIR)
    _write_atomically(folder / TRAINING_DIR / RUN_FILE, json.dumps(run, indent=2).encode("utf-8"))


def _check_same_settings(folder: Path, previous: dict[str, Any], run: dict[str, Any]) -> None:
    """A resume must use the settings that fix the outcome (the step budget may grow)."""
    ignored = {*RESUMABLE_CHANGES, "dataset_file"}
    different = sorted(
        key
        for key in set(run) | set(previous)
        if key not in ignored and previous.get(key) != run.get(key)
    )
    if different:
        details = changes(previous, run, different)
        raise ParetoscopeError(
            f"{folder}: cannot resume with other settings ({details}); resume with the same "
            "ones or choose another output directory"
        )


def _save_state(
    folder: Path,
    run: dict[str, Any],
    step: int,
    network: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_history: list[list[float]],
) -> None:
    import io

    buffer = io.BytesIO()
    torch.save(
        {
            "format": RUN_FORMAT,
            "step": step,
            "network": {
                name: tensor.detach().cpu() for name, tensor in network.state_dict().items()
            },
            "optimizer": _to_cpu(optimizer.state_dict()),
            "loss_history": torch.tensor(loss_history, dtype=torch.float64).reshape(-1, 2),
            "dataset_sha256": run["dataset_sha256"],
        },
        buffer,
    )
    _write_atomically(folder / TRAINING_DIR / STATE_FILE, buffer.getvalue())


def _load_state(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        state = load_tensors(path, "training state")
    except ParetoscopeError as error:
        raise ParetoscopeError(f"{error}; delete it to start the run again") from None
    try:
        if not isinstance(state, dict) or state.get("format") != RUN_FORMAT:
            raise ValueError("not an offline training state")
        for key in ("step", "network", "optimizer", "loss_history"):
            if key not in state:
                raise KeyError(key)
    except Exception as error:  # noqa: BLE001 - any failure here means a damaged file
        raise ParetoscopeError(
            f"{path}: damaged training state ({error}); delete it to start the run again"
        ) from None
    return state


def _training_info(
    kind: str,
    run: dict[str, Any],
    dataset: dict[str, Any],
    step: int,
    loss_history: list[list[float]],
) -> dict[str, Any]:
    """The `training` entry of the agent's config: provenance, hyper-parameters, losses."""
    return {
        "source": f"paretoscope train {kind}",
        "steps": step,
        "dataset": dataset,
        "hyperparameters": {
            key: run[key]
            for key in (
                "batch_size",
                "learning_rate",
                "weight_decay",
                "warmup_steps",
                "gradient_clip",
                "seed",
            )
        },
        "loss_history": loss_history,
    }


@contextlib.contextmanager
def _reproducible_torch(device: torch.device) -> Iterator[None]:
    """Fork the global RNG (restored on exit) and, on CPU, use deterministic algorithms."""
    devices = [device.index or 0] if device.type == "cuda" else []
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    with torch.random.fork_rng(devices=devices):
        if device.type == "cpu":
            torch.use_deterministic_algorithms(True)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {key: _to_cpu(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_to_cpu(item) for item in value]
    return value


def _write_atomically(path: Path, payload: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
