"""``assignframe inspect``: one read-only pass over a live cluster, a verdict per group.

Thin: parses arguments and calls :mod:`assignframe.cluster`. Reference: docs/cluster.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from ..cluster.config import ClientConfig, RedactingFilter, read_client_config
from ..cluster.group_records import READ_BUDGET_S
from ..cluster.inspection import GroupVerdict, Inspection, inspect_cluster
from ..cluster.reader import GroupFilter
from ..errors import BrokerError, InputError
from ..snapshot import snapshot_to_dict
from ..snapshot.problems import PROBLEM_KINDS
from ..snapshot.schema import GROUP_TYPES
from ._common import CommandLineError, add_command, checked_bootstrap, console, print_json
from .inspect_view import (
    FORMATS,
    GROUP_STATES,
    TABLE_LIMIT,
    left_out_line,
    limited,
    parse_problem_kinds,
    parse_states,
    print_details,
    print_rows,
    shown,
)

__all__ = ["add_cluster_arguments", "cluster_settings", "print_inspection", "register",
           "write_inspection"]


#: groups without members the --json note names one by one (the rest are counted)
NAMED_WITHOUT_MEMBERS = 20


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "inspect",
        description=(
            "Read every consumer group of a running cluster once, without changing anything\n"
            "(no join, heartbeat or commit is ever sent). Prints a summary line (groups, with\n"
            "members, with problems, unreadable, without members), then one row per group:\n"
            "unreadable groups first, then groups with members worst first, groups with\n"
            "committed offsets only last (members, partitions, spread, lag, problems,\n"
            "recommended strategy, migration verdict). A table on a terminal (its first 50\n"
            "rows and a line counting the rest: --limit), plain columns when piped, --format\n"
            "tsv/csv for scripts. --detail shows what\n"
            "kafka-consumer-groups.sh --describe shows (offsets, members, state). --json\n"
            "prints one group snapshot per line (every group type with members), which\n"
            "'assignframe audit' reads as it is.\n"
            "A connection that fails says why (refused, DNS, not Kafka, SASL/TLS mismatch,\n"
            "authentication, timeout); Ctrl-C exits 130."
        ),
        examples=(
            "assignframe inspect --bootstrap-server broker1:9092",
            "assignframe inspect --bootstrap-server b1:9092 --problem any --state stable,empty",
            "assignframe inspect --bootstrap-server b1:9092 --group orders-a,orders-b "
            "--detail --format tsv",
            "assignframe inspect --bootstrap-server b1:9093 --command-config client.properties "
            "--group '^orders-' --json > groups.jsonl",
        ),
        docs="docs/cluster.md",
    )
    add_cluster_arguments(parser)
    parser.add_argument("--state", action="append", metavar="STATES",
                        help="only groups in these states (comma-separated, repeatable): "
                        + ", ".join(GROUP_STATES))
    parser.add_argument("--problem", action="append", default=[], metavar="KINDS",
                        help="only groups with a problem of one of these kinds (comma-"
                        "separated, repeatable; the same for every group type): "
                        + ", ".join(PROBLEM_KINDS) + "; 'any': any problem")
    parser.add_argument("--format", choices=FORMATS, metavar="FORMAT",
                        help="table (default on a terminal), plain (default when piped: "
                        "aligned columns), tsv or csv (a header, one row per group: problems, "
                        "verdicts, lag totals)")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="at most N rows, worst first, then one line saying how many more "
                        f"there are (0: every row; default: {TABLE_LIMIT} in a table, every "
                        "row in the other formats)")
    parser.add_argument("--detail", action="store_true",
                        help="each group in detail, as kafka-consumer-groups.sh --describe "
                        "--state, --members --verbose and --offsets show it: coordinator, "
                        "assignor, state; per partition the committed and log-end offsets, lag, "
                        "owner, host and client id (--json: one object per group)")
    parser.add_argument("--json", action="store_true",
                        help="one group snapshot per line (audit input)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write snapshots.jsonl and verdicts.json here")
    parser.add_argument("--html", type=Path, metavar="PATH", help="also write the HTML report")
    parser.set_defaults(handler=_run)


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """The connection and filter options inspect and watch share."""
    parser.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT[,HOST:PORT]")
    parser.add_argument("--command-config", metavar="FILE",
                        help="client.properties: security.protocol, sasl.*, ssl.*")
    parser.add_argument("--group", action="append", metavar="GROUPS",
                        help="only these groups: comma-separated group ids (exact) or regular "
                        "expressions (searched in the id); repeatable")
    parser.add_argument("--type", default=",".join(GROUP_TYPES), metavar="TYPES",
                        help="comma-separated group types (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="give up on the cluster after this many seconds (default: 10)")
    parser.add_argument("--generation-timeout", type=float, default=READ_BUDGET_S,
                        metavar="S",
                        help="seconds for reading classic groups' generations from "
                        "__consumer_offsets (default: %(default)g; 0: not read). A partition "
                        "not read to its end by then leaves its groups' generations unknown "
                        "(null), said in one note that changes no exit status")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log the client's connection steps to stderr (secrets masked)")


def cluster_settings(args: argparse.Namespace) -> tuple[ClientConfig, GroupFilter]:
    """The client config and group filter the arguments ask for (bad ones exit 2)."""
    checked_bootstrap(args.bootstrap_server)
    types = tuple(t.strip().lower() for t in args.type.split(",") if t.strip())
    unknown = [t for t in types if t not in GROUP_TYPES]
    if unknown or not types:
        raise CommandLineError(f"unknown group type {', '.join(unknown) or '(none)'}; "
                               f"expected {', '.join(GROUP_TYPES)}", "--type")
    if args.timeout <= 0:
        raise CommandLineError("expected seconds > 0", "--timeout")
    if args.generation_timeout < 0:
        raise CommandLineError("expected seconds >= 0", "--generation-timeout")
    wanted = GroupFilter(",".join(args.group) if args.group else None, types)
    for item in wanted.items:
        import re

        try:
            re.compile(item)
        except re.error as exc:
            raise CommandLineError(f"not a regular expression: {exc}", "--group") from None
    config = read_client_config(args.command_config)
    _logging(config, args.verbose)
    for key in config.ignored:
        print(f"assignframe: warning: {key} is not used by inspect/watch "
              f"({args.command_config})", file=sys.stderr)
    return config, wanted


def _logging(config: ClientConfig, verbose: bool) -> None:
    """The client's own steps (kafka-python, the cluster reader) on stderr with secrets masked:
    everything with ``-v``, else kafka-python's errors and the reader's warnings. The rest of
    assignframe's warnings (a member's unreadable user data, say) are left as they are."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactingFilter(config))
    quiet = {"kafka": logging.CRITICAL, "assignframe.cluster": logging.WARNING}
    for name, level in quiet.items():
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG if verbose else level)
        logger.propagate = False


def _run(args: argparse.Namespace) -> int:
    states = parse_states(args.state)
    kinds = parse_problem_kinds(args.problem)
    form = args.format or ("table" if console().is_terminal else "plain")
    limit = _limit(args.limit, form, args.json or args.detail)
    config, wanted = cluster_settings(args)
    writable_outputs(args.out, args.html)
    try:
        inspection = inspect_cluster(args.bootstrap_server, config, wanted, args.timeout,
                                     generation_budget_s=args.generation_timeout)
    except BrokerError as exc:
        raise InputError(config.redact(str(exc)), "--bootstrap-server") from None
    if inspection.missing and not inspection.verdicts:
        raise InputError(f"no such group {', '.join(map(repr, inspection.missing))}: the "
                         "cluster does not list it and its coordinator does not know it "
                         "(ids are exact; a regular expression such as 'orders.*' matches "
                         "several)", "--group")
    rows = shown(inspection, states, kinds)
    rows, left_out = limited(rows, limit)
    if args.detail:
        _print_details(inspection, rows, args.json, form)
    elif args.json:
        for verdict in rows:
            if verdict.snapshot is not None:
                print_json(snapshot_to_dict(verdict.snapshot))
            elif verdict.share_streams is not None and verdict.share_streams.members:
                print_json(verdict.share_streams.as_dict())
        _say_left_out(rows)
    else:
        print_rows(inspection, rows, form, left_out)
    if left_out and (args.json or args.detail):
        print(f"assignframe: note: {left_out_line(left_out)}", file=sys.stderr)
    if args.out or args.html:
        write_inspection(args.out, args.html, inspection)
    return _said(inspection)


def _limit(asked: int | None, form: str, structured: bool) -> int | None:
    """How many rows to show: ``--limit`` (0: all), else :data:`TABLE_LIMIT` in a table (its
    rendering costs about 2 ms of CPU a row), else all."""
    if asked is not None and asked < 0:
        raise CommandLineError("expected a number of rows >= 0 (0: every row)", "--limit")
    if asked is not None:
        return asked or None
    return TABLE_LIMIT if form == "table" and not structured else None


def _print_details(inspection: Inspection, rows: list[GroupVerdict], as_json: bool,
                   form: str) -> None:
    from ..cluster.detail import group_detail

    reads = {g.group_id: g for g in inspection.read.groups}
    details = [group_detail(inspection.read, reads[v.group_id], v.snapshot, v.share_streams,
                            v.migration_prediction) for v in rows]
    if as_json:
        for detail in details:
            print_json(detail.as_dict())
    else:
        print_details(details, form)


def writable_outputs(out: Path | None, html: Path | None) -> None:
    """``--out`` made and ``--html``'s folder present before the cluster is read: an output
    that cannot be written is said at once ("cannot write"), not after the whole pass."""
    try:
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        if html is not None and not html.parent.is_dir():
            raise FileNotFoundError(2, "No such file or directory", str(html.parent))
    except OSError as exc:
        raise InputError.unwritable(exc, str(exc.filename or out or html)) from None


def _said(inspection: Inspection) -> int:
    """Notices and unreadable groups on stderr, one line each; exit 1 when there was any.
    Notes (what was left unknown on purpose: generations beyond their budget) are said as
    notes and change no exit status."""
    for line in inspection.read.notes:
        print(f"assignframe: note: {line}", file=sys.stderr)
    lines = [*inspection.read.notices, *inspection.unreadable,
             *(f"no such group {group_id!r} (--group)" for group_id in inspection.missing)]
    for line in lines:
        print(f"assignframe: skipped: {line}", file=sys.stderr)
    return 1 if lines else 0


def _say_left_out(rows: list[GroupVerdict]) -> None:
    """Groups read but without members have no snapshot (the audit reads groups with members):
    one note on stderr names them, so no group leaves ``--json`` silently."""
    empty = [v for v in rows if v.snapshot is None and not v.unreadable
             and (v.share_streams is None or not v.share_streams.members)]
    if empty:
        named = "; ".join(f"{v.group_id} ({v.state or 'state unknown'}"
                          + "".join(f", {p}" for p in v.problems) + ")"
                          for v in empty[:NAMED_WITHOUT_MEMBERS])
        if len(empty) > NAMED_WITHOUT_MEMBERS:  # 10,000 names made a line of 780 kB
            named += (f"; and {len(empty) - NAMED_WITHOUT_MEMBERS} more (--format tsv lists "
                      "every group)")
        print(f"assignframe: note: {len(empty)} group(s) have no members and no snapshot "
              f"(the audit reads groups with members): {named}", file=sys.stderr)


def print_inspection(inspection: Inspection) -> None:
    """The fleet table of every group (the demo's view)."""
    print_rows(inspection, inspection.verdicts, "table" if console().is_terminal else "plain")


def write_inspection(out: Path | None, html: Path | None, inspection: Inspection) -> None:
    """``--out``: the snapshots, the verdicts and the audit's outputs over the snapshots;
    ``--html``: a page of every group read (of every type), then the audit's sections over the
    snapshots (a page is written when there is none)."""
    import tempfile

    from ..audit import AuditOptions, run_audit

    with tempfile.TemporaryDirectory(prefix="assignframe-inspect-") as scratch:
        folder = out or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        snapshots = folder / "snapshots.jsonl"
        with open(snapshots, "w", encoding="utf-8") as f:
            for snapshot in inspection.all_snapshots:
                f.write(json.dumps(snapshot_to_dict(snapshot)) + "\n")
        document = {"bootstrap": inspection.read.bootstrap,
                    "observed_at": inspection.read.observed_at,
                    "notices": inspection.read.notices, "notes": inspection.read.notes,
                    "requests": inspection.requests,
                    "groups": [v.as_dict() for v in inspection.verdicts]}
        (folder / "verdicts.json").write_text(json.dumps(document, indent=1) + "\n",
                                              encoding="utf-8")
        summary = None  # the audit reads the groups with a snapshot; the page shows them all
        if inspection.all_snapshots:
            summary = run_audit(snapshots, folder / "audit",
                                AuditOptions(processes=1, progress=False))
        if html:
            from ..report import write_report

            write_report(html, audit_summary=summary, live=document,
                         title=f"assignframe inspect {inspection.read.bootstrap}")
