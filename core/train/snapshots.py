"""Writing a trainer's snapshots: normal checkpoints in ``RUN/snapshots/step=N/``.

A snapshot is written into a scratch folder under ``RUN/training/`` and renamed into place, so
``snapshots/`` only ever holds complete checkpoints (a reader may be listing it while the run
goes on). An existing snapshot is never rewritten: a resumed run recomputes the steps since its
last checkpoint bit-identically (on CPU), so what is there already is what it would write.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from paretoscope.agents.base import Agent
from paretoscope.agents.checkpoint import save as save_agent
from paretoscope.runs.layout import snapshot_dir

# Inside the run's training folder, not snapshots/: a half-written snapshot is never listed.
_SCRATCH = "snapshot.partial"


def write_snapshot(run_dir: Path, step: int, agent: Agent, scratch_dir: Path) -> bool:
    """Save `agent` as the snapshot at `step` of the run in `run_dir`, unless that snapshot
    exists; True when written. `scratch_dir` (the run's training folder) holds it meanwhile."""
    destination = snapshot_dir(run_dir, step)
    if destination.exists():
        return False
    partial = scratch_dir / _SCRATCH
    shutil.rmtree(partial, ignore_errors=True)  # left by an interrupted write
    save_agent(agent, partial)
    destination.parent.mkdir(parents=True, exist_ok=True)
    os.rename(partial, destination)
    return True
