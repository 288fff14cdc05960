"""Every command's ``--help`` is written for the person reading it: a plain description, examples
that parse as written (and run, where they need no file or broker), the exit status and the
reference page."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from assignframe.cli import build_parser, main
from assignframe.cli._common import EXIT_STATUS

ROOT = Path(__file__).resolve().parents[2]


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(words, parser) for every command and sub-command, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _commands(sub, (*prefix, name))


COMMANDS = list(_commands(build_parser()))
EXAMPLES = [
    line.strip()
    for _, parser in COMMANDS
    for line in (parser.epilog or "").splitlines()
    if line.strip().startswith("assignframe ")
]
#: Examples that need no file, broker or long run: they are run, not only parsed.
RUNNABLE = {
    "assignframe plugins",
    "assignframe plugins --json",
    "assignframe decode payload 000300000001000174ffffffff00000000ffffffffffff",
    "assignframe decode offsets --key 0002000762696c6c696e67",
}


def test_every_command_has_help_for_people():
    assert {words for words, _ in COMMANDS} >= {
        ("plugins",),
        ("assign",),
        ("replay",),
        ("decode",),
        ("decode", "capture"),
        ("decode", "payload"),
        ("decode", "offsets"),
        ("simulate",),
        ("audit",),
        ("report",),
        ("demo",),
    }
    for words, parser in COMMANDS:
        text = parser.format_help()
        where = " ".join(words)
        assert parser.description, f"{where}: no description"
        for markup in ("``", ":mod:", ":func:", ":class:", "Thin:"):
            assert markup not in text, f"{where}: --help shows {markup!r}"
        assert "examples:\n  assignframe " in text, f"{where}: no example"
        assert EXIT_STATUS in text, f"{where}: no exit status"
        reference = text.rsplit("reference: ", 1)[1].strip()
        assert (ROOT / reference).is_file(), f"{where}: reference {reference} does not exist"


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_example_parses_as_written(example):
    words = shlex.split(example.split(" > ")[0])[1:]
    args = build_parser().parse_args(words)  # a usage error exits 2 and fails here
    assert args.handler is not None


@pytest.mark.parametrize("example", sorted(RUNNABLE))
def test_examples_that_need_nothing_run(example, capsys):
    assert example in EXAMPLES
    assert main(shlex.split(example)[1:]) == 0
    assert capsys.readouterr().out.strip()
