"""A restricted unpickler for D4MORL files: numpy arrays, lists, dicts and defaultdict(list) only.

Loading a pickle normally runs whatever callables the file names. This unpickler admits only
the few globals that numpy arrays and ``collections.defaultdict(list)`` need; any other name
is refused before anything is called, so a hostile file raises `ParetoscopeError` and runs
nothing.
"""

from __future__ import annotations

import collections
import os
import pickle
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np
from tqdm import tqdm

try:  # numpy >= 2
    from numpy._core import multiarray as _multiarray
    from numpy._core import numeric as _numeric
except ImportError:  # pragma: no cover - numpy 1.x
    from numpy.core import multiarray as _multiarray  # type: ignore[no-redef]
    from numpy.core import numeric as _numeric  # type: ignore[no-redef]

from paretoscope.errors import ParetoscopeError


class ReadProgress:
    """A binary file wrapper that advances a bytes bar as it is read (for `pickle.load`)."""

    def __init__(self, file: BinaryIO, total: int, description: str, enabled: bool) -> None:
        self._file = file
        self._bar = tqdm(
            total=total,
            desc=description,
            unit="B",
            unit_scale=True,
            disable=None if enabled else True,
            dynamic_ncols=True,
        )

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self._bar.update(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        count: int = self._file.readinto(buffer)  # type: ignore[attr-defined]
        self._bar.update(count or 0)
        return count

    def readline(self, size: int = -1) -> bytes:
        data = self._file.readline(size)
        self._bar.update(len(data))
        return data

    def peek(self, size: int = 0) -> bytes:
        return self._file.peek(size)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._bar.close()


class RefusedPickle(pickle.UnpicklingError):
    """The file asked for something a D4MORL file never contains."""


def _safe_dtype(*args: Any) -> np.dtype:
    """`numpy.dtype` limited to plain numeric and boolean types (no Python objects inside)."""
    dtype = np.dtype(*args)
    if dtype.hasobject or dtype.kind not in "biufc":
        raise RefusedPickle(f"numpy dtype {dtype} (only numeric and boolean arrays are allowed)")
    return dtype


def _safe_defaultdict(*args: Any) -> collections.defaultdict:
    """`collections.defaultdict` whose default factory is `list` (or none), as D4MORL uses."""
    if len(args) > 1 or (args and args[0] not in (list, None)):
        raise RefusedPickle("a defaultdict whose default factory is not `list`")
    return collections.defaultdict(*args)


def _safe_scalar(dtype: np.dtype, *args: Any) -> Any:
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise RefusedPickle("a numpy scalar that is not a number")
    return _multiarray.scalar(dtype, *args)


def _checked_ndarray(
    shape: Any,
    dtype: Any = float,
    buffer: Any = None,
    offset: int = 0,
    strides: Any = None,
    order: Any = None,
) -> np.ndarray:
    """`numpy.ndarray(...)` called directly, admitted only as a plain C-ordered view that lies
    within the bytes the file gave it: a stride of 0 (or any stride but the contiguous one)
    lets a few bytes declare billions of elements, which every reader would then copy."""
    if buffer is None:
        raise RefusedPickle("numpy.ndarray called without its data (an uninitialised array)")
    if order not in (None, "C"):
        raise RefusedPickle(f"numpy.ndarray called with order {order!r}")
    dtype = _safe_dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not all(isinstance(size, int) and size >= 0 for size in shape):
        raise RefusedPickle(f"numpy.ndarray called with the shape {shape!r}")
    contiguous = tuple(
        int(np.prod(shape[axis + 1 :], dtype=object)) * dtype.itemsize for axis in range(len(shape))
    )
    if strides is not None and tuple(strides) != contiguous:
        raise RefusedPickle(
            f"numpy.ndarray with strides {tuple(strides)!r} over shape {shape!r} (only "
            f"contiguous strides {contiguous!r} are allowed: a stride of 0 repeats bytes the "
            "file does not hold)"
        )
    available = memoryview(buffer).nbytes
    declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if not isinstance(offset, int) or offset < 0 or offset + declared > available:
        raise RefusedPickle(
            f"numpy.ndarray of shape {shape!r} ({declared:,} bytes at offset {offset!r}) over "
            f"a buffer of {available:,} bytes"
        )
    return np.ndarray(shape, dtype, buffer, offset)


def _safe_reconstruct(subtype: Any, *args: Any) -> np.ndarray:
    if subtype is not _checked_ndarray:
        raise RefusedPickle("an array of a type other than numpy.ndarray")
    return cast(np.ndarray, _multiarray._reconstruct(np.ndarray, *args))


# (module, name) -> the object handed to the unpickler. numpy 1.x files say `numpy.core`,
# numpy 2.x files `numpy._core`; protocol 5 files use `_frombuffer`.
_ALLOWED: dict[tuple[str, str], Any] = {
    # Arrays are named by their type in `_reconstruct(ndarray, ...)`; called directly, the name
    # builds a view, checked against its buffer.
    ("numpy", "ndarray"): _checked_ndarray,
    ("numpy", "dtype"): _safe_dtype,
    ("builtins", "list"): list,
    ("collections", "defaultdict"): _safe_defaultdict,
}
for _module in ("numpy.core", "numpy._core"):
    _ALLOWED[(f"{_module}.multiarray", "_reconstruct")] = _safe_reconstruct
    _ALLOWED[(f"{_module}.multiarray", "scalar")] = _safe_scalar
    _ALLOWED[(f"{_module}.numeric", "_frombuffer")] = _numeric._frombuffer  # type: ignore[attr-defined]


def numpy_globals() -> dict[str, Any]:
    """The numpy globals this unpickler admits, as ``"module.name"`` -> object (torch files
    that carry numpy arrays are read with the same ones: `paretoscope.torch_files`)."""
    return {
        f"{module}.{name}": value
        for (module, name), value in _ALLOWED.items()
        if module.startswith("numpy")
    }


class RestrictedUnpickler(pickle.Unpickler):
    """`pickle.Unpickler` whose `find_class` admits only `_ALLOWED`."""

    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise RefusedPickle(f"the global {module}.{name}") from None

    def persistent_load(self, pid: Any) -> Any:
        raise RefusedPickle("a persistent reference")


def load_restricted(path: Path, progress: bool = False) -> Any:
    """Unpickle `path` with `RestrictedUnpickler`; every failure is a `ParetoscopeError`."""
    try:
        with open(path, "rb", buffering=1 << 20) as file:
            if not progress:
                return RestrictedUnpickler(file).load()
            reader = ReadProgress(file, os.fstat(file.fileno()).st_size, "loading", True)
            try:
                return RestrictedUnpickler(reader).load()
            finally:
                reader.close()
    except RefusedPickle as error:
        raise ParetoscopeError(
            f"{path}: refused to load: the pickle asks for {error}, which a D4MORL file never "
            "contains; nothing from the file was run"
        ) from None
    except (EOFError, pickle.UnpicklingError) as error:
        raise ParetoscopeError(
            f"{path}: not a complete pickle (truncated or corrupt): {error}"
        ) from None
    except MemoryError:
        raise ParetoscopeError(f"{path}: not enough memory to load this pickle") from None
    except OSError as error:
        raise ParetoscopeError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except Exception as error:  # malformed opcodes surface as many exception types
        raise ParetoscopeError(
            f"{path}: not a valid D4MORL pickle ({type(error).__name__}: {error})"
        ) from None
