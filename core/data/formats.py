"""Dataset file formats: cheap sniffing of what a file or folder is, without reading it.

Each format's own module (`paretoscope.data.native`, `paretoscope.data.minari_io`,
`paretoscope.data.d4morl`) says
whether a path is one of its datasets and what its header tells (`DatasetHeader`). Discovery
(`paretoscope.catalog`), the CLI (`paretoscope data list`) and uploads all ask `sniff_dataset`, so a
new format is one sniffer plus a `register_dataset_format` call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.lazy import SnifferRegistry


@dataclass(frozen=True)
class DatasetHeader:
    """What a dataset says about itself from its name and header alone."""

    format: str  # native | minari | d4morl | ...
    env_id: str | None  # None when neither name nor header says (the user must)
    n_trajectories: int | None = None
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)  # steps, bytes, ...
    no_env_reason: str = ""  # why env_id can be None, for the message asking for it


# (path) -> its header, None when the path is not of this format; raises `ParetoscopeError`
# when it claims to be but its header cannot be read.
DatasetSniffer = Callable[[Path], "DatasetHeader | None"]

_REGISTRY: SnifferRegistry[DatasetHeader] = SnifferRegistry(
    {
        "native": "paretoscope.data.native:sniff_native",
        "minari": "paretoscope.data.minari_io:sniff_minari",
        "d4morl": "paretoscope.data.d4morl:sniff_d4morl",
    }
)


def register_dataset_format(name: str, sniffer: DatasetSniffer | str) -> None:
    """Add (or replace) a format; `sniffer` may be ``"module:function"``, imported when used."""
    _REGISTRY.register(name, sniffer)


def dataset_formats() -> list[str]:
    return _REGISTRY.names()


def sniff_dataset(path: str | Path) -> DatasetHeader | None:
    """The header of the first format that claims `path`, None when none does."""
    return _REGISTRY.sniff(Path(path))


def claims_dataset(path: str | Path) -> bool:
    """Whether some format claims `path`, even if it then fails to read its header."""
    try:
        return sniff_dataset(path) is not None
    except ParetoscopeError:
        return True
