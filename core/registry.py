"""One registry type for every extension point: environments, agent kinds, named agents,
importers, run formats and dataset formats.

- Entries are kept by name, in registration order (formats are asked in that order).
- A name registered twice is refused unless ``replace=True``.
- A value may be given as a ``"module:attribute"`` string, imported the first time the entry is
  used, so that registering a heavy module (torch, mujoco, h5py) costs nothing until needed.
- A registry may take what installed packages declare in an entry-point group, once per process
  (by default the first time it is read). An entry point that fails to load, or is refused, is
  one message in the list `load_entry_points` returns, never an exception: a broken plug-in
  must not take down the command or the page that met it.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from importlib import metadata
from typing import Any, Generic, TypeVar, cast

from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

T = TypeVar("T")

# (entry-point name, the object it names) -> the entry to register; None when the object was
# taken care of otherwise; raises (any exception) to refuse it with a message.
FromEntryPoint = Callable[[str, Any], T | None]


class Registry(Generic[T]):
    """Named entries of one kind (`what`: "importer", "dataset format", ...), in registration
    order."""

    def __init__(
        self,
        what: str,
        entries: Mapping[str, T | str] | None = None,
        *,
        entry_point_group: str | None = None,
        from_entry_point: FromEntryPoint[T] | None = None,
        load_entry_points_on_first_use: bool = True,
        unknown: Callable[[object, list[str]], str] | None = None,
    ) -> None:
        """`from_entry_point` checks or wraps what an entry point names (default: taken as it
        is); `unknown` words the error for a name nobody registered (default: lists them)."""
        self.what = what
        self.entry_point_group = entry_point_group
        self._entries: dict[str, T | str] = dict(entries or {})
        self._from_entry_point = from_entry_point
        self._autoload = entry_point_group is not None and load_entry_points_on_first_use
        self._unknown = unknown
        self._lock = threading.RLock()
        self._problems: list[str] | None = None  # None: the entry points are not loaded yet

    # --- writing ---------------------------------------------------------------------------

    def register(self, name: str, value: T | str, replace: bool = False) -> None:
        """Add `value` as `name` (asked after the entries before it); ``"module:attribute"`` is
        imported when first used. A name already taken is refused unless `replace`."""
        if not isinstance(name, str) or not name:
            raise ParetoscopeError(f"{self.what}: expected a non-empty name, got {briefly(name)}")
        with self._lock:
            if name in self._entries and not replace:
                raise ParetoscopeError(
                    f"{self.what} {briefly(name)} is already registered (pass replace=True to "
                    "replace it)"
                )
            self._entries[name] = value

    # --- reading ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        """The registered names, in registration order (nothing is imported)."""
        self._load_if_first_use()
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load_if_first_use()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def get(self, name: str) -> T:
        """The entry `name` (imported now if it was given as a string); an unknown name raises
        a `ParetoscopeError` naming the registered ones."""
        self._load_if_first_use()
        if not isinstance(name, str) or name not in self._entries:
            known = list(self._entries)
            raise ParetoscopeError(
                self._unknown(name, known)
                if self._unknown is not None
                else f"no {self.what} {briefly(name)} (known: {', '.join(known) or 'none'})"
            )
        value = self._entries[name]
        if isinstance(value, str):
            resolved = self._resolve(name, value)
            with self._lock:
                if self._entries.get(name) is value:  # not replaced meanwhile
                    self._entries[name] = resolved
            return resolved
        return value

    def values(self) -> Iterator[T]:
        """Every entry, in registration order, each imported (where given as a string) only
        when the iteration reaches it: a search that stops early imports no more."""
        for name in self.names():
            yield self.get(name)

    # --- installed packages ----------------------------------------------------------------

    def load_entry_points(self) -> list[str]:
        """Register, once per process, what installed packages declare in this registry's
        entry-point group; returns one message per entry point that failed (the same list on
        every call). A name already taken is refused with a message too."""
        with self._lock:
            if self._problems is not None or self.entry_point_group is None:
                return self._problems if self._problems is not None else []
            # Set before loading: a plug-in's module may read this registry while it loads.
            problems: list[str] = []
            self._problems = problems
            for entry in metadata.entry_points(group=self.entry_point_group):
                problem = self._add_entry_point(entry)
                if problem is not None:
                    problems.append(f"entry point {briefly(entry.name)}: {problem}")
            for problem in problems:
                warnings.warn(f"{self.entry_point_group}: {problem}", stacklevel=2)
            return problems

    def _add_entry_point(self, entry: metadata.EntryPoint) -> str | None:
        """Load and register one entry point; what went wrong, or None."""
        try:
            loaded = entry.load()
            value = (
                loaded
                if self._from_entry_point is None
                else self._from_entry_point(entry.name, loaded)
            )
        except ParetoscopeError as error:
            return str(error)
        except Exception as error:  # noqa: BLE001 - an installed package may fail in any way
            return f"{type(error).__name__}: {error}"
        if value is None:
            return None
        if entry.name in self._entries:
            return "the name is taken"
        self._entries[entry.name] = value
        return None

    def _load_if_first_use(self) -> None:
        if self._autoload and self._problems is None:
            self.load_entry_points()

    def _resolve(self, name: str, target: str) -> T:
        module, _, attribute = target.partition(":")
        try:
            found: Any = importlib.import_module(module)
            for part in attribute.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError, ValueError) as error:
            raise ParetoscopeError(
                f"{self.what} {briefly(name)}: cannot import {briefly(target)} "
                f"({type(error).__name__}: {error})"
            ) from None
        return cast(T, found)


def with_members(what: str, *members: str) -> FromEntryPoint[Any]:
    """A `from_entry_point` check that takes an object having all `members` (a protocol's
    attributes and methods) and refuses anything else with a message naming what it lacks."""

    def check(name: str, value: Any) -> Any:
        missing = [member for member in members if not hasattr(value, member)]
        if missing:
            raise ParetoscopeError(
                f"not {what}: {type(value).__name__} has no {', '.join(missing)}"
            )
        return value

    return check
