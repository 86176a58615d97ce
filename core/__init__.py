"""paretoscope core: everything that is not UI (environments, data, agents, metrics, evaluation).

Nothing under ``core`` imports streamlit; the dashboard builds on top of it.
"""

from paretoscope.errors import ParetoscopeError

__version__ = "0.1.0"

__all__ = ["ParetoscopeError", "__version__"]
