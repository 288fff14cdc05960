"""Argument helpers and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console

from ..errors import AssignframeError
from ..model import TopicPartition

__all__ = [
    "CommandLineError",
    "add_strategy_arguments",
    "compact_partitions",
    "console",
    "parse_options",
    "print_json",
]


class CommandLineError(AssignframeError):
    """An argument the parser accepted but the command cannot use (exit 2)."""


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
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def console() -> Console:
    out = Console(highlight=False)
    if not out.is_terminal:
        out.width = 200  # pipes and files: don't squeeze tables into 80 columns
    return out


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
