"""Where a training run keeps its snapshots, and how a step is read from a file name.

paretoscope's trainers (`--snapshot-every N`) write each snapshot as a normal checkpoint in
``RUN/snapshots/step=N/``. Other tools name the step in their files: PEDA writes
``ckpt/step=N.ckpt``, MORL-Baselines ``CAPQL step=N.tar`` or ``GPI-PD gpi-ls iter=N.tar``.
"""

from __future__ import annotations

import re
from pathlib import Path

SNAPSHOTS_DIR = "snapshots"

# "step=1000", "step_1000", "iter=3", "iteration-12", "it=4" (not "split3" or "edit7").
_STEP_PATTERN = re.compile(r"(?:^|[^a-z0-9])(?:step|iter|iteration|it)[=_\- ]?(\d+)", re.I)


def snapshot_dir(run_dir: str | Path, step: int) -> Path:
    """The folder of the snapshot at `step` inside a paretoscope run folder."""
    if step < 0:
        raise ValueError(f"step must be non-negative, got {step}")
    return Path(run_dir) / SNAPSHOTS_DIR / f"step={int(step)}"


def step_in_name(name: str) -> int | None:
    """The training step or iteration a file or folder name carries; None when it names none
    (the last match wins: ``run-3/step=50`` is step 50)."""
    matches = _STEP_PATTERN.findall(Path(name).name)
    return int(matches[-1]) if matches else None
