"""Agent files: cheap, torch-free sniffing of what a file or folder is.

A path is either paretoscope's own checkpoint (`paretoscope.agents.checkpoint_header`) or a file
some importer reads (`paretoscope.agents.importers`: PEDA, MORL-Baselines, an installed
plug-in's). Either way the answer is an `AgentHeader` (`paretoscope.agents.header`), told without
loading weights. Discovery (`paretoscope.catalog`), the CLI and uploads all ask `sniff_agent`, so
a new format is one importer and its registration.
"""

from __future__ import annotations

from pathlib import Path

from paretoscope.agents.header import AgentHeader, header_from_plan
from paretoscope.errors import ParetoscopeError


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
