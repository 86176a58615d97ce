"""Uploaded files: checked, then kept in a private temporary folder that lives as long as the
session (and never longer than the server).

- Size: at most `paretoscope.dashboard.limits.max_upload_bytes` (Streamlit's
``server.maxUploadSize`` is set
  to the same limit, so the browser refuses bigger files before sending them; this check holds
  whatever the front end says).
- Type: the name's suffix says what the file must be, and its first bytes must agree
  (a safetensors header, a zip signature, or what the importer or dataset format that claims
  the suffix checks: a pickle's for D4MORL); anything else is refused.
- Place: one folder per server process made by `tempfile.mkdtemp` (mode 0700, readable by the
  server's user only), one folder per session below it; the session's folder is removed when
  the session ends (its state is released, or the janitor sees it gone) and everything at exit.
- Content: nothing is executed or imported; pickles are read only by the restricted unpickler
  and torch files only with ``weights_only=True``; zips are unpacked member by member with
  their paths, kinds and sizes checked.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import shutil
import stat
import tempfile
import threading
import time
import weakref
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from paretoscope.agents.checkpoint_header import SINGLE_FILE_SUFFIX
from paretoscope.agents.importers import check_import_signature, importer_suffixes
from paretoscope.dashboard.limits import max_upload_bytes
from paretoscope.data.formats import check_dataset_signature, dataset_suffixes
from paretoscope.errors import ParetoscopeError

ARCHIVE_SUFFIXES = (".zip",)
# A zip may unpack to this many times the upload limit, in at most this many members.
UNPACKED_FACTOR = 5
MOST_ZIP_MEMBERS = 10_000
# A session folder whose session is gone is removed after this many seconds.
STALE_SECONDS = 300.0

_root: Path | None = None
_root_lock = threading.Lock()


def agent_suffixes() -> tuple[str, ...]:
    """Paretoscope's own single files, then whatever the importers read (PEDA .ckpt,
    MORL-Baselines .tar, an installed importer's)."""
    return (SINGLE_FILE_SUFFIX, *importer_suffixes())


def accepted_types() -> list[str]:
    """Every file ending an upload may have (without the dot): agents, the dataset formats'
    files (D4MORL .pkl, an installed format's) and zipped folders."""
    suffixes = (*agent_suffixes(), *dataset_suffixes(), *ARCHIVE_SUFFIXES)
    return [suffix[1:] for suffix in dict.fromkeys(suffixes)]


def human_bytes(count: int) -> str:
    return f"{count / 2**20:.0f} MB" if count >= 2**20 else f"{count} bytes"


# --- the private folders ---------------------------------------------------------------------


def upload_root() -> Path:
    """This server process's private upload folder (0700), removed when the process exits."""
    global _root
    with _root_lock:
        if _root is None or not _root.is_dir():
            _root = Path(tempfile.mkdtemp(prefix="paretoscope-uploads-"))
            atexit.register(shutil.rmtree, _root, True)
        return _root


def upload_root_if_made() -> Path | None:
    """This process's upload folder if one was made (for hiding its path in messages)."""
    return _root


class SessionFolder:
    """A session's upload folder; removed when this object is released (the session's state is
    dropped) or by `remove_stale_folders` once the session is gone."""

    def __init__(self, session_id: str) -> None:
        safe_id = "".join(c for c in session_id if c.isalnum() or c == "-")[:64] or "anonymous"
        self.path = Path(tempfile.mkdtemp(prefix=f"session-{safe_id}-", dir=upload_root()))
        self.session_id = session_id
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(self.path), True)

    def touch(self) -> None:
        """Mark the folder as in use (the janitor spares recently used folders)."""
        with contextlib.suppress(OSError):
            self.path.touch()

    def remove(self) -> None:
        self._finalizer()


def session_of(folder: Path) -> str | None:
    name = folder.name
    if not name.startswith("session-"):
        return None
    return name[len("session-") :].rsplit("-", 1)[0]


def remove_stale_folders(
    is_active: Callable[[str], bool], stale_seconds: float = STALE_SECONDS
) -> list[Path]:
    """Remove the session folders whose session is no longer active and that were not used for
    `stale_seconds`; returns what was removed."""
    removed = []
    root = upload_root()
    now = time.time()
    for folder in root.iterdir():
        session = session_of(folder)
        if session is None or is_active(session):
            continue
        try:
            idle = now - folder.stat().st_mtime
        except OSError:
            continue
        if idle >= stale_seconds:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


# --- checking and storing one upload ---------------------------------------------------------


def check_signature(name: str, payload: bytes) -> None:
    """Refuse a file whose first bytes do not fit the type its suffix claims (each format's
    own module knows its signature)."""
    from paretoscope.agents.checkpoint_header import check_safetensors_signature

    suffix = Path(name).suffix.lower()
    head = payload[:16]
    if suffix == ".safetensors":
        check_safetensors_signature(name, payload)
    elif suffix in importer_suffixes():
        check_import_signature(name, payload)
    elif suffix in dataset_suffixes():
        check_dataset_signature(name, payload)
    elif suffix == ".zip" and not (
        head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06")
    ):
        raise ParetoscopeError(f"{name}: not a zip file")


def store_upload(folder: Path, file_name: str, payload: bytes, limit: int | None = None) -> Path:
    """Put an uploaded file where discovery finds it: agents/ or datasets/ under `folder`.

    The file must be at most `limit` bytes (default: the server's upload limit), of a known
    type, and look like that type. A zip must hold one checkpoint folder (config.json) or one
    native dataset folder (paretoscope-dataset.json); its members may not leave the folder.
    """
    name = Path(str(file_name).replace("\\", "/")).name
    limit = max_upload_bytes() if limit is None else int(limit)
    if not name or name in (".", ".."):
        raise ParetoscopeError(f"{file_name!r}: not a usable file name")
    suffix = Path(name).suffix.lower()
    if not payload:
        raise ParetoscopeError(f"{name}: the file is empty")
    if len(payload) > limit:
        raise ParetoscopeError(
            f"{name}: {human_bytes(len(payload))}, more than the upload limit of "
            f"{human_bytes(limit)} (paretoscope dashboard --max-upload-mb)"
        )
    if suffix in agent_suffixes():
        target = folder / "agents" / name
    elif suffix in dataset_suffixes():
        target = folder / "datasets" / name
    elif suffix in ARCHIVE_SUFFIXES:
        check_signature(name, payload)
        return _store_zip(folder, name, payload, limit * UNPACKED_FACTOR)
    else:
        datasets = " or ".join(dataset_suffixes())
        raise ParetoscopeError(
            f"{name}: expected a .safetensors or .ckpt checkpoint, a {datasets} dataset or a .zip"
        )
    check_signature(name, payload)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(payload)
    return target


def _member_path(archive_name: str, member: zipfile.ZipInfo) -> PurePosixPath:
    raw = member.filename
    path = PurePosixPath(raw)
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise ParetoscopeError(f"{archive_name}: refused, member {raw!r} is a symbolic link")
    if (
        raw.startswith("/")
        or "\\" in raw
        or ".." in path.parts
        or (path.parts and ":" in path.parts[0])
        or "\x00" in raw
    ):
        raise ParetoscopeError(f"{archive_name}: refused, member {raw!r} leaves the folder")
    return path


def _store_zip(folder: Path, name: str, payload: bytes, unpacked_limit: int) -> Path:
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ParetoscopeError(f"{name}: not a zip file (or a damaged one)") from None
    members = [m for m in infos if not m.is_dir()]
    if len(infos) > MOST_ZIP_MEMBERS:
        raise ParetoscopeError(f"{name}: refused, more than {MOST_ZIP_MEMBERS} members")
    paths = {id(member): _member_path(name, member) for member in members}
    declared = sum(member.file_size for member in members)
    if declared > unpacked_limit:
        raise ParetoscopeError(
            f"{name}: refused, {human_bytes(declared)} when unpacked (at most "
            f"{human_bytes(unpacked_limit)})"
        )
    file_names = {paths[id(m)].name: paths[id(m)] for m in members}
    if "config.json" in file_names:
        kind = "agents"
        marker = file_names["config.json"]
    elif "paretoscope-dataset.json" in file_names:
        kind = "datasets"
        marker = file_names["paretoscope-dataset.json"]
    else:
        raise ParetoscopeError(
            f"{name}: holds neither a checkpoint (config.json) nor a native dataset "
            "(paretoscope-dataset.json)"
        )
    inner = marker.parent
    inner_parts = inner.parts if str(inner) != "." else ()
    target = folder / kind / (inner.name if inner_parts else Path(name).stem)
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=folder))
    try:
        written = 0
        for member in members:
            relative = paths[id(member)]
            if relative.parts[: len(inner_parts)] != inner_parts:
                continue
            destination = staging.joinpath(*relative.parts[len(inner_parts) :])
            destination.parent.mkdir(parents=True, exist_ok=True)
            written += _copy_member(archive, member, destination, unpacked_limit - written, name)
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(target)
    except zipfile.BadZipFile as error:
        raise ParetoscopeError(f"{name}: damaged zip ({error})") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _copy_member(
    archive: zipfile.ZipFile, member: zipfile.ZipInfo, destination: Path, budget: int, name: str
) -> int:
    """Unpack one member, stopping as soon as it writes more than it declared or than `budget`
    (a zip whose headers lie about sizes)."""
    allowed = min(member.file_size, budget)
    written = 0
    try:
        with archive.open(member) as source, open(destination, "wb") as sink:
            while True:
                chunk = source.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                if written > allowed:
                    raise ParetoscopeError(
                        f"{name}: refused, member {member.filename!r} unpacks to more than "
                        "it declares or than the limit"
                    )
                sink.write(chunk)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as error:
        raise ParetoscopeError(
            f"{name}: member {member.filename!r} cannot be unpacked ({error})"
        ) from None
    return written
