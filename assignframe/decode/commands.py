"""The three ``assignframe decode`` actions as library functions: inputs in, exit status out.

Exit status (documented in docs/decode.md):

* ``0``: everything given was decoded;
* ``1``: something was skipped (a corrupt frame, a capture hole, an undecodable payload or record);
  each skip was reported on stderr with where it was and its byte offset;
* ``2``: nothing could be done (unreadable file, unreachable broker, bad arguments).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..errors import BrokerError
from .capture import CaptureOptions, decode_capture
from .offsets import OffsetsRecord, decode_offsets_record, read_offsets_file
from .payload import PayloadResult, decode_payload, parse_payload_text
from .problems import Problem, Problems
from .render import json_line, render_timelines, snapshot_dicts
from .render_records import render_offsets_record, render_payload

__all__ = [
    "EXIT_OK",
    "EXIT_SKIPPED",
    "EXIT_UNUSABLE",
    "capture_command",
    "offsets_command",
    "payload_command",
]

EXIT_OK, EXIT_SKIPPED, EXIT_UNUSABLE = 0, 1, 2


def _reporter(err: Console) -> Problems:
    def report(problem: Problem) -> None:
        err.print(f"[yellow]skipped:[/] {escape(str(problem))}", highlight=False, soft_wrap=True)

    return Problems(on_problem=report)


def _status(problems: Problems) -> int:
    return EXIT_SKIPPED if problems else EXIT_OK


def capture_command(
    paths: Iterable[str],
    options: CaptureOptions,
    out: Console,
    err: Console,
    as_json: bool = False,
    replay: str | None = None,
) -> int:
    """Decode each capture file into rebalance timelines (rich, or JSON lines on ``out``)."""
    problems = _reporter(err)
    for path in paths:
        if not Path(path).is_file():
            err.print(f"[red]error:[/] {escape(path)}: no such file")
            return EXIT_UNUSABLE
        result = decode_capture(path, options, problems, replay)
        if as_json:
            for snapshot in snapshot_dicts(result.timelines, source=path):
                _write_line(out, json_line(snapshot))
            continue
        if not result.timelines:
            out.print(
                f"{escape(path)}: no consumer-group traffic found "
                f"({result.frames} Kafka frames of interest)"
            )
        render_timelines(result.timelines, out)
    return _status(problems)


def _payload_inputs(
    payloads: list[str], file: str | None, stdin: TextIO
) -> Iterator[tuple[str, str]]:
    for index, text in enumerate(payloads, start=1):
        if text != "-":
            yield f"argument {index}", text
    if file is not None:
        with open(file, encoding="utf-8") as handle:
            yield from (
                (f"{file} line {n}", line)
                for n, line in enumerate(handle, start=1)
                if _meaningful(line)
            )
    if "-" in payloads or (not payloads and file is None):
        yield from (
            (f"stdin line {n}", line) for n, line in enumerate(stdin, start=1) if _meaningful(line)
        )


def _meaningful(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def payload_command(
    payloads: list[str],
    out: Console,
    err: Console,
    *,
    file: str | None = None,
    kind: str | None = None,
    version: int | None = None,
    encoding: str = "auto",
    as_json: bool = False,
    stdin: TextIO | None = None,
) -> int:
    """Decode payloads given as arguments, in a file (one per line) or on stdin (one per line)."""
    problems = _reporter(err)
    try:
        inputs = list(_payload_inputs(payloads, file, stdin or sys.stdin))
    except OSError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_UNUSABLE
    for source, text in inputs:
        try:
            data = parse_payload_text(text, encoding)
        except ValueError as exc:
            problems.add(source, 0, f"{exc}; skipped")
            continue
        result = decode_payload(data, source, kind, version)
        if result.kind is None:
            problems.add(source, 0, f"not decoded: {result.error}")
        elif result.ambiguous_with:
            problems.add(source, 0, f"ambiguous: shown as {result.label}, also fits "
                                    f"{', '.join(result.ambiguous_with)}")
        _show(result, out, as_json)
    return _status(problems)


def _show(result: PayloadResult | OffsetsRecord, out: Console, as_json: bool) -> None:
    if as_json:
        _write_line(out, json_line(result.to_dict()))
    elif isinstance(result, PayloadResult):
        out.print(render_payload(result))
    else:
        out.print(render_offsets_record(result))


def offsets_command(
    out: Console,
    err: Console,
    *,
    key: str | None = None,
    value: str | None = None,
    file: str | None = None,
    bootstrap_server: str | None = None,
    as_json: bool = False,
    timeout_s: float = 30.0,
    topic: str = "__consumer_offsets",
) -> int:
    """Decode ``__consumer_offsets`` records: a key/value pair, a file of them, or a live topic."""
    problems = _reporter(err)
    records: Iterable[OffsetsRecord] = ()
    try:
        if key is not None:
            value_bytes = None if value in (None, "null", "-") else parse_payload_text(value)
            records = [decode_offsets_record(parse_payload_text(key), value_bytes, "argument")]
            if records[0].error:
                problems.add("argument", 0, f"record not decoded: {records[0].error}")
        elif file is not None:
            with open(file, encoding="utf-8") as handle:
                lines = handle.readlines()
            records = read_offsets_file(lines, file, problems)
        elif bootstrap_server is not None:
            return _live(bootstrap_server, topic, out, err, problems, as_json, timeout_s)
    except (OSError, ValueError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_UNUSABLE
    for record in records:
        _show(record, out, as_json)
    return _status(problems)


def _live(
    bootstrap_server: str,
    topic: str,
    out: Console,
    err: Console,
    problems: Problems,
    as_json: bool,
    timeout_s: float,
) -> int:
    # The live path is the only one that needs kafka-python (the adapter package).
    from ..kafka_python.offsets import consume_offsets

    columns: list[Any] = [TextColumn(escape(topic)), BarColumn(), MofNCompleteColumn()]
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("read", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            for record in consume_offsets(bootstrap_server, problems, progress, timeout_s, topic):
                _show(record, out, as_json)
        except BrokerError as exc:
            err.print(f"[red]error:[/] {escape(str(exc))}")
            return EXIT_UNUSABLE
    return _status(problems)


def _write_line(out: Console, line: str) -> None:
    """JSON lines go to the console's file untouched (no wrapping, markup or colour)."""
    out.file.write(line + "\n")
