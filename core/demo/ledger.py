"""The build ledger: which demo steps finished, with which settings (a small JSON file).

A step is recorded when it finishes, with its settings, their hash, the code commit and what it
measured. A rerun skips a step whose recorded settings hash matches and whose outputs exist;
a step whose settings changed is redone when only budgets grew (training resumes), and
refused otherwise (its outputs were made differently: delete them to rebuild).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from paretoscope.atomic import write_bytes_atomically
from paretoscope.errors import ParetoscopeError

LEDGER_FILE = "demo-ledger.json"
LEDGER_FORMAT = "paretoscope-demo-ledger"
LEDGER_VERSION = 1


def settings_hash(settings: Mapping[str, Any]) -> str:
    """sha256 of the settings' canonical JSON."""
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def code_commit() -> str:
    """The checkout's `git rev-parse HEAD`, or "unknown" outside a git checkout."""
    repository = Path(__file__).resolve().parents[2]
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=repository,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and len(commit) == 40 else "unknown"


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """{key: (old value, new value)} for every top-level key whose value differs."""
    old_plain = json.loads(json.dumps(old, default=str))
    new_plain = json.loads(json.dumps(new, default=str))
    return {
        key: (old_plain.get(key), new_plain.get(key))
        for key in sorted(set(old_plain) | set(new_plain))
        if old_plain.get(key) != new_plain.get(key)
    }


@dataclass
class Ledger:
    """The ledger of one output folder, read at start and rewritten atomically per step."""

    path: Path
    steps: dict[str, dict[str, Any]]

    @classmethod
    def open(cls, folder: Path) -> Ledger:
        path = folder / LEDGER_FILE
        if not path.is_file():
            return cls(path, {})
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ParetoscopeError(
                f"{path}: not readable JSON ({error}); delete it to rebuild the ledger (finished "
                "artefacts are adopted again)"
            ) from None
        if not isinstance(content, dict) or content.get("format") != LEDGER_FORMAT:
            raise ParetoscopeError(f"{path}: not a {LEDGER_FORMAT} file")
        steps = content.get("steps")
        if not isinstance(steps, dict):
            raise ParetoscopeError(f"{path}: 'steps' must be an object")
        return cls(path, steps)

    def entry(self, step_id: str) -> dict[str, Any] | None:
        return self.steps.get(step_id)

    def record(
        self,
        step_id: str,
        settings: Mapping[str, Any],
        seconds: float,
        adopted: bool = False,
        details: Mapping[str, Any] | None = None,
        commit: str | None = None,
    ) -> dict[str, Any]:
        """Mark `step_id` finished with `settings` and save the ledger."""
        entry = {
            "settings": json.loads(json.dumps(settings, default=str)),
            "settings_hash": settings_hash(settings),
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(float(seconds), 3),
            "commit": commit or code_commit(),
            "adopted": adopted,
            **dict(details or {}),
        }
        self.steps[step_id] = entry
        self.save()
        return entry

    def forget(self, step_id: str) -> None:
        if self.steps.pop(step_id, None) is not None:
            self.save()

    def save(self) -> None:
        content = {"format": LEDGER_FORMAT, "version": LEDGER_VERSION, "steps": self.steps}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(self.path, (json.dumps(content, indent=1) + "\n").encode("utf-8"))
