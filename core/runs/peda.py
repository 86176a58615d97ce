"""PEDA runs: ``RUN/ckpt/step=N.ckpt`` (or the ``ckpt`` folder itself), with the evaluations
PEDA's script saved after each iteration in ``RUN/logs/step=N_rollout.pkl``.

Each rollout log is a pickled dict; ``target_prefs`` (one row per evaluated preference) and
``rollout_original_raw_r`` (the mean unnormalised return vector there) are the front PEDA
measured at that step. They are read with the restricted unpickler (numpy arrays and plain
containers only), so a hostile log runs nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paretoscope.agents.importers import ImportPlan
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.foreign import ImportedRunReader
from paretoscope.runs.layout import step_in_name
from paretoscope.runs.run import LoggedFront, RunNotice, TrainingRun

CKPT_DIR = "ckpt"
LOGS_DIR = "logs"
ROLLOUT_SUFFIX = "_rollout.pkl"
# A rollout log is a few kB; anything this large is not one.
_MOST_LOG_BYTES = 16 * 2**20


class PedaRunReader(ImportedRunReader):
    name = "peda"
    importer_name = "peda"

    def snapshot_folder(self, root: Path) -> Path:
        return root / CKPT_DIR if (root / CKPT_DIR).is_dir() else root

    def accepts(self, plan: ImportPlan) -> bool:
        # The PEDA importer proposes itself for any torch file; a run needs PEDA's own keys.
        return plan.kind is not None

    def logged_fronts(self, run: TrainingRun) -> tuple[list[LoggedFront], list[RunNotice]]:
        root = run.root.parent if run.root.name == CKPT_DIR else run.root
        folder = root / LOGS_DIR
        fronts: list[LoggedFront] = []
        notices: list[RunNotice] = []
        if not folder.is_dir():
            return fronts, notices
        for path in sorted(folder.glob(f"*{ROLLOUT_SUFFIX}")):
            step = step_in_name(path.name[: -len(ROLLOUT_SUFFIX)])
            if step is None:
                continue
            try:
                fronts.append(read_rollout_log(path, step))
            except ParetoscopeError as error:
                notices.append(RunNotice(path, str(error)))
        fronts.sort(key=lambda front: front.step)
        return fronts, notices


def read_rollout_log(path: Path, step: int, n_obj: int | None = None) -> LoggedFront:
    """One ``step=N_rollout.pkl``: its preferences and mean returns, checked."""
    from paretoscope.safe_pickle import load_restricted

    if path.stat().st_size > _MOST_LOG_BYTES:
        raise ParetoscopeError(f"{path}: {path.stat().st_size} bytes, too large for a rollout log")
    content = load_restricted(path)
    if not isinstance(content, dict):
        raise ParetoscopeError(
            f"{path}: expected PEDA's rollout dict, got {type(content).__name__}"
        )
    arrays = {}
    for key in ("target_prefs", "rollout_original_raw_r"):
        if key not in content:
            raise ParetoscopeError(f"{path}: no {key!r} (not a PEDA rollout log)")
        array = np.asarray(content[key], dtype=np.float64)
        if array.ndim != 2 or array.shape[0] == 0:
            raise ParetoscopeError(
                f"{path}: {key} should be (preferences, objectives), got {array.shape}"
            )
        if not np.isfinite(array).all():
            raise ParetoscopeError(f"{path}: {key} holds NaN or infinite values")
        arrays[key] = array
    preferences, returns = arrays["target_prefs"], arrays["rollout_original_raw_r"]
    if preferences.shape != returns.shape or (n_obj is not None and returns.shape[1] != n_obj):
        raise ParetoscopeError(
            f"{path}: {preferences.shape[0]} preferences of {preferences.shape[1]} objectives but "
            f"returns of shape {returns.shape}"
        )
    return LoggedFront(step, preferences, returns, path)


READER = PedaRunReader()
