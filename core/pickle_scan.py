"""What a ``torch.save`` file holds, read from its pickle's opcodes without running any of it.

A ``torch.save`` file is a zip whose ``<name>/data.pkl`` describes the saved object. Walking that
pickle's opcodes (`pickletools.genops`, which only decodes them) tells which globals the file
would ask for, which strings it holds (a saved dict's keys) and whether the top-level object is
a dict or something built from a class, all without torch and without unpickling. Sniffers use
this to tell one trainer's checkpoint from another's in milliseconds.

The same scan bounds what the file would cost before torch reads it (`scan_torch_file`): every
zip record's declared inflated size is checked against `MOST_INFLATED_BYTES` and against the
bytes the archive really holds for it, and every tensor the pickle declares (its
``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` call) against the
storage it views, whose size is its record's. The tensors are found by a dry run of the pickle
in which every global is an inert stand-in (nothing of the file is called) and storages are
their persistent ids, so the run costs memory in proportion to the pickle alone.
"""

from __future__ import annotations

import collections
import io
import math
import pickle
import pickletools
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from paretoscope.errors import ParetoscopeError
from paretoscope.text import quoted

# A data.pkl larger than this is refused (the tensors live in other zip members, so even a big
# checkpoint's pickle is small; a replay buffer's arrays sit in it, a few MB at most).
MOST_PICKLE_BYTES = 256 * 2**20
# The most bytes a torch file's records may inflate to, each and all together (docs/agents.md):
# far above any MORL-Baselines or PEDA checkpoint, far below what would exhaust a laptop.
MOST_INFLATED_BYTES = 2**30
# The most elements a torch file's tensors may declare in all (1 GiB as float32).
MOST_TENSOR_ELEMENTS = 2**28
# Deflate inflates one byte to at most about 1032 (RFC 1951: a 258-byte match costs 2 bits).
_MOST_DEFLATE_RATIO = 1032
# The first pickle of a legacy (non-zip) torch file (torch.serialization.MAGIC_NUMBER).
_LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_METHODS = {zipfile.ZIP_STORED: 1, zipfile.ZIP_DEFLATED: _MOST_DEFLATE_RATIO}
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
    """The scan of a ``torch.save`` zip, None for any other file (or an unreadable pickle).

    Raises `ParetoscopeError` for a torch zip that torch could not read in bounded memory: a
    record that is encrypted, compressed with a method torch does not read, or declared to
    inflate beyond `MOST_INFLATED_BYTES` or beyond what its compressed bytes can hold
    (`_check_records`); a tensor that declares more elements than its storage holds
    (`_check_zip_tensors`).
    """
    if not path.is_file() or not zipfile.is_zipfile(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            record_sizes = _check_records(archive, path)
            member = _pickle_member_of(archive)
            if member is None:
                return None
            if member.file_size > MOST_PICKLE_BYTES:
                raise ParetoscopeError(
                    f"{path}: its pickle {quoted(member.filename)} inflates to "
                    f"{member.file_size:,} bytes, more than the {MOST_PICKLE_BYTES:,} paretoscope "
                    "reads (MOST_PICKLE_BYTES)"
                )
            payload = archive.read(member)
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, zlib.error):
        return None
    scan = scan_pickle(payload)
    if scan is not None:
        _check_zip_tensors(payload, record_sizes, member.filename.split("/")[0], path)
    return scan


def _check_records(archive: zipfile.ZipFile, path: Path) -> dict[str, int]:
    """Each record's inflated size by name, after refusing what torch cannot read or what
    would inflate beyond `MOST_INFLATED_BYTES` (each and in all) or beyond its stored bytes."""
    sizes: dict[str, int] = {}
    archive_bytes = path.stat().st_size
    for info in archive.infolist():
        name = quoted(info.filename)
        if info.flag_bits & 0x1:
            raise ParetoscopeError(f"{path}: record {name} is encrypted; torch files never are")
        ratio = _METHODS.get(info.compress_type)
        if ratio is None:
            raise ParetoscopeError(
                f"{path}: record {name} uses compression method {info.compress_type}, which "
                "torch does not read (only stored or deflated records)"
            )
        if info.file_size > MOST_INFLATED_BYTES:
            raise ParetoscopeError(
                f"{path}: record {name} inflates to {info.file_size:,} bytes, more than the "
                f"{MOST_INFLATED_BYTES:,} a torch file may hold (MOST_INFLATED_BYTES)"
            )
        if info.compress_size > archive_bytes or info.file_size > info.compress_size * ratio:
            raise ParetoscopeError(
                f"{path}: record {name} declares {info.file_size:,} bytes, more than its "
                f"{min(info.compress_size, archive_bytes):,} stored bytes can hold"
            )
        sizes[info.filename] = info.file_size
    total = sum(sizes.values())
    if total > MOST_INFLATED_BYTES:
        raise ParetoscopeError(
            f"{path}: its records inflate to {total:,} bytes in all, more than the "
            f"{MOST_INFLATED_BYTES:,} a torch file may hold (MOST_INFLATED_BYTES)"
        )
    return sizes


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
    if not (head.startswith(b"PK\x03\x04") or head.startswith(b"\x80")):
        raise ParetoscopeError(
            f"{name}: not a torch checkpoint (expected a torch.save zip or pickle)"
        )


# --- what the pickle's tensors declare -----------------------------------------------------------

# Bytes per element of the storage classes a torch pickle names.
_ELEMENT_BYTES = {
    "BoolStorage": 1,
    "ByteStorage": 1,
    "CharStorage": 1,
    "ShortStorage": 2,
    "HalfStorage": 2,
    "BFloat16Storage": 2,
    "IntStorage": 4,
    "FloatStorage": 4,
    "LongStorage": 8,
    "DoubleStorage": 8,
    "UInt16Storage": 2,
    "UInt32Storage": 4,
    "UInt64Storage": 8,
    "ComplexHalfStorage": 4,
    "ComplexFloatStorage": 8,
    "ComplexDoubleStorage": 16,
}
# More dimensions than torch builds (its kernels stop at 25): also keeps the products cheap.
_MOST_DIMENSIONS = 64
_ELEMENT_WORDS = {1: "byte", 2: "half", 4: "float", 8: "double", 16: "complex double"}


class _Stand:
    """What a dry run builds for any global (a subclass named after it, as pickle's NEWOBJ
    needs a class): calling it, giving it state or items keeps the arguments (so tensors inside
    can be named) and runs nothing."""

    stand_name = ""
    parts: list[Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> _Stand:
        instance = object.__new__(cls)
        instance.parts = [args, kwargs]
        return instance

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> _Stand:
        return type(self)(*args, **kwargs)

    def __setstate__(self, state: Any) -> None:
        self.parts.append(state)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.parts.append((key, value))

    def append(self, value: Any) -> None:
        self.parts.append(value)

    def extend(self, values: Any) -> None:
        self.parts.extend(values)


@dataclass(eq=False)
class _Storage:
    key: str
    element_bytes: int
    numel: Any


@dataclass(eq=False)
class _Tensor:
    storage: Any
    offset: Any
    size: Any
    stride: Any
    names: list[str] = field(default_factory=list)


# Rebuilders of dense tensors: (storage, offset, size, stride, ...), and those that wrap one.
_DENSE_REBUILDS = frozenset(
    f"torch._utils.{name}"
    for name in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3")
)
_WRAPPERS = frozenset(
    ("torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state")
)


class _DryRun(pickle.Unpickler):
    """Rebuilds containers; every global is a `_Stand`, a tensor a `_Tensor` record, a storage
    its persistent id."""

    def __init__(self, file: BinaryIO, path: Path) -> None:
        super().__init__(file)
        self.path = path
        self.tensors: list[_Tensor] = []
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        if full in _DENSE_REBUILDS:
            return self._rebuild_tensor
        if full == "collections.OrderedDict":
            return collections.OrderedDict
        if module == "torch._utils" and name.startswith("_rebuild") and full not in _WRAPPERS:
            # Sparse, quantized, nested, ...: sizes this scan cannot bound, tensors no agent has.
            raise ParetoscopeError(
                f"{self.path}: holds a tensor of a kind paretoscope does not read ({full})"
            )
        return type("Stand", (_Stand,), {"stand_name": full})

    def persistent_load(self, pid: Any) -> Any:
        # A zip's ids: ("storage", class, key, location, numel); a legacy file's add a view.
        if not (isinstance(pid, tuple) and len(pid) in (5, 6) and pid[0] == "storage"):
            raise pickle.UnpicklingError("a persistent id that is not a torch storage")
        named = isinstance(pid[1], type) and issubclass(pid[1], _Stand)
        kind = pid[1].stand_name.rsplit(".", 1)[-1] if named else ""
        storage = _Storage(str(pid[2]), _ELEMENT_BYTES.get(kind, 1), pid[4])
        if not _whole(storage.numel):
            raise pickle.UnpicklingError("a storage without a size")
        self.storages.setdefault(storage.key, storage)
        return storage

    def run(self) -> Any:
        """The pickle's object, its tensors recorded; a damaged pickle is a message."""
        try:
            return self.load()
        except (
            pickle.UnpicklingError,
            EOFError,
            ValueError,
            TypeError,
            AttributeError,
            IndexError,
            KeyError,
            RecursionError,
            MemoryError,
        ) as error:
            raise ParetoscopeError(
                f"{self.path}: not a readable torch checkpoint (its pickle: {type(error).__name__})"
            ) from None

    def _rebuild_tensor(self, storage: Any, offset: Any, size: Any, stride: Any, *_: Any) -> Any:
        tensor = _Tensor(storage, offset, size, stride)
        self.tensors.append(tensor)
        return tensor


def _check_zip_tensors(payload: bytes, record_sizes: dict[str, int], top: str, path: Path) -> None:
    """Refuse a pickle whose tensors would cost more than the file holds: a storage whose
    record is missing or of another size, a tensor that declares more elements than its
    storage holds after its offset (a view with stride 0 over one float is the classic bomb)
    or reaches beyond it, or tensors of more than `MOST_TENSOR_ELEMENTS` elements in all."""
    dry_run = _DryRun(io.BytesIO(payload), path)
    root = dry_run.run()
    stored = {key: record_sizes.get(f"{top}/data/{key}") for key in dry_run.storages}
    _check_tensors(dry_run, root, stored, path)


def check_torch_file(path: Path) -> None:
    """Refuse a torch file, zip (`scan_torch_file`) or legacy, that declares more than it
    holds. A legacy file's storages follow its pickles in the file itself: together they may
    declare no more bytes than follow the pickles, and its tensors stay within them."""
    if zipfile.is_zipfile(path):
        if scan_torch_file(path) is None:
            # Unchecked, torch would read whichever data.pkl it finds first.
            raise ParetoscopeError(
                f"{path}: not a readable torch checkpoint (a zip without exactly one "
                "<name>/data.pkl whose pickle decodes)"
            )
        return
    try:
        with open(path, "rb") as handle:
            if handle.read(1) != b"\x80":
                return  # not a pickle: torch says what it is not
            handle.seek(0)
            if _DryRun(handle, path).run() != _LEGACY_MAGIC_NUMBER:
                return  # a plain pickle, not torch's layout: torch says what it holds
            for _ in range(2):  # protocol version, system info
                _DryRun(handle, path).run()
            dry_run = _DryRun(handle, path)
            root = dry_run.run()
            remaining = path.stat().st_size - handle.tell()
    except OSError:
        return  # torch says why it cannot read the file
    declared = {key: s.numel * s.element_bytes for key, s in dry_run.storages.items()}
    if sum(declared.values()) > remaining:
        raise ParetoscopeError(
            f"{path}: its storages declare {sum(declared.values()):,} bytes, but the file "
            f"holds {max(remaining, 0):,} after its pickle"
        )
    _check_tensors(dry_run, root, declared, path)


def _check_tensors(
    dry_run: _DryRun, root: Any, stored: Mapping[str, int | None], path: Path
) -> None:
    _name_tensors(root)
    total = 0
    for tensor in dry_run.tensors:
        name = quoted(tensor.names[0]) if tensor.names else "(unnamed)"
        numel = _check_tensor(tensor, stored, path, name)
        total += numel
        if total > MOST_TENSOR_ELEMENTS:
            raise ParetoscopeError(
                f"{path}: its tensors declare more than {MOST_TENSOR_ELEMENTS:,} elements in "
                f"all (MOST_TENSOR_ELEMENTS), at tensor {name}"
            )


def _check_tensor(
    tensor: _Tensor, stored_bytes: Mapping[str, int | None], path: Path, name: str
) -> int:
    """`tensor`'s element count, after checking it against its storage's real bytes."""
    storage = tensor.storage
    sizes, strides, offset = tensor.size, tensor.stride, tensor.offset
    if not (
        isinstance(storage, _Storage)
        and _whole(storage.numel)
        and _whole(offset)
        and isinstance(sizes, tuple)
        and isinstance(strides, tuple)
        and len(sizes) == len(strides)
        and len(sizes) <= _MOST_DIMENSIONS
        and all(_whole(n) for n in (*sizes, *strides))
    ):
        raise ParetoscopeError(f"{path}: tensor {name} is not declared as torch declares one")
    stored = stored_bytes.get(storage.key)
    if stored is None or stored != storage.numel * storage.element_bytes:
        raise ParetoscopeError(
            f"{path}: tensor {name} views storage {quoted(storage.key)} of "
            f"{storage.numel:,} elements, but its record holds "
            f"{'nothing' if stored is None else f'{stored:,} bytes'}"
        )
    numel = math.prod(sizes)
    span = offset + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1
    if numel and (numel > storage.numel - offset or span > storage.numel):
        word = _ELEMENT_WORDS.get(storage.element_bytes, "element")
        plural = "" if storage.numel == 1 else "s"
        raise ParetoscopeError(
            f"{path}: tensor {name} declares {numel:,} elements over a storage of "
            f"{storage.numel:,} {word}{plural}" + (f" from offset {offset:,}" if offset else "")
        )
    return numel


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _name_tensors(root: Any) -> None:
    """Give each `_Tensor` under `root` the dotted path of keys that leads to it (a walk with
    its own stack: a pickle may nest deeper than Python recurses)."""
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        value, where = stack.pop()
        if isinstance(value, _Tensor):
            value.names.append(where)
            continue
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            children = [(item, _joined(where, key)) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            children = [(item, where) for item in value]
        elif isinstance(value, _Stand):
            children = [(item, where) for item in value.parts]
        else:
            continue
        stack.extend(reversed(children))


def _joined(where: str, key: Any) -> str:
    # Names are shown cut to a length: a long key or a deep path adds no more.
    if len(where) > 200:
        return where
    return f"{where}.{str(key)[:80]}" if where else str(key)[:80]
