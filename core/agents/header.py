"""What an agent file says about itself without loading it: `AgentHeader`, for paretoscope's
own checkpoints (`paretoscope.agents.checkpoint_header`) and for the files an importer reads
(`header_from_plan`). Sniffing a path for one is `paretoscope.agents.formats`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    """The header of a file an importer claims, from the importer's plan for it."""
    return AgentHeader(
        format=plan.format,
        env_id=plan.env_id,
        kind=plan.kind or plan.format,
        return_conditioned=plan.return_conditioned,
        description=plan.description,
        plan=plan,
    )
