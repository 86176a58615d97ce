"""Settings objects and their command lines (issue 46): every field of a settings object is an
option of its command and every option of the command is a field or listed here as no setting;
each option, given, sets exactly its field; options not given leave the defaults."""

from __future__ import annotations

import argparse
import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from paretoscope.cli import build_parser
from paretoscope.cli.options import settings_from_args
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import (
    BehaviourTrainingSettings,
    DemoBuildSettings,
    MemberTraining,
    OfflineTrainingSettings,
    RecordingSettings,
    SweepSettings,
)
from paretoscope.settings.fields import SettingField, setting_fields
from tests.conftest import REPO_DIR


@dataclasses.dataclass(frozen=True)
class Command:
    words: tuple[str, ...]  # the sub-command, e.g. ("train", "morvs")
    settings: type
    required: tuple[str, ...]  # what the command needs besides its settings
    not_settings: frozenset[str]  # its options that are no settings
    not_offered: frozenset[str] = frozenset()  # fields it does not offer
    variant: str | None = None

    def parse(self, *options: str) -> argparse.Namespace:
        return build_parser().parse_args([*self.words, *self.required, *options])

    def __str__(self) -> str:
        return " ".join(self.words)


OFFLINE_OPTIONS = frozenset(
    {"--data", "--out", "--env", "--resume", "--device", "--threads", "--quiet"}
)
COMMANDS = [
    Command(
        ("train", "behaviour"),
        BehaviourTrainingSettings,
        ("--env", "MO-Swimmer-v2", "--out", "x"),
        frozenset({"--env", "--out", "--quiet"}),
    ),
    Command(
        ("train", "morvs"),
        OfflineTrainingSettings,
        ("--data", "d", "--out", "o"),
        OFFLINE_OPTIONS,
        frozenset({"heads", "inner", "context", "train_context"}),
        variant="morvs",
    ),
    Command(
        ("train", "bc"),
        OfflineTrainingSettings,
        ("--data", "d", "--out", "o"),
        OFFLINE_OPTIONS,
        frozenset({"heads", "inner", "train_context", "horizon"}),
        variant="bc",
    ),
    Command(
        ("train", "modt"),
        OfflineTrainingSettings,
        ("--data", "d", "--out", "o"),
        OFFLINE_OPTIONS,
        frozenset({"horizon"}),
        variant="modt",
    ),
    Command(
        ("evaluate",),
        SweepSettings,
        ("random", "--env", "deep-sea-treasure-v0"),
        frozenset(
            {
                "agent",
                "--env",
                "--out",
                "--device",
                "--steps",
                "--type",
                "--kind",
                "--set",
                "--wandb",
                "--json",
            }
        ),
        # The library's: explicit preferences, their targets and seeds.
        frozenset({"preferences", "targets", "seeds"}),
    ),
    Command(
        ("render",),
        RecordingSettings,
        ("random", "--env", "deep-sea-treasure-v0", "--preference", "0.5,0.5"),
        frozenset(
            {
                "agent",
                "--env",
                "--preference",
                "--target",
                "--out",
                "--device",
                "--quiet",
                "--gallery",
            }
        ),
    ),
    Command(("demo", "build"), DemoBuildSettings, (), frozenset({"--out", "--quick", "--quiet"})),
]

# Values of the fields with a text form of their own: the options given, the fields they set.
TEXT_FORMS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "BehaviourTrainingSettings.preferences": (
        ["--preference", "0.8,0.2", "--preference", "0.2,0.8"],
        {"preferences": ((0.8, 0.2), (0.2, 0.8))},
    ),
    "BehaviourTrainingSettings.survival_shift": (
        ["--survival-shift", "0.5"],
        {"survival_shift": 0.5},
    ),
    "BehaviourTrainingSettings.survival_bonus": (
        ["--survival-bonus", "1,1,0"],
        {"survival_bonus": (1.0, 1.0, 0.0)},
    ),
    "BehaviourTrainingSettings.train_on": (
        ["--preference", "0.2,0.8", "--train-on", "0.2,0.8:0.5,0.5:2.5,inf"],
        {
            "preferences": ((0.2, 0.8),),
            "train_on": (MemberTraining((0.2, 0.8), (0.5, 0.5), (2.5, None)),),
        },
    ),
    "RecordingSettings.size": (["--size", "64x48"], {"size": (64, 48)}),
    "DemoBuildSettings.steps": (
        ["--steps", "datasets", "sweeps"],
        {"steps": ("datasets", "sweeps")},
    ),
    "DemoBuildSettings.envs": (
        ["--env", "MO-Hopper-v3", "--env", "MO-Swimmer-v2"],
        {"envs": ("MO-Hopper-v3", "MO-Swimmer-v2")},
    ),
}


def subparser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in words:
        (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = commands.choices[word]
    return parser


def parser_options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each option (a positional by its name) and its action; --help left out."""
    return {
        name: action
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
        for name in (action.option_strings or [action.dest])
    }


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_every_field_is_an_option_and_every_option_a_field_or_no_setting(
    command: Command,
) -> None:
    options = parser_options(subparser(command.words))
    fields = list(setting_fields(command.settings))
    offered = [field for field in fields if field.name not in command.not_offered]
    for field in offered:
        assert field.option in options, f"{command}: {field.name} has no option {field.option}"
        action = options[field.option]
        assert action.dest == field.name
        assert action.help == field.form.help.replace("%", "%%")
    for field in fields:
        if field.name in command.not_offered:
            assert field.option not in options or options[field.option].dest != field.name
    settings_options = {field.option for field in offered}
    assert set(options) - settings_options == command.not_settings
    assert not settings_options & command.not_settings


def _with(settings: Any, field: SettingField, value: Any) -> Any:
    """`settings` with the (possibly nested) field set to `value`."""
    if len(field.path) == 1:
        return dataclasses.replace(settings, **{field.name: value})
    outer, rest = field.path[0], dataclasses.replace(field, path=field.path[1:])
    return dataclasses.replace(settings, **{outer: _with(getattr(settings, outer), rest, value)})


def _given(settings: type, field: SettingField) -> tuple[list[str], Any]:
    """Options that set `field` to a value other than its default, and that value."""
    default = field.field.default
    text_form = TEXT_FORMS.get(f"{settings.__name__}.{field.name}")
    if text_form is not None:
        return text_form
    if default is True or default is False:
        return [field.option], not default
    kind = str(field.type)
    if "Literal" in kind:
        value: Any = next(c for c in ("local", "ray") if c != default)
    elif "int" in kind:
        value = 3 if default is None else default + 1
    elif "float" in kind:
        value = 0.5 if default is None else default / 2
    else:
        value = "localhost:6379"
    return [field.option, str(value)], value


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_each_option_sets_its_field_and_the_defaults_are_the_settings_own(
    command: Command,
) -> None:
    default = command.settings()
    assert settings_from_args(command.settings, command.parse(), command.variant) == default
    for field in setting_fields(command.settings):
        if field.name in command.not_offered:
            continue
        options, value = _given(command.settings, field)
        built = settings_from_args(command.settings, command.parse(*options), command.variant)
        if isinstance(value, dict):  # a text form may set more than its own field
            expected = dataclasses.replace(default, **value)
        else:
            expected = _with(default, field, value)
        assert built == expected, f"{command} {' '.join(options)}"


def test_a_bad_text_form_names_its_option() -> None:
    render = next(command for command in COMMANDS if command.words == ("render",))
    with pytest.raises(ParetoscopeError, match="--size: expected WxH"):
        settings_from_args(RecordingSettings, render.parse("--size", "64by48"))


def test_every_field_has_a_one_line_doc() -> None:
    for settings in {command.settings for command in COMMANDS}:
        for field in setting_fields(settings):
            assert field.form.help.strip() and "\n" not in field.form.help, field.name


def test_settings_modules_import_only_the_base_layer() -> None:
    """Settings objects live in the base layer: they import the errors and each other only."""
    for path in sorted((REPO_DIR / "core" / "settings").glob("*.py")):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module
                if module.startswith("paretoscope"):
                    assert module == "paretoscope.errors" or module.startswith(
                        "paretoscope.settings"
                    ), f"{path.name} imports {module}"
