"""Argument helpers and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UnknownOptionError, UnknownStrategyError
from ..jsonview import loads
from ..server_assignor import SERVER_PREFIX

if TYPE_CHECKING:
    from rich.console import Console

    from ..model import TopicPartition
    from ..plugins.manager import PluginManager

__all__ = [
    "COMMAND_SUMMARIES",
    "CommandLineError",
    "EXIT_STATUS",
    "add_command",
    "add_strategy_arguments",
    "checked_bootstrap",
    "checked_options",
    "checked_strategies",
    "compact_partitions",
    "console",
    "parse_options",
    "port_number",
    "positive_int",
    "print_json",
    "read_json",
    "read_text",
]


class CommandLineError(InputError):
    """An argument the parser accepted but the command cannot use (exit 2)."""


#: What every command's exit code means (docs/cli.md, "Errors and exit status").
EXIT_STATUS = (
    "exit status: 0 all done; 1 done, but something was skipped (one line each on stderr),\n"
    "or a plugin misbehaved; 2 unusable input or usage; 130 interrupted (Ctrl-C).\n"
    "An error is one line on stderr:\n"
    "'assignframe: error: WHAT (WHERE)'"
)


#: Each command and the one line ``assignframe --help`` lists for it, in ``--help`` order: the
#: top-level help is built from this table alone, without importing a command's module.
COMMAND_SUMMARIES = {
    "plugins": "list installed strategies",
    "assign": "assign a group's partitions (group file schema: docs/cli.md)",
    "replay": "replay recorded rebalance scenarios",
    "decode": "decode captures, payloads and __consumer_offsets records",
    "simulate": "play scenario timelines through strategies",
    "audit": "audit group snapshots (JSON lines or Parquet)",
    "report": "write the HTML report",
    "inspect": "read a live cluster's groups (read-only) and judge each one",
    "watch": "poll a live cluster (read-only): history of changes, Prometheus metrics",
    "demo": "every tool on shipped sample data, one report",
}


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    *,
    description: str,
    summary: str | None = None,
    examples: Sequence[str] = (),
    docs: str = "docs/cli.md",
) -> argparse.ArgumentParser:
    """A command's parser whose ``--help`` a person reads: what it does (``description``, as
    written), examples, the exit status and where the full reference is.

    :param summary: the one line ``assignframe --help`` lists (a command's comes from
        :data:`COMMAND_SUMMARIES`; a sub-action such as ``decode capture`` gives its own)
    """
    epilog = [("examples:\n" + "\n".join(f"  {e}" for e in examples))] if examples else []
    epilog += [EXIT_STATUS, f"reference: {docs}"]
    return subparsers.add_parser(  # type: ignore[no-any-return]
        name,
        help=COMMAND_SUMMARIES[name] if summary is None else summary,
        description=description,
        epilog="\n\n".join(epilog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def positive_int(text: str) -> int:
    """argparse type: an int >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text}")
    return value


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0 (any free port) to 65535."""
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {text!r}")
    return int(text)


def checked_bootstrap(text: str) -> str:
    """``--bootstrap-server`` as given, once each address is ``HOST:PORT`` with a port 1-65535
    (else one error line naming the option)."""
    from ..cluster.probe import parse_bootstrap

    try:
        parse_bootstrap(text)
    except ValueError as exc:
        raise CommandLineError(str(exc), "--bootstrap-server") from None
    return text


def checked_strategies(
    pm: PluginManager, names: Iterable[str], where: str, server_note: str | None = None
) -> None:
    """Fail before any work when a name is not installed (the message lists installed ones).

    :param server_note: where the command takes client strategies only, what to do instead
        with a broker assignor (``server:uniform``), said in the error after its name
    """
    for name in names:
        try:
            if server_note is not None and name.startswith(SERVER_PREFIX):
                raise CommandLineError(
                    f"{name} is the broker's assignor for consumer-protocol groups: {server_note}",
                    where,
                )
            pm.registry.get(name)
        except UnknownStrategyError as exc:
            raise CommandLineError(str(exc), where) from None


def checked_options(
    pm: PluginManager, name: str, options: dict[str, Any], where: str = "--option"
) -> dict[str, Any]:
    """``options`` if strategy ``name`` accepts them (:meth:`Strategy.check_options`)."""
    checked_strategies(pm, [name], "--strategy")
    try:
        pm.registry.get(name).cls.check_options(options)
    except UnknownOptionError as exc:
        raise UnknownOptionError(exc.what, where) from None
    except ValueError as exc:  # a strategy's own value check
        raise UnknownOptionError(f"strategy {name!r}: {exc}", where) from None
    return options


def read_text(path: str | Path) -> str:
    """A file's text; unreadable = one :class:`InputError` naming the file."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError.unreadable(exc, str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not text: {exc.reason} at byte {exc.start}", str(path)) from None


def read_json(path: str | Path) -> Any:
    """A JSON file's value; a syntax error names the file and line."""
    text = read_text(path)
    if not text.strip():
        raise InputError("empty file, expected JSON", str(path))
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", f"{path} line {exc.lineno}") from None


def add_strategy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strategy", "-s", help="strategy name (see `assignframe plugins`)")
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="strategy option; VALUE is read as JSON when it parses (replicas=2 is an int)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["k=v", ...]`` -> ``{k: v}``; values are JSON when they parse, else strings."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise CommandLineError(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            options[key] = loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def console(width: int | None = None) -> Console:
    """Standard output for people: the terminal's width, or ``width``; pipes and files get
    full lines (no wrapping at 80 columns that would cut member ids)."""
    out = _console_class()(highlight=False, width=width)
    if width is None and not out.is_terminal:
        out.width = PIPED_WIDTH
    return out


@functools.cache
def _console_class() -> type[Console]:
    from rich.console import Console  # rich is loaded only by a command that prints for people

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich would exit 1 here; the reader closing the pipe (`| head`) is the CLI's to
            # handle (quietly, exit 0), the same for every command.
            raise BrokenPipeError

    return _Console


#: Width of rich output written to a pipe or a file: wide enough that no table cell wraps.
PIPED_WIDTH = 400


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n")


def compact_partitions(partitions: Iterable[TopicPartition]) -> str:
    """``t0: 0-2, 5; t1: 1`` (topics in first-seen order, runs of partitions collapsed)."""
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return "; ".join(f"{topic}: {_runs(numbers)}" for topic, numbers in by_topic.items()) or "-"


def _runs(numbers: list[int]) -> str:
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
