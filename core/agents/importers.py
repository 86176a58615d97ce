"""Importers: turning another tool's checkpoint into a paretoscope agent.

An importer is one module with one object that has
- ``name``: the format it reads (``peda``, ``morl-baselines``, ...) and ``suffixes``, the file
  endings it may claim (uploads accept those);
- ``check_signature(name, payload)``: refuse an upload whose first bytes cannot be its format;
- ``sniff(path) -> ImportPlan | None``: cheap (no torch where it can), None for files it does not
  read; the plan says what the file is and what the importer still needs to know;
- ``convert(path, answers) -> Agent``: the agent, acting exactly as the original tool would.
  Saving it (`paretoscope.agents.save`) writes a paretoscope checkpoint: JSON config + safetensors;
- optionally ``inspect(path) -> dict``: what a closer (torch) look tells, for ``agent show``
  and the dashboard's form (PEDA's names ``env_candidates``, the envs its tensors fit).

`register_importer` adds one (``"module:attribute"`` strings are imported when first used), and
so does an installed package's entry point in the group ``paretoscope.importers``. The CLI
(``paretoscope agent import``), asset discovery, the dashboard's import form and uploads all go
through `sniff_import` and `import_agent`, so none of them names a format.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry, with_members
from paretoscope.text import briefly

if TYPE_CHECKING:
    from paretoscope.agents.base import Agent
    from paretoscope.envs.spec import Family

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Question:
    """Something an importer cannot read from the file: the env, the kind, or its own option."""

    name: str  # "env", "kind" or an option of the importer ("horizon", ...)
    prompt: str  # what the dashboard's form and the CLI's message say
    choices: tuple[str, ...] = ()  # when the answer is one of these
    default: str | None = None  # proposed (the form preselects it; the CLI uses it if not told)


@dataclass(frozen=True)
class ImportPlan:
    """What a sniff found: the format, what the file is, and the questions still open."""

    format: str  # the importer's name
    kind: str | None  # the kind of model (None: asked, see `questions`)
    env_id: str | None  # None: asked
    description: str
    kinds: tuple[str, ...] = ()  # every kind this importer reads
    questions: tuple[Question, ...] = ()
    # A file that can only be read by running code from it (a pickled module): refused unless
    # the user trusts it (`--trust`, the dashboard's checkbox for a file on the server's disk).
    needs_trust: bool = False
    return_conditioned: bool = False

    def question(self, name: str) -> Question | None:
        return next((question for question in self.questions if question.name == name), None)


@dataclass(frozen=True)
class ImportAnswers:
    """The user's answers: env, kind, trust and the importer's own options (as text)."""

    env_id: str | None = None
    kind: str | None = None
    trust: bool = False
    options: Mapping[str, str] = field(default_factory=dict)


class Importer(Protocol):
    name: str
    suffixes: tuple[str, ...]

    def check_signature(self, name: str, payload: bytes) -> None: ...

    def sniff(self, path: Path) -> ImportPlan | None: ...

    def convert(self, path: Path, answers: ImportAnswers) -> Agent: ...


def is_importer(value: object) -> bool:
    """Whether `value` looks like an importer (has ``sniff`` and ``convert``)."""
    return callable(getattr(value, "sniff", None)) and callable(getattr(value, "convert", None))


IMPORTERS: Registry[Importer] = Registry(
    "importer",
    {
        "morl-baselines": "paretoscope.agents.morlb.importer:IMPORTER",
        "peda": "paretoscope.agents.peda.importer:IMPORTER",
    },
    entry_point_group="paretoscope.importers",
    from_entry_point=with_members(
        "an importer", "name", "suffixes", "check_signature", "sniff", "convert"
    ),
)


def register_importer(name: str, importer: Importer | str, replace: bool = False) -> None:
    """Add an importer (asked after the ones before it); ``"module:attribute"`` is imported when
    first needed. An existing name is refused unless `replace`."""
    IMPORTERS.register(name, importer, replace=replace)


def importer_names() -> list[str]:
    return IMPORTERS.names()


def get_importer(name: str) -> Importer:
    return IMPORTERS.get(name)


def importer_suffixes() -> tuple[str, ...]:
    """Every file ending some importer may claim (what uploads accept besides checkpoints)."""
    found: dict[str, None] = {}
    for importer in IMPORTERS.values():
        found.update(dict.fromkeys(importer.suffixes))
    return tuple(found)


def check_import_signature(name: str, payload: bytes) -> None:
    """Refuse an upload whose first bytes fit no importer that reads its suffix."""
    suffix = Path(name).suffix.lower()
    readers = [importer for importer in IMPORTERS.values() if suffix in importer.suffixes]
    first_refusal: ParetoscopeError | None = None
    for importer in readers:
        try:
            importer.check_signature(name, payload)
            return
        except ParetoscopeError as error:
            first_refusal = first_refusal or error
    raise first_refusal or ParetoscopeError(f"{name}: no importer reads {suffix} files")


def sniff_import(path: PathLike) -> ImportPlan | None:
    """The plan of the first importer that claims `path`; None when none does. Raises when one
    claims it but the file is damaged."""
    location = Path(path)
    for importer in IMPORTERS.values():
        plan = importer.sniff(location)
        if plan is not None:
            return plan
    return None


def import_agent(
    path: PathLike,
    env_id: str | None = None,
    kind: str | None = None,
    trust: bool = False,
    options: Mapping[str, str] | None = None,
) -> Agent:
    """The agent in a foreign checkpoint, with the user's answers; what the file and the answers
    leave open is named in one `ParetoscopeError` (nothing is run or written)."""
    location = Path(path)
    if not location.exists():
        raise ParetoscopeError(f"{location}: no such file or folder")
    plan = sniff_import(location)
    if plan is None:
        raise ParetoscopeError(
            f"{location}: no importer reads this file (importers: {', '.join(IMPORTERS.names())}; "
            "a paretoscope checkpoint is loaded as it is, without importing)"
        )
    answers = complete_answers(plan, ImportAnswers(env_id, kind, trust, dict(options or {})))
    return get_importer(plan.format).convert(location, answers)


def complete_answers(plan: ImportPlan, answers: ImportAnswers) -> ImportAnswers:
    """`answers` with the plan's own findings and defaults filled in; raises naming every open
    question, a kind the importer does not read, or a refused (untrusted) file."""
    if answers.kind is not None and plan.kinds and answers.kind not in plan.kinds:
        raise ParetoscopeError(
            f"kind {briefly(answers.kind)}: the {plan.format} importer reads "
            f"{', '.join(plan.kinds)}"
        )
    if answers.kind is not None and plan.kind is not None and answers.kind != plan.kind:
        raise ParetoscopeError(
            f"--kind {answers.kind}: {plan.description} holds a {briefly(plan.kind)} model (its "
            "keys "
            "say so); leave --kind out"
        )
    if plan.needs_trust and not answers.trust:
        raise ParetoscopeError(untrusted_message(plan))
    filled = replace(
        answers,
        env_id=answers.env_id or plan.env_id or _default(plan, "env"),
        kind=answers.kind or plan.kind or _default(plan, "kind"),
        options={
            **{
                q.name: q.default
                for q in plan.questions
                if q.name not in ("env", "kind") and q.default is not None
            },
            **answers.options,
        },
    )
    missing = [
        question
        for question in plan.questions
        if (question.name == "env" and filled.env_id is None)
        or (question.name == "kind" and filled.kind is None)
        or (question.name not in ("env", "kind") and question.name not in filled.options)
    ]
    if missing:
        flags = {"env": "--env ID", "kind": "--kind KIND"}
        asked = "; ".join(
            f"{q.prompt} ({flags.get(q.name, f'--set {q.name}=VALUE')}"
            + (f": one of {', '.join(q.choices)}" if q.choices else "")
            + ")"
            for q in missing
        )
        raise ParetoscopeError(f"{plan.description}: say {asked}")
    return filled


def untrusted_message(plan: ImportPlan) -> str:
    return (
        f"refused: {plan.description} is a whole pickled Python object, and reading it means "
        "running code the file names (a file like this can run anything). Nothing from it ran. "
        "If you made the file or trust where it came from, import it with --trust "
        "(`paretoscope agent import FILE --trust --out DIR`; in the dashboard, tick 'I trust "
        "this file' for a file on the server's disk): it is read once and converted to a safe "
        "checkpoint"
    )


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``["horizon=20", ...]`` (the CLI's ``--set``) as a dict; a pair without ``=`` raises."""
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ParetoscopeError(f"--set {briefly(pair)}: expected NAME=VALUE")
        options[key.strip()] = value.strip()
    return options


def env_id_in_path(path: Path, family: Family | None = None) -> str | None:
    """The innermost folder of `path` named after a registered env id (of `family` when
    given): training runs are often saved under their env's name."""
    from paretoscope.envs import list_ids

    known = set(list_ids(family))
    for part in reversed(path.resolve().parts):
        if part in known:
            return part
    return None


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in blocks (an imported agent records its source's)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _default(plan: ImportPlan, name: str) -> str | None:
    question = plan.question(name)
    return question.default if question is not None else None


def option_number(
    answers: ImportAnswers, name: str, cast: type[int] | type[float], minimum: float | None = None
) -> Any:
    """The option `name` as a number (int or float); a ParetoscopeError names a bad value."""
    text = answers.options.get(name)
    if text is None:
        raise ParetoscopeError(f"--set {name}=VALUE is needed")
    try:
        value = cast(text)
    except ValueError:
        raise ParetoscopeError(
            f"--set {name}={briefly(text)}: expected a {cast.__name__}"
        ) from None
    if minimum is not None and value < minimum:
        raise ParetoscopeError(f"--set {name}={briefly(text)}: expected at least {minimum:g}")
    return value
