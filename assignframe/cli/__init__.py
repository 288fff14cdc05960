"""The ``assignframe`` command: a thin layer that parses arguments and calls the library.

Each command is a module of this package with ``register(subparsers)`` adding its parser and
setting ``handler`` (a function of the parsed arguments returning the exit code). Adding a
command = adding a module and listing it, with its one-line summary, in
``_common.COMMAND_SUMMARIES``. A run imports only the module of the command it runs (the others
are listed from that table), so ``assignframe --help`` or ``plugins`` never load the codec, the
cluster reader or rich's tables.

Every command keeps the exit codes docs/cli.md promises: 0 all done, 1 done but something was
skipped (each skip reported on stderr), 2 unusable input or usage. An error is one line on
stderr, ``assignframe: error: <what> (<where>)``, printed once; a plugin or strategy that
misbehaves exits 1 the same way. A reader that closes the pipe early (``| head``) ends it quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..errors import (
    EXIT_OK,
    EXIT_SKIPPED,
    EXIT_UNUSABLE,
    AssignframeError,
    CodecError,
    InconsistentGroupProtocolError,
    InputError,
    ScenarioError,
    UnknownStrategyError,
    UserDataError,
)
from ._common import COMMAND_SUMMARIES, EXIT_STATUS

__all__ = ["COMMANDS", "EXIT_OK", "EXIT_SKIPPED", "EXIT_UNUSABLE", "build_parser", "main"]

#: Command modules, in ``--help`` order.
COMMANDS = tuple(COMMAND_SUMMARIES)

#: Ctrl-C (SIGINT): 128 + 2, as a shell reports a command it interrupted.
EXIT_INTERRUPTED = 130

#: A plugin or strategy that misbehaved (names itself in the message).
EXIT_PLUGIN_FAILED = 1

#: Errors caused by what the user typed or fed in (exit 2); other AssignframeErrors exit 1.
INPUT_ERRORS = (
    CodecError,
    InputError,
    InconsistentGroupProtocolError,
    ScenarioError,
    UnknownStrategyError,
    UserDataError,
    OSError,
)


class _Parser(argparse.ArgumentParser):
    """argparse with the one-line error style (no usage block; ``--help`` shows it)."""

    def error(self, message: str) -> NoReturn:
        _print_error(f"{message} ({self.prog}; see {self.prog} --help)")
        sys.exit(EXIT_UNUSABLE)


def build_parser(words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the command line ``words``, only the command they name is built
    from its module (the others are listed by name and summary, which is all ``--help`` shows)."""
    parser = _Parser(
        prog="assignframe",
        description="Kafka consumer-group partition assignment toolkit.",
        epilog=f"'assignframe COMMAND --help' tells more of each.\n\n{EXIT_STATUS}\n\n"
        "reference: docs/cli.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = None if words is None else _command_named(words)
    for name in COMMANDS:
        if words is None or name == chosen:
            importlib.import_module(f"{__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=COMMAND_SUMMARIES[name], add_help=False)
    return parser


def _command_named(words: Sequence[str]) -> str | None:
    # the top-level parser has no option taking a value, so the first word that is not an
    # option is the command (or a mistyped one, which argparse reports with the list)
    return next((word for word in words if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(words).parse_args(words)
        return int(args.handler(args))
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        return _reader_went_away()
    except INPUT_ERRORS as exc:
        return _fail(exc, EXIT_UNUSABLE, words)
    except AssignframeError as exc:
        return _fail(exc, EXIT_PLUGIN_FAILED, words)


def _interrupted() -> int:
    # Ctrl-C: the shell's convention, 128 + SIGINT, one line and no traceback, in every command
    # (a watch is normally ended this way: its history holds every event up to here)
    print("assignframe: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _reader_went_away() -> int:
    # `assignframe replay ... | head`: the reader has all it wanted. Point stdout at /dev/null so
    # the interpreter's final flush does not raise (and print) a second BrokenPipeError.
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real file (tests): nothing will flush to a pipe
    return EXIT_OK


def _fail(exc: BaseException, code: int, words: Sequence[str]) -> int:
    _print_error(describe_error(exc, words))
    return code


def _print_error(message: str) -> None:
    print(f"assignframe: error: {message}", file=sys.stderr)


def describe_error(exc: BaseException, words: Sequence[str] = ()) -> str:
    """``<what> (<where>)`` on one line; a leading ``FILE:`` or ``FILE:LINE:`` naming a path the
    user typed (the library's way of saying where) moves into the parentheses."""
    if isinstance(exc, InputError):
        return _first_line(str(exc))
    if isinstance(exc, OSError) and exc.filename is not None:
        if _is_output(str(exc.filename), words):
            return str(InputError.unwritable(exc, str(exc.filename)))
        return str(InputError.unreadable(exc, str(exc.filename)))
    message = _first_line(str(exc)) or type(exc).__name__
    for word in sorted({w for w in words if w and not w.startswith("-")}, key=len, reverse=True):
        located = re.match(rf"{re.escape(word)}(:\d+)?: (.+)", message)
        if located:
            return f"{located[2]} ({word}{located[1] or ''})"
    return message


#: options naming what a command writes (an OSError on their path is "cannot write")
OUTPUT_OPTIONS = ("--out", "--html")


def _is_output(path: str, words: Sequence[str]) -> bool:
    """``path`` is, or lies under, a value the user gave an output option."""
    pairs = zip(words, words[1:], strict=False)
    outputs = [after for option, after in pairs if option in OUTPUT_OPTIONS]
    outputs += [w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in OUTPUT_OPTIONS
                and "=" in w]
    return any(path == out or path.startswith(out.rstrip("/") + "/") for out in outputs)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
