"""The plug-in agents this server offers: those its command line names (``paretoscope
dashboard --agent py:module:callable``, `paretoscope.dashboard.limits.plugin_sources`) and those
installed
packages declare (entry-point group ``paretoscope.agents``). Registered once per process, before
the sidebar lists agents; `paretoscope.catalog.AssetCatalog.agent_choices` then lists them on every
page, for every env they serve.

Importing a plug-in runs its code, so the list of plug-ins comes from the server's own
environment only: nothing a viewer sends (a link's ``agent=py:...``, a typed folder, an upload)
reaches `register_plugin`. A link may only choose, by name, a plug-in already registered.
"""

from __future__ import annotations

import threading

from paretoscope.agents.builtin import named_agents, register_entry_points, register_plugin
from paretoscope.dashboard.limits import plugin_sources
from paretoscope.errors import ParetoscopeError

_lock = threading.Lock()
# Plug-ins that could not be registered, and why: tried once per process, reported every run.
_failed: dict[str, str] = {}


def register_plugins() -> list[tuple[str, str]]:
    """Register the server's plug-ins and the installed ones (each once per process); returns
    (what, why) for each that failed, for the page to show."""
    problems: list[tuple[str, str]] = []
    with _lock:
        registered = {agent.name for agent in named_agents()}
        for source in plugin_sources():
            if source in registered:
                continue
            if source not in _failed:
                try:
                    register_plugin(source)
                    continue
                except ParetoscopeError as error:  # an import that fails in any way says so
                    _failed[source] = str(error)
            problems.append((f"plug-in {source}", _failed[source]))
        problems.extend(("installed plug-ins", message) for message in register_entry_points())
    return problems
