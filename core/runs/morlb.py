"""MORL-Baselines runs: a folder of its ``save()`` files, the step or iteration in each name
(``CAPQL step=4000.tar``, ``GPI-PD gpi-ls iter=3.tar``, as its ``checkpoints=True`` writes)."""

from __future__ import annotations

from paretoscope.runs.foreign import ImportedRunReader


class MorlBaselinesRunReader(ImportedRunReader):
    name = "morl-baselines"
    importer_name = "morl-baselines"


READER = MorlBaselinesRunReader()
