"""Reading torch files that may come from anyone: tensors and plain containers only
(``weights_only=True``), and refusals in paretoscope's words.

torch's own refusal tells the reader how to load the file anyway (``weights_only=False``,
``add_safe_globals([exec])``): advice to run the very code that was refused. So its message is
never passed on; what is kept is the name of the global the file asked for, or, for a damaged
file, a short reason that holds no such advice.
"""

from __future__ import annotations

import codecs
import collections
import functools
import pickle
import re
import types
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from paretoscope.errors import ParetoscopeError
from paretoscope.pickle_scan import check_torch_file

# torch dtypes a pickle may name (tensors of these types are rebuilt; nothing else of torch).
_DTYPE_NAMES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
)
_GLOBAL = re.compile(r"GLOBAL ([\w.]+)")
# Lines of torch's text that give advice on loading the file anyway.
_ADVICE = re.compile(r"weights_only|safe_globals|allowlist|trust|torch\.load|pytorch\.org", re.I)


def load_tensors(path: Path, what: str = "torch checkpoint") -> Any:
    """The content of the torch file at `path`, built without running any code from it.

    Raises `ParetoscopeError` naming the global a file with a code payload asked for (nothing
    from it ran), saying that the file is not a readable `what`, or naming the record or
    tensor whose declared size the file does not hold (checked before torch allocates:
    `paretoscope.pickle_scan.check_torch_file`).
    """
    check_torch_file(path)
    try:
        with warnings.catch_warnings():
            # torch warns about pickle protocols it was not written with; the error says more.
            warnings.simplefilter("ignore", UserWarning)
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        asked = _GLOBAL.search(str(error))
        if asked is not None:
            raise ParetoscopeError(
                f"{path}: refused: the file asks to build Python objects other than tensors "
                f"(the global {asked.group(1)!r}); nothing from the file was run. paretoscope "
                "reads tensors only from a torch file."
            ) from None
        raise ParetoscopeError(f"{path}: not a readable {what} ({_reason(error)})") from None
    except (RuntimeError, EOFError, KeyError, ValueError, OSError, AttributeError) as error:
        raise ParetoscopeError(
            f"{path}: not a readable {what} (truncated or another format: "
            f"{type(error).__name__}: {_reason(error)})"
        ) from None


def _reason(error: BaseException) -> str:
    """The lines of `error` that describe the damage, without torch's loading advice."""
    text = str(error).replace("WeightsUnpickler error:", "\n")
    lines = [line.strip() for line in text.splitlines()]
    kept = [line for line in lines if line and not _ADVICE.search(line)]
    return ("; ".join(kept) or "unreadable content")[:200]


# --- files that hold more than tensors -----------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    """Stands where a file asked for an object of a class paretoscope does not build (a replay
    buffer, a pickled module): the class's name, and nothing of it ran."""

    name: str

    def __repr__(self) -> str:
        return f"<skipped {self.name}>"


@dataclass(frozen=True)
class TorchContent:
    """What a torch file held, with the objects that were not built (`Skipped`) by name."""

    data: Any
    skipped: tuple[str, ...] = ()


def read_torch_file(
    path: Path, trust: bool = False, what: str = "torch checkpoint"
) -> TorchContent:
    """The content of a ``torch.save`` file, never running code from it unless `trust`.

    First ``weights_only=True``; when the file also holds numpy arrays or objects of other
    classes (MORL-Baselines' replay buffer), a restricted unpickler rebuilds tensors, numpy
    arrays and dtypes, containers and scalars, and leaves a `Skipped` in place of every other
    object without calling anything of it. With `trust` the file is unpickled in full (classes
    that cannot be imported here become empty stand-ins, so their tensors can still be read).
    """
    if trust:
        check_torch_file(path)
        return _load_with(path, _Trusting, what)
    try:
        return TorchContent(load_tensors(path, what))
    except ParetoscopeError as error:
        if "refused: the file asks" not in str(error):
            raise
    if not zipfile.is_zipfile(path):
        raise ParetoscopeError(
            f"{path}: an old-style (non-zip) torch file that holds more than tensors; "
            "paretoscope reads such files only when they hold tensors alone"
        )
    return _load_with(path, _Restricted, what)


def _load_with(path: Path, unpickler: type[pickle.Unpickler], what: str) -> TorchContent:
    skipped: list[str] = []
    # A subclass per call holds this call's list: loads in other threads keep their own.
    recording = type(unpickler.__name__, (unpickler,), {"skipped": skipped})
    module = types.SimpleNamespace(Unpickler=recording, load=None, __name__="paretoscope")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=False, pickle_module=module)
    except ParetoscopeError:
        raise
    except Exception as error:  # noqa: BLE001 - a damaged pickle raises many types
        raise ParetoscopeError(
            f"{path}: not a readable {what} ({type(error).__name__}: {_reason(error)})"
        ) from None
    return TorchContent(data, tuple(dict.fromkeys(skipped)))


def _codecs_encode(text: str, encoding: str = "utf-8") -> bytes:
    # Protocol-2 pickles spell numpy's raw bytes as latin-1 text.
    if encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise pickle.UnpicklingError(f"refused: _codecs.encode with encoding {encoding!r}")
    return codecs.encode(text, encoding)


@functools.cache
def _numpy_allowed() -> dict[str, Any]:
    from paretoscope.safe_pickle import numpy_globals

    return numpy_globals()


_TORCH_ALLOWED: dict[str, Any] = {
    "torch._utils._rebuild_tensor_v2": torch._utils._rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": torch._utils._rebuild_parameter,
    "torch.Size": torch.Size,
    "collections.OrderedDict": collections.OrderedDict,
    "builtins.set": set,
    "builtins.frozenset": frozenset,
    "builtins.complex": complex,
    "__builtin__.set": set,
    "__builtin__.frozenset": frozenset,
    "_codecs.encode": _codecs_encode,
}
_TORCH_ALLOWED.update({f"torch.{name}": getattr(torch, name) for name in _DTYPE_NAMES})


class _Restricted(pickle.Unpickler):
    """Builds only what `_TORCH_ALLOWED` and numpy's plain arrays need; any other class becomes
    a `_SkippedObject` subclass of its name, which drops whatever the pickle gives it."""

    skipped: list[str]  # set per load by `_load_with`

    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        allowed = _TORCH_ALLOWED.get(full) or _numpy_allowed().get(full)
        if allowed is not None:
            return allowed
        self.skipped.append(full)
        return type("Skipped", (_SkippedObject,), {"skipped_name": full})


class _SkippedObject(Skipped):
    """What pickle builds for a refused class: calling it (REDUCE, NEWOBJ) and giving it state
    (BUILD, SETITEMS, APPENDS) run nothing and keep nothing but the class's name."""

    skipped_name = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> _SkippedObject:
        instance = object.__new__(cls)
        object.__setattr__(instance, "name", cls.skipped_name)
        return instance

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __setstate__(self, state: Any) -> None:
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> _SkippedObject:
        # A skipped `getattr(cls, name)` is itself called by the pickle: still nothing runs.
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        return None

    def append(self, value: Any) -> None:
        return None

    def extend(self, values: Any) -> None:
        return None


class _Trusting(pickle.Unpickler):
    """Full unpickling, for a file its user vouched for; a class that cannot be imported here
    (MORL-Baselines not installed) becomes an empty `torch.nn.Module` subclass of its name, so
    a pickled module still yields its parameters."""

    skipped: list[str]  # set per load by `_load_with`

    def find_class(self, module: str, name: str) -> Any:
        try:
            return super().find_class(module, name)
        except (ImportError, AttributeError):
            self.skipped.append(f"{module}.{name}")
            return type(name, (torch.nn.Module,), {"__module__": module})
