"""What ``assignframe inspect`` prints: the summary line, the triage filters (``--state``,
``--problem`` by problem kind), and the fleet rows as a table (a terminal), plain columns (a
pipe or a file), TSV or CSV. Only the rows shown are rendered. Reference: docs/cluster.md
("inspect output").
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from ..cluster.inspection import GroupVerdict, Inspection
from ..snapshot.problems import PROBLEM_KINDS
from ._common import CommandLineError

__all__ = ["DETAIL_COLUMNS", "FORMATS", "GROUP_STATES", "TABLE_COLUMNS", "TABLE_LIMIT",
           "left_out_line", "limited", "parse_problem_kinds", "parse_states", "prediction_line",
           "print_details", "print_rows", "shown", "summary"]

#: --format values; the default is "table" on a terminal and "plain" otherwise
FORMATS = ("table", "plain", "tsv", "csv")
#: group states Kafka names (classic, consumer, share, streams groups)
GROUP_STATES = ("Empty", "Stable", "PreparingRebalance", "CompletingRebalance", "Assigning",
                "Reconciling", "NotReady", "Dead")
#: the fleet row's columns, in order; problems and the verdicts last (the long cells)
TABLE_COLUMNS = ("group", "type", "protocol", "state", "members", "partitions", "spread", "lag",
           "lag spread", "recommended", "migration", "problems")

#: rows a table shows unless --limit says otherwise (rich's table costs about 2 ms of CPU a
#: row: 10,000 groups took four times longer to draw than to read)
TABLE_LIMIT = 50


#: --detail's columns: kafka-consumer-groups.sh's --state, --members --verbose and --offsets
#: in one row per partition (a member owning none: one row without a partition)
DETAIL_COLUMNS = ("group", "coordinator", "coordinator_id", "assignor", "state", "topic",
                  "partition", "current_offset", "log_end_offset", "lag", "member_id", "host",
                  "client_id")


def parse_states(values: Sequence[str] | None) -> tuple[str, ...]:
    """``--state`` (comma lists, repeated) as Kafka's names; an unknown one is an error."""
    wanted = [v.strip() for value in values or () for v in value.split(",") if v.strip()]
    known = {s.lower(): s for s in GROUP_STATES}
    unknown = [w for w in wanted if w.lower() not in known]
    if unknown:
        raise CommandLineError(f"unknown group state {', '.join(unknown)}; expected "
                               f"{', '.join(GROUP_STATES)}", "--state")
    return tuple(known[w.lower()] for w in wanted)


def _problems(verdict: GroupVerdict) -> list[str]:
    return ([verdict.unreadable] if verdict.unreadable else []) + verdict.problems


def parse_problem_kinds(values: Sequence[str] | None) -> tuple[str, ...]:
    """``--problem`` (comma lists, repeated) as problem kinds (:data:`PROBLEM_KINDS`) or
    ``any``; an unknown one is an error that lists the kinds."""
    wanted = [v.strip().lower() for value in values or () for v in value.split(",")
              if v.strip()]
    unknown = [w for w in wanted if w != "any" and w not in PROBLEM_KINDS]
    if unknown:
        raise CommandLineError(f"unknown problem kind {', '.join(unknown)}; expected any, "
                               f"{', '.join(PROBLEM_KINDS)}", "--problem")
    return tuple(wanted)


def shown(inspection: Inspection, states: Sequence[str],
          kinds: Sequence[str]) -> list[GroupVerdict]:
    """The verdicts the filters keep, in triage order: ``states`` (any of them), ``kinds``
    (problem kinds, any of them; ``any``: a group with any problem)."""
    kept = []
    for verdict in inspection.verdicts:
        if states and verdict.state not in states:
            continue
        has = verdict.problem_kinds()
        if kinds and not any((k == "any" and has) or k in has for k in kinds):
            continue
        kept.append(verdict)
    return kept


def limited(rows: list[GroupVerdict],
            limit: int | None) -> tuple[list[GroupVerdict], list[GroupVerdict]]:
    """The first ``limit`` rows (None: all) and the rows left out."""
    if limit is None:
        return rows, []
    return rows[:limit], rows[limit:]


def left_out_line(left_out: Sequence[GroupVerdict]) -> str:
    """What the rows cut by ``--limit`` hold and how to see them (never a silent cut)."""
    unreadable = sum(1 for v in left_out if v.unreadable)
    members = sum(1 for v in left_out if v.members and not v.unreadable)
    troubled = sum(1 for v in left_out if _problems(v))
    return (f"{len(left_out)} more group(s) not shown ({members} with members, "
            f"{len(left_out) - members - unreadable} without"
            + (f", {unreadable} unreadable" if unreadable else "")
            + f"; {troubled} with problems): --limit 0 shows every row, "
            "--state/--problem/--group narrow them")


def summary(inspection: Inspection, rows: Sequence[GroupVerdict]) -> str:
    """One line: how many groups, with members, with problems, unreadable, offsets only."""
    verdicts = inspection.verdicts
    with_members = sum(1 for v in verdicts if v.members and not v.unreadable)
    troubled = sum(1 for v in verdicts if _problems(v))
    unreadable = sum(1 for v in verdicts if v.unreadable)
    offsets_only = sum(1 for v in verdicts if not v.members and not v.unreadable)
    line = (f"{inspection.read.bootstrap}: {len(verdicts)} group(s): {with_members} with "
            f"members, {troubled} with problems, {unreadable} unreadable, {offsets_only} "
            "without members")
    if len(rows) != len(verdicts):
        line += f"; {len(rows)} shown"
    if inspection.missing:
        line += f"; no such group: {', '.join(inspection.missing)}"
    return line


def _cells(verdict: GroupVerdict, unknown: str) -> list[str]:
    def cell(value: Any) -> str:
        return unknown if value is None else str(value)

    return [verdict.group_id, cell(verdict.group_type), cell(verdict.protocol),
            cell(verdict.state), cell(verdict.members), cell(verdict.partitions),
            cell(verdict.spread), cell(verdict.behind()), cell(verdict.lag_spread),
            cell(verdict.recommendation), cell(verdict.migration),
            "; ".join(_problems(verdict)) or unknown]


def print_rows(inspection: Inspection, rows: Sequence[GroupVerdict], form: str,
               left_out: Sequence[GroupVerdict] = ()) -> None:
    """The rows in ``form`` (one of :data:`FORMATS`); table and plain start with the summary
    line and end with :func:`left_out_line` when rows were ``left_out``; TSV and CSV are a
    header and the rows only (the summary and that line go to stderr)."""
    if form in ("tsv", "csv"):
        print(f"assignframe: note: {summary(inspection, rows)}", file=sys.stderr)
        _delimited(rows, "\t" if form == "tsv" else ",")
        if left_out:
            print(f"assignframe: note: {left_out_line(left_out)}", file=sys.stderr)
        return
    if form == "plain":
        print(summary(inspection, rows))
        _plain([_cells(v, "-") for v in rows])
    else:
        _table(summary(inspection, rows), rows)
    if left_out:
        print(f"... {left_out_line(left_out)}")


def print_details(details: Sequence[Any], form: str) -> None:
    """``--detail``: :class:`~assignframe.cluster.detail.GroupDetail` rows in ``form`` (table
    and plain: aligned columns; unknown values ``-``)."""
    unknown = "" if form in ("tsv", "csv") else "-"
    lines = [row for detail in details for row in _detail_cells(detail, unknown)]
    if form in ("tsv", "csv"):
        _write_delimited(DETAIL_COLUMNS, lines, "\t" if form == "tsv" else ",")
        return
    _plain(lines, DETAIL_COLUMNS)
    for detail in details:  # below the columns: a sentence each, not a column
        if detail.migration_prediction:
            print(f"{detail.group_id}: {prediction_line(detail.migration_prediction)}")


def prediction_line(prediction: dict[str, Any]) -> str:
    """A classic group's migration prediction in words, with the timing it assumed."""
    waits = ", ".join(f"{_seconds(ms)} under {assignor}"
                      for assignor, ms in prediction["max_unowned_ms"].items())
    return (f"upgraded to the consumer protocol, a partition would wait at most {waits} "
            f"(heartbeat {prediction['heartbeat_interval_ms']} ms, session timeout "
            f"{prediction['session_timeout_ms']} ms: {prediction['timing_source']})")


def _seconds(ms: int | None) -> str:
    return "unknown" if ms is None else f"{ms / 1000:g} s"


def _detail_cells(detail: Any, unknown: str) -> list[list[str]]:
    def cell(value: Any) -> str:
        return unknown if value is None else str(value)

    group = [detail.group_id, cell(detail.coordinator), cell(detail.coordinator_id),
             cell(detail.assignor), cell(detail.state)]
    rows = [group + [p.topic, str(p.partition), cell(p.current_offset), cell(p.log_end_offset),
                     cell(p.lag), cell(p.member_id), cell(p.host), cell(p.client_id)]
            for p in detail.partitions]
    rows += [group + [unknown] * 5 + [m.member_id, cell(m.host), cell(m.client_id)]
             for m in detail.members if not m.partitions]
    return rows or [group + [unknown] * 8]


def _delimited(rows: Iterable[GroupVerdict], delimiter: str) -> None:
    _write_delimited(TABLE_COLUMNS, [_cells(v, "") for v in rows], delimiter)


def _write_delimited(columns: Sequence[str], lines: Iterable[list[str]],
                     delimiter: str) -> None:
    """Unknown values are empty fields; a cell never holds a tab or a newline."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n",
                        quoting=csv.QUOTE_MINIMAL)
    writer.writerow([c.replace(" ", "_") for c in columns])
    for line in lines:
        writer.writerow([c.replace("\t", " ").replace("\n", " ") for c in line])
    sys.stdout.write(buffer.getvalue())


def _plain(lines: list[list[str]], columns: Sequence[str] = TABLE_COLUMNS) -> None:
    """Columns aligned with spaces, no box drawing (for grep, awk and less)."""
    header = [c.upper().replace(" ", "-").replace("_", "-") for c in columns]
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(columns))]
    for row in [header, *lines]:
        line = "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
        sys.stdout.write(line.rstrip() + "\n")


def _table(title: str, rows: Sequence[GroupVerdict]) -> None:
    from rich.table import Table

    from ._common import console

    table = Table(title=title)
    for column in TABLE_COLUMNS:
        table.add_column(column)
    for verdict in rows:
        table.add_row(*_cells(verdict, "-"))
    console().print(table)
