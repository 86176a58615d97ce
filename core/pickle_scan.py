"""What a ``torch.save`` file holds, read from its pickle's opcodes without running any of it.

A ``torch.save`` file is a zip whose ``<name>/data.pkl`` describes the saved object. Walking that
pickle's opcodes (`pickletools.genops`, which only decodes them) tells which globals the file
would ask for, which strings it holds (a saved dict's keys) and whether the top-level object is
a dict or something built from a class, all without torch and without unpickling. Sniffers use
this to tell one trainer's checkpoint from another's in milliseconds.
"""

from __future__ import annotations

import io
import pickletools
import zipfile
from dataclasses import dataclass
from pathlib import Path

# A data.pkl larger than this is not scanned (the tensors live in other zip members, so even a
# big checkpoint's pickle is small; a replay buffer's arrays sit in it, a few MB at most).
MOST_PICKLE_BYTES = 256 * 2**20
_STRING_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"}


@dataclass(frozen=True)
class PickleScan:
    """The globals, strings and top-level shape of a torch file's pickle."""

    globals: frozenset[str]  # "module.name" of every class or function the pickle names
    strings: frozenset[str]  # every text string (dict keys among them)
    top_level: str  # "dict", "list", "object" (built from a global) or "other"

    def has(self, *strings: str) -> bool:
        return all(string in self.strings for string in strings)

    def has_prefix(self, prefix: str) -> bool:
        return any(string.startswith(prefix) for string in self.strings)


def is_torch_zip(path: Path) -> bool:
    """Whether `path` is a file in ``torch.save``'s zip layout (one ``*/data.pkl`` member)."""
    return path.is_file() and zipfile.is_zipfile(path) and _pickle_member(path) is not None


def scan_torch_file(path: Path) -> PickleScan | None:
    """The scan of a ``torch.save`` zip, None for any other file (or an unreadable pickle)."""
    if not path.is_file() or not zipfile.is_zipfile(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            member = _pickle_member_of(archive)
            if member is None or member.file_size > MOST_PICKLE_BYTES:
                return None
            payload = archive.read(member)
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None
    return scan_pickle(payload)


def scan_pickle(payload: bytes) -> PickleScan | None:
    """The scan of pickle bytes; None when the opcodes do not decode (a damaged pickle)."""
    names: set[str] = set()
    strings: set[str] = set()
    recent: list[str] = []
    top_level = "other"
    first = True
    try:
        for opcode, argument, _ in pickletools.genops(io.BytesIO(payload)):
            name = opcode.name
            if name in ("PROTO", "FRAME"):
                continue
            if first:
                top_level = {
                    "EMPTY_DICT": "dict",
                    "DICT": "dict",
                    "EMPTY_LIST": "list",
                    "LIST": "list",
                    "GLOBAL": "object",
                    "STACK_GLOBAL": "object",
                }.get(name, "other")
                # STACK_GLOBAL's module and name are pushed as strings first.
                if name in _STRING_OPS:
                    top_level = "object"
                first = False
            if name in _STRING_OPS and isinstance(argument, str):
                strings.add(argument)
                recent = [*recent[-1:], argument]
            elif name == "GLOBAL" and isinstance(argument, str):
                names.add(argument.replace(" ", "."))
            elif name == "STACK_GLOBAL" and len(recent) == 2:
                names.add(f"{recent[0]}.{recent[1]}")
    except (ValueError, EOFError, UnicodeDecodeError):
        return None
    return PickleScan(frozenset(names), frozenset(strings), top_level)


def _pickle_member(path: Path) -> zipfile.ZipInfo | None:
    try:
        with zipfile.ZipFile(path) as archive:
            return _pickle_member_of(archive)
    except (OSError, zipfile.BadZipFile):
        return None


def _pickle_member_of(archive: zipfile.ZipFile) -> zipfile.ZipInfo | None:
    members = [info for info in archive.infolist() if info.filename.endswith("/data.pkl")]
    # torch writes exactly one, at the archive's top folder.
    top = [info for info in members if info.filename.count("/") == 1]
    return top[0] if len(top) == 1 else None


def check_torch_signature(name: str, head: bytes) -> None:
    """Refuse bytes that start neither a ``torch.save`` zip nor a legacy torch pickle."""
    from paretoscope.errors import ParetoscopeError

    if not (head.startswith(b"PK\x03\x04") or head.startswith(b"\x80")):
        raise ParetoscopeError(
            f"{name}: not a torch checkpoint (expected a torch.save zip or pickle)"
        )
