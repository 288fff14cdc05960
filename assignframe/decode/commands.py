"""The three ``assignframe decode`` actions as library functions: inputs in, exit status out.

Exit status (documented in docs/decode.md):

* ``0``: everything given was decoded;
* ``1``: something was skipped (a corrupt frame, a capture hole, an undecodable payload or record);
  each skip was reported on stderr with where it was and its byte offset;
* ``2``: nothing could be done (unreadable file, a file that is not a capture or holds no
  consumer-group traffic, unreachable broker, bad arguments): raised as
  :class:`~assignframe.errors.InputError`, ``<what> (<where>)``, for the CLI to print once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from ..errors import EXIT_OK, EXIT_SKIPPED, EXIT_UNUSABLE, BrokerError, InputError
from .capture import CaptureOptions, CaptureResult, decode_capture
from .offsets.group_state import GroupRebuild, check_group
from .offsets.records import OffsetsRecord, decode_offsets_record, read_offsets_file
from .offsets.snapshots import TopicInfo, offsets_snapshots
from .payload import PayloadResult, decode_payload, parse_payload_text
from .problems import Problem, Problems
from .views.console import (
    render_consumer_timelines,
    render_group_state,
    render_offsets_record,
    render_payload,
    render_timelines,
)
from .views.jsonl import consumer_snapshot_dicts, json_line, snapshot_dicts, streams_epoch_dicts

__all__ = [
    "EXIT_OK",
    "EXIT_SKIPPED",
    "EXIT_UNUSABLE",
    "LiveRecords",
    "capture_command",
    "offsets_command",
    "payload_command",
]


def _reporter(err: Console) -> Problems:
    def report(problem: Problem) -> None:
        err.print(skipped_line(problem), highlight=False, soft_wrap=True, markup=False)

    return Problems(on_problem=report)


def skipped_line(problem: Problem) -> str:
    """One skip on stderr, in the CLI's ``<what> (<where>)`` style."""
    return f"assignframe: skipped: {problem.message} ({problem.where} @ byte {problem.offset})"


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
        result = _usable_capture(path, options, replay)
        for problem in result.problems:
            problems.add(problem.where, problem.offset, problem.message)
        if as_json:
            for snapshot in snapshot_dicts(result.timelines, source=path):
                _write_line(out, json_line(snapshot))
            for snapshot in consumer_snapshot_dicts(
                    [*result.consumer_groups, *result.share_groups], source=path):
                _write_line(out, json_line(snapshot))
            for epoch in streams_epoch_dicts(result.streams_groups, source=path):
                _write_line(out, json_line(epoch))
        else:
            render_timelines(result.timelines, out)
            render_consumer_timelines([*result.consumer_groups, *result.share_groups,
                                       *result.streams_groups], out)
    return _status(problems)


def _usable_capture(path: str, options: CaptureOptions, replay: str | None) -> CaptureResult:
    """The decoded capture, or :class:`InputError` when it yields no group traffic at all."""
    file = Path(path)
    if file.is_dir():
        raise InputError("is a directory, expected a pcap/pcapng capture", path)
    if not file.exists():
        raise InputError("no such file", path)
    result = decode_capture(path, options, Problems(), replay)
    if result.timelines or result.consumer_groups or result.share_groups or result.streams_groups:
        return result
    first = next(iter(result.problems), None)
    if first is not None and result.frames == 0:
        raise InputError(first.message, f"{path} @ byte {first.offset}")
    raise InputError(
        f"no consumer-group traffic found ({result.frames} Kafka frames of interest;"
        " is the broker port --port?)",
        path,
    )


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
        raise InputError.unreadable(exc, file) from None
    if not inputs:
        where = file if file is not None and "-" not in payloads else "stdin"
        raise InputError(f"{'empty file' if where == file else 'nothing on stdin'}: expected "
                         "payloads, hex or base64, one per line", where)
    unusable: list[tuple[str, str]] = []  # said once something usable shows the input is right
    usable = False
    for source, text in inputs:
        try:
            data = parse_payload_text(text, encoding)
        except ValueError as exc:
            unusable.append((source, _not_a_payload(text, exc)))
            if usable:
                _skip_unusable(problems, unusable)
            continue
        usable = True
        _skip_unusable(problems, unusable)
        result = decode_payload(data, source, kind, version)
        if result.kind is None:
            problems.add(source, 0, f"not decoded: {result.error}")
            if not as_json:
                continue  # said once, on stderr; JSON keeps one line per input
        elif result.ambiguous_with:
            problems.add(source, 0, f"ambiguous: shown as {result.label}, also fits "
                                    f"{', '.join(result.ambiguous_with)}")
        _show(result, out, as_json)
    if not usable:  # nothing was a payload: unusable input, one error line (docs/cli.md)
        source, message = unusable[0]
        raise InputError(message, source)
    return _status(problems)


def _not_a_payload(text: str, exc: ValueError) -> str:
    """Why a line is not a payload; a word that names a file says how to give a file."""
    word = text.strip()
    if word and Path(word).is_file():
        return f"{exc}; {word!r} is a file: give it as --file {word}"
    return str(exc)


def _skip_unusable(problems: Problems, unusable: list[tuple[str, str]]) -> None:
    for source, message in unusable:
        problems.add(source, 0, message)
    unusable.clear()


def _show(result: PayloadResult | OffsetsRecord, out: Console, as_json: bool) -> None:
    if as_json:
        _write_line(out, json_line(result.to_dict()))
    elif isinstance(result, PayloadResult):
        out.print(render_payload(result))
    else:
        out.print(render_offsets_record(result))


#: ``live(report, progress, on_topics)`` -> each record's ``(key, value, where, offset)``; it
#: calls ``on_topics({name: (topic id or None, partitions)})`` once with the broker's Metadata
LiveRecords = Callable[
    [Callable[[str, int, str], object], Callable[[int, int], None],
     Callable[[dict[str, tuple["str | None", int]]], None]],
    Iterable[tuple[bytes, "bytes | None", str, int]],
]


def offsets_command(
    out: Console,
    err: Console,
    *,
    key: str | None = None,
    value: str | None = None,
    file: str | None = None,
    live: LiveRecords | None = None,
    live_source: str = "",
    as_json: bool = False,
    records_json: bool = False,
) -> int:
    """Decode ``__consumer_offsets`` records: a key/value pair, a file of them, or a live topic.

    :param live: reads the live topic (see :data:`LiveRecords`; the CLI binds the kafka-python
        adapter here; decode imports no client)
    :param live_source: what ``live`` reads, for messages (the bootstrap server)
    :param as_json: one group snapshot per line (``assignframe audit`` input) instead of the
        records; groups without members are named on stderr
    :param records_json: one JSON object per record, then one per rebuilt consumer group state
    """
    problems = _reporter(err)
    view = _OffsetsView(out, err, problems, as_json, records_json)
    if live is not None:
        return _live(live, live_source, view)
    try:
        if key is not None:
            value_bytes = None if value in (None, "null", "-") else parse_payload_text(value)
            records = [decode_offsets_record(parse_payload_text(key), value_bytes, "argument")]
            if records[0].error:
                problems.add("argument", 0, f"record not decoded: {records[0].error}")
        else:
            with open(file or "", encoding="utf-8") as handle:
                lines = handle.readlines()
            records = list(read_offsets_file(lines, file or "", problems))
    except OSError as exc:
        raise InputError.unreadable(exc, file) from None
    except ValueError as exc:
        raise InputError(str(exc), file or "--key/--value") from None
    for record in records:
        view.record(record)
    view.finish()
    return _status(problems)


class _OffsetsView:
    """What ``decode offsets`` shows of the records and of the groups rebuilt from them."""

    def __init__(self, out: Console, err: Console, problems: Problems, as_json: bool,
                 records_json: bool) -> None:
        self.out, self.err, self.problems = out, err, problems
        self.as_json, self.records_json = as_json, records_json
        self.rebuild = GroupRebuild()
        self.topics: dict[str, TopicInfo] = {}

    def record(self, record: OffsetsRecord) -> None:
        self.rebuild.add(record)
        if not self.as_json:
            _show(record, self.out, self.records_json)

    def take_topics(self, topics: dict[str, tuple[str | None, int]]) -> None:
        self.topics = {name: TopicInfo(*info) for name, info in topics.items()}

    def finish(self) -> None:
        """Each consumer-protocol, share and Streams group's rebuilt state (broken invariants
        are problems), or, with ``as_json``, every group's snapshot."""
        for state in self.rebuild.states():
            broken = check_group(state)
            for sentence in broken:
                self.problems.add(f"group {state.group_id}", 0,
                                  f"{sentence} (last record: {state.last_where})")
            if self.records_json:
                _write_line(self.out, json_line({"consumer_group_state": state.to_dict(),
                                                 "problems": broken}))
            elif not self.as_json:
                self.out.print(render_group_state(state, broken))
        for other in self.rebuild.share_streams_states():
            broken = check_group(other)
            for sentence in broken:
                self.problems.add(f"group {other.group_id}", 0,
                                  f"{sentence} (last record: {other.last_where})")
            if self.records_json:
                _write_line(self.out, json_line({f"{other.group_type}_group_state":
                                                 other.to_dict(), "problems": broken}))
        if self.as_json:
            self._snapshots()

    def _snapshots(self) -> None:
        rebuilt = offsets_snapshots(self.rebuild, self.topics)
        for line in rebuilt.lines:
            _write_line(self.out, json_line(line))
        if rebuilt.without_members:
            named = "; ".join(f"{g} ({why})" for g, why in rebuilt.without_members.items())
            self.err.print(f"assignframe: note: {len(rebuilt.without_members)} group(s) have no "
                           f"members and no snapshot (the audit reads groups with members): "
                           f"{named}", markup=False, highlight=False, soft_wrap=True)


def _live(live: LiveRecords, source: str, view: _OffsetsView) -> int:
    columns: list[Any] = [TextColumn(escape(source)), BarColumn(), MofNCompleteColumn()]
    with Progress(*columns, console=view.err, transient=True) as bar:
        task = bar.add_task("read", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            for key, value, where, offset in live(view.problems.add, progress, view.take_topics):
                record = decode_offsets_record(key, value, where)
                if record.error:
                    view.problems.add(where, offset, f"record not decoded: {record.error}")
                view.record(record)
        except BrokerError as exc:
            raise InputError(str(exc), "--bootstrap-server") from None
    view.finish()
    return _status(view.problems)


def _write_line(out: Console, line: str) -> None:
    """JSON lines go to the console's file untouched (no wrapping, markup or colour)."""
    out.file.write(line + "\n")
