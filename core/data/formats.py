"""Dataset formats: what a file or folder is, cheaply, and the one registry of formats.

A dataset format is one module with one object that has
- ``name`` (``native``, ``minari``, ``d4morl``, ...), ``description`` (what such a dataset looks
  like, for messages: "a D4MORL .pkl file") and ``suffixes``, the file endings an upload of
  this format may have (``()`` for a folder);
- ``check_signature(name, payload)``: refuse an upload whose first bytes cannot be this format;
- ``sniff(path) -> DatasetHeader | None``: cheap (name, JSON header; no data read), None for a
  path of another format; raises `ParetoscopeError` when it claims the path but cannot read it;
- ``open(source, env_id=None, progress=False) -> Trajectories``: the whole dataset;
- optionally ``prefix``: sources written ``PREFIX:ID`` are this format's (``minari:``);
- optionally ``stream(source, env_id=None, progress=False) -> TrajectoryStream``: the dataset
  read once, trajectory by trajectory (summaries and conversion to native then hold no copy);
- optionally ``summary(source, env_id=None, progress=False) -> DatasetSummary``: a format that
  caches its own summary (native); the others get a sidecar cache
  (`paretoscope.data.sources.dataset_summary`), beside a single-file source or in the folder of
  ``data_files(source)``, the files whose change makes it stale (optional too);
- optionally ``write(trajectories, destination, overwrite=False, progress=False) -> Path`` and
  ``write_stream(stream, destination, overwrite=False, progress=False) -> Path``.

`register_dataset_format` adds one (``"module:attribute"`` is imported when first used), and so
does an installed package's entry point in the group ``paretoscope.dataset_formats``. Discovery
(`paretoscope.catalog`), ``paretoscope data list/show/convert``, `open_dataset`, summaries and
the dashboard's uploads all find formats here, so none of them names one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry, with_members

if TYPE_CHECKING:
    from paretoscope.data.trajectories import DatasetInfo, Trajectories, Trajectory

# paretoscope's own format: what `convert` writes when neither --to nor the output's name
# (a prefix or suffix some format claims) says otherwise.
DEFAULT_OUTPUT_FORMAT = "native"


@dataclass(frozen=True)
class DatasetHeader:
    """What a dataset says about itself from its name and header alone."""

    format: str  # native | minari | d4morl | ...
    env_id: str | None  # None when neither name nor header says (the user must)
    n_trajectories: int | None = None
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)  # steps, bytes, ...
    no_env_reason: str = ""  # why env_id can be None, for the message asking for it


@dataclass
class TrajectoryStream:
    """A dataset read once, trajectory by trajectory, each already checked against its env."""

    info: DatasetInfo
    trajectories: Iterator[Trajectory]
    count: int | None = None  # for a progress bar; None when the reader shows its own
    # Whether some trajectory's next observations differ from its shifted observations.
    store_next_observations: bool = False


class DatasetFormat(Protocol):
    name: str
    description: str
    suffixes: tuple[str, ...]

    def check_signature(self, name: str, payload: bytes) -> None: ...

    def sniff(self, path: Path) -> DatasetHeader | None: ...

    def open(
        self, source: str | Path, env_id: str | None = None, progress: bool = False
    ) -> Trajectories: ...


class DatasetWriter(Protocol):
    """A format that can write (`writable_formats`)."""

    def write(
        self,
        trajectories: Trajectories,
        destination: str | Path,
        overwrite: bool = False,
        progress: bool = False,
    ) -> Path: ...


DATASET_FORMATS: Registry[DatasetFormat] = Registry(
    "dataset format",
    {
        "native": "paretoscope.data.native:FORMAT",
        "minari": "paretoscope.data.minari_io:FORMAT",
        "d4morl": "paretoscope.data.d4morl:FORMAT",
    },
    entry_point_group="paretoscope.dataset_formats",
    from_entry_point=with_members(
        "a dataset format", "name", "description", "suffixes", "check_signature", "sniff", "open"
    ),
)


def register_dataset_format(name: str, format: DatasetFormat | str, replace: bool = False) -> None:
    """Add a format (asked after the ones before it); `format` may be ``"module:attribute"``,
    imported when first used. An existing name is refused unless `replace`."""
    DATASET_FORMATS.register(name, format, replace=replace)


def dataset_formats() -> list[str]:
    """The registered formats' names, in the order they are asked."""
    return DATASET_FORMATS.names()


def get_dataset_format(name: str) -> DatasetFormat:
    return DATASET_FORMATS.get(name)


def writable_formats() -> list[str]:
    """The formats `convert` can write (those with ``write``)."""
    return [
        name
        for name in dataset_formats()
        if callable(getattr(get_dataset_format(name), "write", None))
    ]


def sniff_dataset(path: str | Path) -> DatasetHeader | None:
    """The header of the first format that claims `path`, None when none does."""
    location = Path(path)
    for format in DATASET_FORMATS.values():
        header = format.sniff(location)
        if header is not None:
            return header
    return None


def claims_dataset(path: str | Path) -> bool:
    """Whether some format claims `path`, even if it then fails to read its header."""
    try:
        return sniff_dataset(path) is not None
    except ParetoscopeError:
        return True


def dataset_suffixes() -> tuple[str, ...]:
    """Every file ending some format may claim (what uploads accept as datasets)."""
    found: dict[str, None] = {}
    for format in DATASET_FORMATS.values():
        found.update(dict.fromkeys(format.suffixes))
    return tuple(found)


def check_dataset_signature(name: str, payload: bytes) -> None:
    """Refuse an upload whose first bytes fit no format that claims its suffix."""
    suffix = Path(name).suffix.lower()
    first_refusal: ParetoscopeError | None = None
    for format in DATASET_FORMATS.values():
        if suffix not in format.suffixes:
            continue
        try:
            format.check_signature(name, payload)
            return
        except ParetoscopeError as error:
            first_refusal = first_refusal or error
    raise first_refusal or ParetoscopeError(f"{name}: no dataset format reads {suffix} files")


def expected_datasets() -> str:
    """What a dataset may be, for a message: each format's description."""
    described = [format.description for format in DATASET_FORMATS.values()]
    if len(described) < 2:
        return "".join(described)
    return f"{', '.join(described[:-1])} or {described[-1]}"


def format_of(source: str | Path) -> DatasetFormat:
    """The format that reads `source` (a path, or ``PREFIX:ID``); a `ParetoscopeError` saying
    what was expected when none does."""
    text = str(source)
    for format in DATASET_FORMATS.values():
        prefix = getattr(format, "prefix", "")
        if prefix and text.startswith(prefix):
            return format
    path = Path(source)
    if not path.exists():
        raise ParetoscopeError(f"{path}: no such file or directory")
    for format in DATASET_FORMATS.values():
        if format.sniff(path) is not None:
            return format
    what = (
        "is a directory that no dataset format reads"
        if path.is_dir()
        else ("no dataset format reads this file")
    )
    raise ParetoscopeError(f"{path}: {what} (expected {expected_datasets()})")


def read_stream(
    format: DatasetFormat, source: str | Path, env_id: str | None = None, progress: bool = False
) -> TrajectoryStream:
    """`source` read once, trajectory by trajectory: the format's own `stream`, else its
    `open`."""
    stream = getattr(format, "stream", None)
    if callable(stream):
        streamed: TrajectoryStream = stream(source, env_id=env_id, progress=progress)
        return streamed
    trajectories = format.open(source, env_id=env_id, progress=progress)
    return TrajectoryStream(
        trajectories.info,
        iter(trajectories),
        count=len(trajectories),
        store_next_observations=trajectories.next_observations is not None,
    )
