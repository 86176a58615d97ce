"""Import checkpoints written by PEDA's training script (MODT, MORvS, BC) as paretoscope agents.

PEDA saves ``torch.save({'model': state_dict, 'optimizer': ...}, 'ckpt/step=N.ckpt')`` with no
metadata, so everything is recovered from the tensors and from what the user says (env, type):

- The file is read with ``torch.load(weights_only=True)``: tensors and plain containers only;
  a pickle that would build any other object is refused before it can run.
- The architecture is inferred from tensor shapes (`layout`): hidden sizes, layer count, context
  length (BC), timestep table (DT) and which inputs carry the preference. Only a transformer's
  head count cannot be seen in the weights; PEDA uses one head (``n_head`` to override).
- Everything is checked against the env (observation, action and objective counts) and against
  the inferred architecture; a mismatch names the tensor and what it should be.
- PEDA's fixed per-env observation statistics (`constants`), scale 1000, horizon 500 and
  evaluation contexts come with the import. The initial target comes from a D4MORL dataset (a
  least-squares fit, as PEDA) or from PEDA's published linear models.

The modules: `signature` (what a PEDA file looks like, without torch), `importer` (the importer
registered as ``peda``, torch-free until it converts), `reader` (`import_peda`, `inspect_peda`),
`layout` and `constants`. Importing this package imports no torch; the reader's names load it
on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paretoscope.agents.peda.reader import (
        PedaCheckpointInfo,
        import_peda,
        inspect_peda,
        read_peda_checkpoint,
        target_model_from_d4morl,
    )

_READER_NAMES = frozenset(
    {
        "PedaCheckpointInfo",
        "import_peda",
        "inspect_peda",
        "read_peda_checkpoint",
        "target_model_from_d4morl",
    }
)


def __getattr__(name: str) -> Any:
    if name not in _READER_NAMES:
        raise AttributeError(f"module 'paretoscope.agents.peda' has no attribute {name!r}")
    return getattr(importlib.import_module("paretoscope.agents.peda.reader"), name)


__all__ = [
    "PedaCheckpointInfo",
    "import_peda",
    "inspect_peda",
    "read_peda_checkpoint",
    "target_model_from_d4morl",
]
