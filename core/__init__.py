"""paretoscope: see and feel the trade-offs a multi-objective agent has learned.

The library (environments, data, agents, metrics, evaluation, recordings, training) is this
package; the Streamlit app is `paretoscope.dashboard`, the command line `paretoscope.cli`
(``paretoscope`` or ``python -m paretoscope``). The library never imports streamlit: the layers
are in docs/architecture.md and pyproject.toml's import-linter contracts. Importing this package
loads nothing heavy.
"""

from paretoscope.errors import ParetoscopeError

__version__ = "0.1.0"

__all__ = ["ParetoscopeError", "__version__"]
