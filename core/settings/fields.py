"""How a settings field is declared: its default, its one-line doc and its command-line form.

A settings object is a frozen dataclass, one per operation (`paretoscope.settings`). Each of
its fields is declared with `setting(default, "doc")`; the doc is the field's documentation and
the command line's --help text. On the command line a field is ``--field-name VALUE`` (a bool
is a flag: ``--field-name``, or ``--no-field-name`` when it is on by default), unless its
declaration says otherwise. A field whose type is itself a settings dataclass (e.g. the ARS
hyper-parameters of a behaviour run) contributes its own fields. `paretoscope.cli.options`
builds the options from these declarations and the settings object back from them; nothing
else lists the fields.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass
from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.limits import Bounds

_METADATA_KEY = "paretoscope.setting"


@dataclass(frozen=True)
class FieldForm:
    """A settings field's one-line doc and how the command line writes it."""

    help: str
    # The option's name; None: --field-name (--no-field-name for a flag that is on by default).
    option: str | None = None
    metavar: str | None = None
    # The field's own text form (text -> value; ValueError saying what was expected when bad).
    parse: Callable[[str], Any] | None = None
    repeat: bool = False  # the option is given once per item of a tuple
    several: bool = False  # several items follow the option
    bare: Any = None  # the value of the option given without one (None: it needs one)
    # The variants of the operation that have the field (e.g. offline kinds); None: all.
    only_for: tuple[str, ...] | None = None
    command_line: bool = True  # False: only the library's callers set it
    # A whole-number field's documented range (`paretoscope.settings.limits`); None: unbounded.
    bounds: Bounds | None = None


def setting(
    default: Any = MISSING,
    help: str = "",
    *,
    default_factory: Callable[[], Any] | None = None,
    **form: Any,
) -> Any:
    """A settings field: its default (or `default_factory`), its one-line doc, and the
    `FieldForm` keywords that say how the command line writes it."""
    if not help or "\n" in help:
        raise TypeError(f"a setting needs a one-line doc, got {help!r}")
    metadata = {_METADATA_KEY: FieldForm(help=help, **form)}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def field_form(field: dataclasses.Field[Any]) -> FieldForm:
    """The declared form of a settings field (a TypeError for a field declared without one)."""
    form = field.metadata.get(_METADATA_KEY)
    if not isinstance(form, FieldForm):
        raise TypeError(f"settings field {field.name!r} is not declared with setting()")
    return form


def check_bounds(settings: Any) -> None:
    """A ParetoscopeError naming the first whole-number field of the settings object
    `settings` (not nested ones) outside its declared bounds; called by its __post_init__."""
    for field in dataclasses.fields(settings):
        bounds = field_form(field).bounds
        value = getattr(settings, field.name)
        if bounds is None or value is None or isinstance(value, bool):
            continue
        if not isinstance(value, int):
            raise ParetoscopeError(f"{field.name}: expected {bounds.expected()}")
        problem = bounds.problem(value)
        if problem is not None:
            raise ParetoscopeError(f"{field.name}: {problem}")


def option_name(field: dataclasses.Field[Any]) -> str:
    """The command-line option of a settings field."""
    form = field_form(field)
    if form.option is not None:
        return form.option
    name = field.name.replace("_", "-")
    return f"--no-{name}" if field.default is True else f"--{name}"


@dataclass(frozen=True)
class SettingField:
    """One field of a settings object, nested ones flattened: where it sits and its type."""

    path: tuple[str, ...]  # field names from the top object down to this field
    field: dataclasses.Field[Any]
    type: Any  # the resolved annotation

    @property
    def form(self) -> FieldForm:
        return field_form(self.field)

    @property
    def name(self) -> str:
        return self.field.name

    @property
    def option(self) -> str:
        return option_name(self.field)

    def offered_for(self, variant: str | None) -> bool:
        """Whether the command line of `variant` (None: the operation has no variants) has it."""
        form = self.form
        if not form.command_line:
            return False
        return form.only_for is None or variant is None or variant in form.only_for


def is_settings_type(value: Any) -> bool:
    """A settings dataclass (its fields declared with `setting`), not a plain value type."""
    if not (isinstance(value, type) and dataclasses.is_dataclass(value)):
        return False
    return all(_METADATA_KEY in field.metadata for field in dataclasses.fields(value))


def setting_fields(settings_type: type, prefix: tuple[str, ...] = ()) -> Iterator[SettingField]:
    """Every field of `settings_type` in declaration order, a nested settings object's fields
    in its place."""
    hints = typing.get_type_hints(settings_type)
    for field in dataclasses.fields(settings_type):
        hint = hints[field.name]
        if is_settings_type(hint):
            yield from setting_fields(hint, (*prefix, field.name))
        else:
            field_form(field)  # every field is declared
            yield SettingField((*prefix, field.name), field, hint)


def frozen(value: Any) -> Any:
    """Lists, tuples and arrays (anything with ``tolist``) as nested tuples, so a settings
    object holds immutable values that compare by value."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, (list, tuple, range)):
        return tuple(frozen(item) for item in value)
    return value
