"""Command-line options from settings objects, and settings objects from parsed options.

`add_settings_options(parser, SettingsType)` adds one option per field of a settings object
(`paretoscope.settings`), named, typed and documented by the field's declaration;
`settings_from_args(SettingsType, args)` builds the object back from the parsed options, each
field not given keeping its default. A field's own text form (a size, a list of numbers) is
read when the object is built: a bad value is a `ParetoscopeError` naming the option. The
options every command shares and that are no settings (--quiet, --json, --device) are here too,
and the one set of value types the commands' shared options use (seeds, counts, paths), so that
argparse itself refuses a value out of its documented bounds (`paretoscope.settings.limits`).
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.fields import SettingField, is_settings_type, setting_fields
from paretoscope.settings.limits import EPISODES, SEEDS, Bounds
from paretoscope.text import quoted

Settings = TypeVar("Settings")


def offered_fields(settings_type: type, variant: str | None = None) -> Iterator[SettingField]:
    """The fields of `settings_type` that the command line of `variant` offers."""
    return (field for field in setting_fields(settings_type) if field.offered_for(variant))


def add_settings_options(
    parser: argparse.ArgumentParser, settings_type: type, variant: str | None = None
) -> None:
    """One option per field of `settings_type` that the command of `variant` offers (`variant`:
    e.g. the offline kind, for fields declared ``only_for`` some kinds)."""
    for field in offered_fields(settings_type, variant):
        parser.add_argument(field.option, **_argparse_keywords(field))


def settings_from_args(
    settings_type: type[Settings], args: argparse.Namespace, variant: str | None = None
) -> Settings:
    """The settings object the parsed options give (fields not given keep their defaults)."""
    given: dict[str, Any] = {}
    for field in offered_fields(settings_type, variant):
        raw = getattr(args, field.name)
        if raw is None:
            continue
        form = field.form
        value: Any = raw
        if form.parse is not None:
            try:
                if form.repeat or form.several:
                    value = tuple(form.parse(item) for item in raw)
                else:
                    value = form.parse(raw)
            except ValueError as error:
                raise ParetoscopeError(f"{field.option}: {error}") from None
        elif form.repeat or form.several:
            value = tuple(raw)
        if value is None:
            continue
        inner = given
        for name in field.path[:-1]:
            inner = inner.setdefault(name, {})
        inner[field.name] = value
    return _build(settings_type, given)


def _build(settings_type: type[Settings], values: dict[str, Any]) -> Settings:
    """`settings_type(**values)`, nested settings objects built from their own dicts."""
    hints = typing.get_type_hints(settings_type)
    keywords = {
        name: _build(hints[name], value) if is_settings_type(hints[name]) else value
        for name, value in values.items()
    }
    return settings_type(**keywords)


def _argparse_keywords(field: SettingField) -> dict[str, Any]:
    form = field.form
    keywords: dict[str, Any] = {"dest": field.name, "help": form.help.replace("%", "%%")}
    if form.metavar is not None:
        keywords["metavar"] = form.metavar
    value_type, choices = _value_type(field.type)
    if value_type is bool:
        keywords["action"] = "store_false" if field.field.default is True else "store_true"
        return keywords
    if form.repeat:
        keywords.update(action="append", default=None)
        return keywords
    if form.several:
        keywords.update(nargs="+", default=None)
        return keywords
    if form.parse is not None:
        keywords["default"] = None  # read when the settings object is built
        return keywords
    if value_type not in (int, float, str):
        raise TypeError(f"setting {field.name!r} of type {field.type} needs a parse= text form")
    keywords.update(type=value_type, default=field.field.default)
    if form.bounds is not None:
        keywords["type"] = whole_number(form.bounds)
    if choices:
        keywords["choices"] = choices
    if form.bare is not None:
        keywords.update(nargs="?", const=form.bare)
    return keywords


def _value_type(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """The type an option's value has (`hint` without None), and a Literal's choices."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        hint = rest[0] if len(rest) == 1 else hint
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        return type(choices[0]), choices
    return hint, ()


# --- options that are no settings ---------------------------------------------------------------


def add_quiet_option(parser: argparse.ArgumentParser, what: str = "progress bars") -> None:
    parser.add_argument("--quiet", action="store_true", help=f"no {what}")


def add_json_option(parser: argparse.ArgumentParser, what: str = "machine-readable JSON") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what}")


def add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="cpu", help="torch device for the agent (cpu, cuda)")


# --- value types of the shared options ----------------------------------------------------------


def whole_number(bounds: Bounds) -> Callable[[str], int]:
    """The argparse type of a whole number within `bounds`: argparse prints its refusal."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # also a number too long for Python to read (over 4300 digits)
            raise argparse.ArgumentTypeError(
                f"expected {bounds.expected()}, got {quoted(text)}"
            ) from None
        problem = bounds.problem(value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


# An episode seed (numpy's and gymnasium's range), and a count of episodes.
seed = whole_number(SEEDS)
episode_count = whole_number(EPISODES)

# The longest path and file name the system takes (POSIX's usual PATH_MAX and NAME_MAX).
MAX_PATH = 4096
MAX_NAME = 255


def path_text(text: str) -> str:
    """The argparse type of a path (kept as text: some name sources, e.g. ``minari:ID``):
    refused when empty (it would mean the current folder) or longer than the system takes."""
    if not text:
        raise argparse.ArgumentTypeError("expected a path, got an empty one")
    longest_name = max(len(name.encode(errors="surrogateescape")) for name in text.split("/"))
    if len(text) > MAX_PATH or longest_name > MAX_NAME:
        raise argparse.ArgumentTypeError(
            f"a path of {len(text)} characters (a name in it of {longest_name} bytes) is longer "
            f"than the system takes ({MAX_PATH} characters, {MAX_NAME} bytes a name): "
            f"{quoted(text)}"
        )
    return text


def path(text: str) -> Path:
    """The argparse type of a path as a `Path` (checked as `path_text` does)."""
    return Path(path_text(text))


def add_stored_choice_options(parser: argparse.ArgumentParser) -> None:
    """--env and --gamma: which env and discount of a results folder a command reads (each may
    be left out when the folder holds only one)."""
    parser.add_argument("--env", default=None, help="environment id (default: the only one stored)")
    parser.add_argument(
        "--gamma", type=float, default=None, help="discount (needed when several are stored)"
    )
