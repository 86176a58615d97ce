"""Agent files: cheap, torch-free sniffing of what a file or folder is.

A path is either paretoscope's own checkpoint (`paretoscope.agents.checkpoint_header`) or a file
some
importer reads (`paretoscope.agents.importers`: PEDA, MORL-Baselines, an installed plug-in's).
Either
way the answer is an `AgentHeader`, told without loading weights. Discovery (`paretoscope.catalog`),
the CLI and uploads all ask `sniff_agent`, so a new format is one importer and its registration.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paretoscope.errors import ParetoscopeError

if TYPE_CHECKING:
    from paretoscope.agents.importers import ImportPlan

CHECKPOINT_FORMAT = "checkpoint"


@dataclass(frozen=True)
class AgentHeader:
    """What an agent file says about itself without loading it."""

    format: str  # "checkpoint" (paretoscope's own) or an importer's name ("peda", ...)
    env_id: str | None  # None when the file does not say (the user must)
    kind: str  # morvs, bc, modt, policy_set, ... or the foreign kind when known
    return_conditioned: bool
    description: str = ""
    # For a foreign file: what its importer found and what it still asks.
    plan: ImportPlan | None = None

    def open_questions(self, env_id: str | None = None, kind: str | None = None) -> tuple[str, ...]:
        """What must still be answered before the file can be imported (given `env_id` and
        `kind` from elsewhere, a manifest): question names, and "trust" for a file that can
        only be read by running it. Empty for paretoscope's own checkpoints."""
        if self.plan is None:
            return ()
        open_names = []
        if (env_id or self.env_id) is None:
            open_names.append("env")
        for question in self.plan.questions:
            if question.name == "env":
                continue
            if question.name == "kind":
                if (kind or self.plan.kind or question.default) is None:
                    open_names.append("kind")
            elif question.default is None:
                open_names.append(question.name)
        if self.plan.needs_trust:
            open_names.append("trust")
        return tuple(open_names)


def header_from_plan(plan: ImportPlan) -> AgentHeader:
    return AgentHeader(
        format=plan.format,
        env_id=plan.env_id,
        kind=plan.kind or plan.format,
        return_conditioned=plan.return_conditioned,
        description=plan.description,
        plan=plan,
    )


def sniff_agent(path: str | Path) -> AgentHeader | None:
    """The header of a paretoscope checkpoint or of a file an importer claims; None otherwise."""
    from paretoscope.agents.checkpoint_header import sniff_checkpoint
    from paretoscope.agents.importers import sniff_import

    location = Path(path)
    header = sniff_checkpoint(location)
    if header is not None:
        return header
    plan = sniff_import(location)
    return None if plan is None else header_from_plan(plan)


def claims_agent(path: str | Path) -> bool:
    """Whether some format claims `path`, even if it then fails to read it."""
    try:
        return sniff_agent(path) is not None
    except ParetoscopeError:
        return True
