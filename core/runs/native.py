"""paretoscope's own runs: ``RUN/snapshots/step=N/``, each a normal checkpoint
(`paretoscope train ... --snapshot-every N`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paretoscope.agents.header import CHECKPOINT_FORMAT
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.layout import SNAPSHOTS_DIR, step_in_name
from paretoscope.runs.run import RunNotice, Snapshot, TrainingRun, ordered

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.agents.importers import ImportAnswers


def architecture_signature(config: dict[str, Any]) -> str:
    """What makes two checkpoints the same network: kind, layout, inputs, member count."""
    members = config.get("members")
    layout = {
        "kind": config.get("kind"),
        "architecture": config.get("architecture"),
        "conditioning": config.get("conditioning"),
        "obs_dim": config.get("obs_dim"),
        "act_dim": config.get("act_dim"),
        "members": len(members) if isinstance(members, list) else None,
    }
    shown = {key: value for key, value in layout.items() if value is not None}
    return json.dumps(shown, sort_keys=True, separators=(",", ":"))


class NativeRunReader:
    name = "paretoscope"
    agent_format = CHECKPOINT_FORMAT

    def sniff(self, path: Path) -> TrainingRun | None:
        from paretoscope.agents.checkpoint_header import (
            WEIGHTS_FILE,
            is_checkpoint_path,
            read_checkpoint_config,
            sniff_checkpoint,
        )

        folder = path / SNAPSHOTS_DIR
        if not folder.is_dir():
            return None
        found: list[Snapshot] = []
        notices: list[RunNotice] = []
        kinds: set[str] = set()
        conditioned: set[bool] = set()
        for entry in sorted(folder.iterdir()):
            step = step_in_name(entry.name)
            if step is None or entry.name.startswith("."):
                continue
            if not is_checkpoint_path(entry):
                notices.append(RunNotice(entry, "no config.json: not a complete checkpoint"))
                continue
            try:
                header = sniff_checkpoint(entry)
                if entry.is_dir() and not (entry / WEIGHTS_FILE).is_file():
                    raise ParetoscopeError(f"{WEIGHTS_FILE} is missing")
                config = read_checkpoint_config(entry)
            except ParetoscopeError as error:
                notices.append(RunNotice(entry, str(error)))
                continue
            assert header is not None  # is_checkpoint_path held
            kinds.add(header.kind)
            conditioned.add(header.return_conditioned)
            found.append(Snapshot(step, entry, header.env_id, architecture_signature(config)))
        if not found and not notices:
            return None
        snapshots = ordered(found, notices)
        env_ids = {snapshot.env_id for snapshot in snapshots}
        return TrainingRun(
            root=path,
            format=self.name,
            kind=kinds.pop() if len(kinds) == 1 else None,
            env_id=env_ids.pop() if len(env_ids) == 1 else None,
            snapshots=snapshots,
            notices=tuple(notices),
            description=f"paretoscope run {path.name} ({len(snapshots)} snapshots)",
            return_conditioned=conditioned == {True},
        )

    def load(
        self, run: TrainingRun, snapshot: Snapshot, answers: ImportAnswers, device: str
    ) -> Agent:
        from paretoscope.agents.checkpoint import load

        return load(snapshot.path, device=device)


READER = NativeRunReader()
