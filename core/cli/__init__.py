"""The `paretoscope` command: one sub-command module per area, each with a `register` function.

A sub-command module exposes ``register(subparsers)`` that adds its parsers and sets
``func=<callable(args) -> int>`` on each. User errors (`ParetoscopeError`) print one line and
exit with status 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from paretoscope import __version__
from paretoscope.errors import ParetoscopeError, ParetoscopeWarning
from paretoscope.text import terminal_message

# Sub-command modules, in the order `--help` lists them.
_COMMAND_MODULES = (
    "paretoscope.cli.envs",
    "paretoscope.cli.data",
    "paretoscope.cli.agent",
    "paretoscope.cli.train",
    "paretoscope.cli.evaluate",
    "paretoscope.cli.run",
    "paretoscope.cli.front",
    "paretoscope.cli.choose",
    "paretoscope.cli.figure",
    "paretoscope.cli.report",
    "paretoscope.cli.render",
    "paretoscope.cli.dashboard",
    "paretoscope.cli.demo",
)


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose refusals (they quote the value given) are cut as the CLI's own
    messages are; its sub-command parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {terminal_message(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="paretoscope",
        description="Explore the Pareto fronts of multi-objective RL agents and datasets.",
    )
    parser.add_argument("--version", action="version", version=f"paretoscope {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
    *,
    default: Any = warnings.showwarning,
) -> None:
    """paretoscope's own warnings as one line (like its errors); others as Python shows them."""
    if issubclass(category, ParetoscopeWarning):
        print(f"paretoscope: warning: {terminal_message(message)}", file=sys.stderr)
    else:
        default(message, category, filename, lineno, file, line)


def main(argv: Sequence[str] | None = None) -> int:
    warnings.showwarning = _show_warning
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except ParetoscopeError as error:
        # Messages quote file names and fields: no terminal escape from a file reaches the tty,
        # and no message runs to megabytes (`terminal_message` cuts it).
        print(f"paretoscope: error: {terminal_message(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("paretoscope: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover - `python -m paretoscope.cli`
    sys.exit(main())
