"""What a PEDA checkpoint looks like, told without torch: its file suffixes, its three model
types and the one tensor name that tells each apart, and the D4MORL env its run folder names.
"""

from __future__ import annotations

from pathlib import Path

from paretoscope.agents.importers import env_id_in_path

PEDA_SUFFIXES = (".ckpt", ".pt", ".pth")
PEDA_TYPES = ("dt", "rvs", "bc")
# One key that each type's state_dict always has, to tell them apart.
SIGNATURE_KEYS = {
    "dt": "embed_state.weight",
    "rvs": "model.action_net.weight",
    "bc": "model.0.weight",
}


def type_from_keys(keys: frozenset[str] | set[str]) -> str | None:
    """ "dt", "rvs" or "bc" when exactly one type's signature key is among `keys`."""
    found = [name for name, key in SIGNATURE_KEYS.items() if key in keys]
    return found[0] if len(found) == 1 else None


def env_in_path(path: Path) -> str | None:
    """A D4MORL env id that is a folder of `path` (PEDA's run directories name it)."""
    return env_id_in_path(path, "d4morl")
