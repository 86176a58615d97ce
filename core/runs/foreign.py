"""Runs written by other tools: a folder of checkpoint files, each naming its step, that an
importer (`paretoscope.agents.importers`) reads one by one."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from paretoscope.errors import ParetoscopeError
from paretoscope.pickle_scan import scan_torch_file
from paretoscope.runs.layout import step_in_name
from paretoscope.runs.run import RunNotice, Snapshot, TrainingRun, ordered

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.agents.importers import ImportAnswers, ImportPlan


def key_signature(path: Path, kind: str | None) -> str:
    """The kind and the parameter names a torch file holds (read from its pickle, no torch):
    two snapshots of one network have the same; widths are checked when they load."""
    scan = scan_torch_file(path)
    names = sorted(s for s in (scan.strings if scan else ()) if s.endswith((".weight", ".bias")))
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]
    return f"{kind or '?'} with {len(names)} weight tensors ({digest})"


class ImportedRunReader:
    """A run of `importer_name`'s files: every file in `snapshot_folder(root)` with a step in
    its name and one of the importer's suffixes. A folder is claimed when the importer reads
    at least one of them; the others are then left out with a notice."""

    name: str
    importer_name: str

    @property
    def agent_format(self) -> str:
        return self.importer_name

    def snapshot_folder(self, root: Path) -> Path:
        return root

    def accepts(self, plan: ImportPlan) -> bool:
        """Whether the importer's plan is really this tool's file (not a guess)."""
        return True

    def sniff(self, path: Path) -> TrainingRun | None:
        from paretoscope.agents.importers import get_importer

        importer = get_importer(self.importer_name)
        folder = self.snapshot_folder(path)
        if not folder.is_dir():
            return None
        found: list[Snapshot] = []
        notices: list[RunNotice] = []
        plans: list[ImportPlan] = []
        for entry in sorted(folder.iterdir()):
            step = step_in_name(entry.stem)
            if step is None or not entry.is_file() or entry.suffix not in importer.suffixes:
                continue
            try:
                plan = importer.sniff(entry)
            except ParetoscopeError as error:
                notices.append(RunNotice(entry, str(error)))
                continue
            if plan is None or not self.accepts(plan):
                notices.append(
                    RunNotice(entry, f"not readable as a {self.importer_name} checkpoint")
                )
                continue
            plans.append(plan)
            found.append(Snapshot(step, entry, plan.env_id, key_signature(entry, plan.kind)))
        if not found:
            return None
        snapshots = ordered(found, notices)
        last = plans[-1]
        kinds = {plan.kind for plan in plans}
        return TrainingRun(
            root=path,
            format=self.name,
            kind=kinds.pop() if len(kinds) == 1 else None,
            env_id=last.env_id,
            snapshots=snapshots,
            notices=tuple(notices),
            description=f"{self.importer_name} run {path.name} ({len(snapshots)} snapshots)",
            return_conditioned=last.return_conditioned,
            plan=last,
        )

    def load(
        self, run: TrainingRun, snapshot: Snapshot, answers: ImportAnswers, device: str
    ) -> Agent:
        from paretoscope.agents.importers import complete_answers, get_importer

        importer = get_importer(self.importer_name)
        plan = importer.sniff(snapshot.path)
        if plan is None:
            raise ParetoscopeError(f"{snapshot.path}: not readable as a {self.importer_name} file")
        filled = complete_answers(
            plan,
            replace(
                answers,
                env_id=answers.env_id or run.env_id,
                kind=answers.kind or (None if plan.kind else run.kind),
            ),
        )
        return importer.convert(snapshot.path, filled)
