"""PEDA checkpoints as an importer: which files are ones (without torch), and their import.

PEDA saves ``torch.save({'model': ..., 'optimizer': ...}, 'ckpt/step=N.ckpt')`` with no
metadata, so a file says neither its env nor, by name, its type (dt, rvs, bc). The type is read
from the pickle's key names (`signature`, `paretoscope.pickle_scan`, no torch), the env from a
D4MORL id in the path when there is one; the rest is asked. `reader` does the import itself.
"""

from __future__ import annotations

from pathlib import Path

from paretoscope.agents.base import Agent
from paretoscope.agents.importers import ImportAnswers, ImportPlan, Question, option_number
from paretoscope.agents.peda.signature import PEDA_SUFFIXES, PEDA_TYPES, env_in_path, type_from_keys
from paretoscope.envs import list_ids
from paretoscope.errors import ParetoscopeError
from paretoscope.pickle_scan import check_torch_signature, scan_torch_file
from paretoscope.text import QUOTE_LIMIT, printable


class PedaImporter:
    """MODT, MORvS and BC checkpoints written by PEDA's training script."""

    name = "peda"
    suffixes = PEDA_SUFFIXES

    def check_signature(self, name: str, payload: bytes) -> None:
        check_torch_signature(name, payload[:16])

    def sniff(self, path: Path) -> ImportPlan | None:
        if not (path.is_file() and path.suffix in PEDA_SUFFIXES):
            return None
        scan = scan_torch_file(path)
        peda_type = type_from_keys(scan.strings) if scan is not None else None
        env_id = env_in_path(path)
        questions = [
            Question("env", "its D4MORL environment", tuple(list_ids("d4morl")), env_id),
        ]
        if peda_type is None:
            questions.append(Question("kind", "its PEDA type", PEDA_TYPES))
        return ImportPlan(
            format=self.name,
            kind=peda_type,
            # Proposed, not taken: a folder's name is a hint, the user confirms it.
            env_id=None,
            description=f"PEDA {peda_type or ''} checkpoint {path.name}".replace("  ", " "),
            kinds=PEDA_TYPES,
            questions=tuple(questions),
            return_conditioned=peda_type != "bc",
        )

    def inspect(self, path: Path) -> dict[str, object]:
        """What the tensors say (torch): the type, the D4MORL envs they fit, size, steps."""
        from paretoscope.agents.peda.reader import inspect_peda

        info = inspect_peda(path)
        return {
            "peda_type": info.peda_type,
            "env_candidates": list(info.env_candidates),
            "env_guess": info.env_guess,
            "n_tensors": info.n_tensors,
            "parameter_count": info.n_parameters,
            "training_steps": info.training_steps,
        }

    def convert(self, path: Path, answers: ImportAnswers) -> Agent:
        from paretoscope.agents.peda.reader import import_peda

        if answers.env_id is None or answers.kind is None:
            raise ParetoscopeError(f"{path.name}: say which env and PEDA type it is for")
        unknown = sorted(set(answers.options) - {"dataset", "n_head"})
        if unknown:
            raise ParetoscopeError(
                f"--set {printable(unknown[0], QUOTE_LIMIT)}: the PEDA importer takes "
                "dataset=FILE and n_head=N"
            )
        n_head = option_number(answers, "n_head", int, 1) if "n_head" in answers.options else 1
        return import_peda(
            path,
            answers.env_id,
            answers.kind,
            dataset=answers.options.get("dataset"),
            n_head=n_head,
        )


IMPORTER = PedaImporter()
