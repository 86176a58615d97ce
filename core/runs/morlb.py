"""MORL-Baselines runs: a folder of its ``save()`` files, the step or iteration in each name
(``CAPQL step=4000.tar``, ``GPI-PD gpi-ls iter=3.tar``, as its ``checkpoints=True`` writes),
with the fronts its W&B logging recorded when that run's folder is in ``wandb/`` beside them
(`paretoscope.runs.wandb_run.logged_beside`)."""

from __future__ import annotations

from paretoscope.runs.foreign import ImportedRunReader
from paretoscope.runs.run import LoggedFront, RunNotice, TrainingRun


class MorlBaselinesRunReader(ImportedRunReader):
    name = "morl-baselines"
    importer_name = "morl-baselines"

    def logged_fronts(self, run: TrainingRun) -> tuple[list[LoggedFront], list[RunNotice]]:
        from paretoscope.runs.wandb_run import logged_beside

        return logged_beside(run.root)


READER = MorlBaselinesRunReader()
