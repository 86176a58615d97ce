"""The settings of an offline training run (`paretoscope.train.offline.train_offline`,
`paretoscope train morvs|bc|modt`): PEDA's hyper-parameters by default, and the network's
shape where it should differ from PEDA's."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.fields import check_bounds, setting
from paretoscope.settings.limits import CONTEXTS, HEADS, HORIZONS, LAYERS, SEEDS, WIDTHS

# PEDA warms the learning rate up over 10k of its 500k steps; shorter runs warm up over a tenth.
PEDA_WARMUP_STEPS = 10_000
# PEDA clips the gradient norm in its sequence (MODT) trainer only.
DEFAULT_GRADIENT_CLIP = {"modt": 0.25, "morvs": None, "bc": None}


@dataclass(frozen=True)
class NetworkSettings:
    """The network's shape where it differs from PEDA's default for the kind (None: the
    default; `paretoscope.train.offline.architecture_changes` maps them onto the kind's
    architecture)."""

    hidden: int | None = setting(
        None, "hidden width: each MLP layer, or the transformer's size (default 512)", bounds=WIDTHS
    )
    layers: int | None = setting(
        None, "hidden MLP layers or transformer blocks (default 3)", bounds=LAYERS
    )
    dropout: float | None = setting(None, "dropout probability (default 0.1)")
    heads: int | None = setting(None, "attention heads (1)", only_for=("modt",), bounds=HEADS)
    inner: int | None = setting(
        None, "MLP size in a block (4 x hidden)", only_for=("modt",), bounds=WIDTHS
    )
    context: int | None = setting(
        None,
        "MODT: steps of context when acting (5); BC: states in the input window (20)",
        only_for=("bc", "modt"),
        bounds=CONTEXTS,
    )
    train_context: int | None = setting(
        None, "steps per training window (20)", only_for=("modt",), bounds=CONTEXTS
    )
    horizon: int | None = setting(
        None,
        "episode length the goal divides by (default: the dataset's)",
        only_for=("morvs",),
        bounds=HORIZONS,
    )

    def __post_init__(self) -> None:
        check_bounds(self)

    def changed(self) -> dict[str, Any]:
        """The fields set (not None), by name."""
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) is not None
        }


@dataclass(frozen=True)
class OfflineTrainingSettings:
    """The hyper-parameters of an offline run (PEDA's by default) and its network's shape."""

    steps: int = setting(100_000, "optimisation steps (default 100000)")
    batch_size: int = setting(64, "samples per optimisation step (default 64)")
    learning_rate: float = setting(1e-4, "AdamW learning rate (default 1e-4)")
    weight_decay: float = setting(1e-3, "AdamW weight decay (default 1e-3)")
    warmup_steps: int | None = setting(
        None, "linear learning-rate warm-up (default 10000, or a tenth of --steps if shorter)"
    )
    gradient_clip: float | None = setting(
        None, "clip the gradient norm (default: 0.25 for modt, off for morvs and bc; 0 = off)"
    )
    checkpoint_every: int = setting(1000, "steps between checkpoints (default 1000)")
    seed: int = setting(0, "random seed (default 0)", bounds=SEEDS)
    snapshot_every: int | None = setting(
        None,
        "also keep the agent after every N steps (and the final one) in OUT/snapshots/step=N/ "
        "(default: no snapshots)",
        metavar="N",
    )
    network: NetworkSettings = setting(
        default_factory=NetworkSettings, help="the network's shape (None: PEDA's default)"
    )

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "checkpoint_every", "snapshot_every"):
            value = getattr(self, name)
            if name == "snapshot_every" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ParetoscopeError(f"{name.replace('_', '-')}: expected >= 1, got {value!r}")
        if not math.isfinite(self.learning_rate) or self.learning_rate <= 0:
            raise ParetoscopeError(f"learning rate: expected > 0, got {self.learning_rate}")
        if not math.isfinite(self.weight_decay) or self.weight_decay < 0:
            raise ParetoscopeError(f"weight decay: expected >= 0, got {self.weight_decay}")
        if self.warmup_steps is not None and self.warmup_steps < 1:
            raise ParetoscopeError(f"warmup steps: expected >= 1, got {self.warmup_steps}")
        if self.gradient_clip is not None and not self.gradient_clip >= 0:
            raise ParetoscopeError(f"gradient clip: expected >= 0, got {self.gradient_clip}")
        if self.seed < 0:
            raise ParetoscopeError(f"seed: expected >= 0, got {self.seed}")
        check_bounds(self)

    def resolved(self, kind: str) -> OfflineTrainingSettings:
        """The settings with the per-kind and per-length defaults filled in."""
        warmup = self.warmup_steps or min(PEDA_WARMUP_STEPS, max(1, self.steps // 10))
        clip = DEFAULT_GRADIENT_CLIP[kind] if self.gradient_clip is None else self.gradient_clip
        return replace(self, warmup_steps=warmup, gradient_clip=clip or 0.0)

    def hyperparameters(self) -> dict[str, Any]:
        """Every setting but the network's shape, by name (a run's record of them)."""
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if field.name != "network"
        }
