"""The ``assignframe`` command: a thin layer that parses arguments and calls the library.

Each command is a module of this package with ``register(subparsers)`` adding its parser and
setting ``handler`` (a function of the parsed arguments returning the exit code). Adding a
command = adding a module and listing it in ``COMMANDS``.

Expected errors (bad input, unknown strategy, broken plugin) print one line and exit non-zero:
2 for usage and input errors, 1 for a plugin or strategy that misbehaved.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import (
    AssignframeError,
    CodecError,
    InconsistentGroupProtocolError,
    ScenarioError,
    UnknownStrategyError,
    UserDataError,
)
from ._common import CommandLineError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Command modules, in ``--help`` order (later: decode, simulate, audit, report, demo).
COMMANDS = ("plugins", "assign", "replay", "decode", "simulate", "audit", "report", "demo")

#: Errors caused by what the user typed or fed in (exit 2); other AssignframeErrors exit 1.
INPUT_ERRORS = (
    CodecError,
    CommandLineError,
    InconsistentGroupProtocolError,
    ScenarioError,
    UnknownStrategyError,
    UserDataError,
    OSError,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="assignframe", description="Kafka consumer-group partition assignment toolkit."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except INPUT_ERRORS as exc:
        return _fail(exc, 2)
    except AssignframeError as exc:
        return _fail(exc, 1)
    except BrokenPipeError:  # e.g. `assignframe replay ... | head`
        sys.stderr.close()
        return 0


def _fail(exc: BaseException, code: int) -> int:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    print(f"assignframe: error: {message}", file=sys.stderr)
    return code
