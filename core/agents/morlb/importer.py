"""The MORL-Baselines importer: its ``save()`` files (and PGMORL's documented one) as agents.

MORL-Baselines saves ``torch.save(dict)`` (``<experiment>.tar``) with weights only: no env, no
constructor arguments. So the algorithm is told from the saved dict's keys (read from the
pickle's opcodes, no torch: `paretoscope.pickle_scan`), the env from an env id in the path or the
user,
and every size from the tensor shapes; a size that does not fit the env is named with its
tensor. Files that also hold a replay buffer or numpy arrays are read with the restricted
unpickler (`paretoscope.torch_files.read_torch_file`), which skips the buffer without running it.
PCN
pickles its whole model: refused unless trusted, then read once and converted.

Algorithms (``--kind``): capql, gpi-pd-continuous, envelope, gpi-ls, gpi-pd, morld, pcn, pgmorl.
"""

from __future__ import annotations

from pathlib import Path

from paretoscope.agents.base import Agent
from paretoscope.agents.importers import (
    ImportAnswers,
    ImportPlan,
    Question,
    env_id_in_path,
    file_sha256,
    option_number,
)
from paretoscope.agents.morlb.algorithms import ALGORITHMS
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.pickle_scan import PickleScan, check_torch_signature, scan_torch_file
from paretoscope.text import QUOTE_LIMIT, printable

SUFFIXES = (".tar", ".pt", ".pth")
PCN_MODELS = (
    "morl_baselines.multi_policy.pcn.pcn.DiscreteActionsDefaultModel",
    "morl_baselines.multi_policy.pcn.pcn.ContinuousActionsDefaultModel",
)


MEMBER_CHOICES = ("archive", "population", "all")


def algorithm_from_scan(scan: PickleScan) -> str | None:
    """The algorithm whose save() layout the pickle's keys and globals show, None if none."""
    if any(name in scan.globals for name in PCN_MODELS):
        return "pcn"
    if scan.top_level != "dict":
        return None
    if scan.has("pgmorl_archive"):
        return "pgmorl"
    if scan.has_prefix("population_policy_") or scan.has_prefix("archive_policy_"):
        return "morld"
    if scan.has("psi_net_0_state_dict"):
        return "gpi-pd" if scan.has_prefix("dynamics") else "gpi-ls"
    if scan.has("policy_state_dict", "M"):
        return "gpi-pd-continuous"
    if scan.has("policy_state_dict", "log_std_linear.weight"):
        return "capql"
    if scan.has("q_net_state_dict"):
        return "envelope"
    return None


class MorlBaselinesImporter:
    """CAPQL, GPI-PD, GPI-LS, Envelope, MORL/D, PCN and PGMORL checkpoints."""

    name = "morl-baselines"
    suffixes = SUFFIXES

    def check_signature(self, name: str, payload: bytes) -> None:
        check_torch_signature(name, payload[:16])

    def sniff(self, path: Path) -> ImportPlan | None:
        if not (path.is_file() and path.suffix in SUFFIXES):
            return None
        scan = scan_torch_file(path)
        algorithm = algorithm_from_scan(scan) if scan is not None else None
        if algorithm is None:
            return None
        env_id = env_id_in_path(path)
        questions: list[Question] = []
        if env_id is None:
            questions.append(Question("env", "its environment (MORL-Baselines does not save it)"))
        if algorithm == "pcn":
            questions.append(
                Question("horizon", "the desired horizon PCN starts each episode with (steps)")
            )
        if algorithm == "morld":
            questions.append(
                Question("members", "which policies to import", MEMBER_CHOICES, "archive")
            )
            questions.append(
                Question(
                    "sample",
                    "sample actions as MOSAC does (else its mean)",
                    ("false", "true"),
                    "false",
                )
            )
        if algorithm in ("gpi-ls", "gpi-pd"):
            questions.append(
                Question(
                    "use_gpi", "act with GPI over the weight support", ("true", "false"), "true"
                )
            )
        label = ALGORITHMS[algorithm].label
        return ImportPlan(
            format=self.name,
            kind=algorithm,
            env_id=env_id,
            description=f"MORL-Baselines {label} checkpoint {path.name}",
            kinds=tuple(ALGORITHMS),
            questions=tuple(questions),
            needs_trust=algorithm == "pcn",
            return_conditioned=algorithm == "pcn",
        )

    def inspect(self, path: Path) -> dict[str, object]:
        """What the file holds besides its layout (torch, no code run): tensors, training
        progress, the objects the restricted reader left unread, and the envs its tensors fit
        (``env_candidates``, best guess first, and ``env_guess``)."""
        from paretoscope.agents.morlb.convert import inspect_file

        scan = scan_torch_file(path)
        algorithm = algorithm_from_scan(scan) if scan is not None else None
        known = ALGORITHMS.get(algorithm) if algorithm is not None else None
        return inspect_file(path, known, env_id_in_path(path))

    def convert(self, path: Path, answers: ImportAnswers) -> Agent:
        from paretoscope.agents.morlb.convert import convert

        if answers.kind not in ALGORITHMS or answers.env_id is None:
            raise ParetoscopeError(f"{path.name}: say its algorithm (--kind) and env (--env)")
        env = get_spec(answers.env_id)
        known = {"desired_return", "horizon", "max_return", "members", "sample", "use_gpi"}
        unknown = sorted(set(answers.options) - known)
        if unknown:
            raise ParetoscopeError(
                f"--set {printable(unknown[0], QUOTE_LIMIT)}: the MORL-Baselines importer takes "
                f"{', '.join(sorted(known))}"
            )
        options = dict(answers.options)
        if answers.kind == "pcn":
            options["horizon"] = str(option_number(answers, "horizon", float, 1))
        training = {
            "source": "morl-baselines",
            "algorithm": answers.kind,
            "original_file": path.name,
            "original_sha256": file_sha256(path),
        }
        return convert(path, ALGORITHMS[answers.kind], env, options, answers.trust, training)


IMPORTER = MorlBaselinesImporter()
