"""``assignframe decode``: consumer-group traffic from captures, payloads, __consumer_offsets.

Thin: parses arguments and calls :mod:`assignframe.decode.commands`. Exit status: 0 everything
decoded, 1 something skipped (reported on stderr), 2 unusable input. See docs/decode.md.
"""

from __future__ import annotations

import argparse

from assignframe_codec import OFFSETS_TOPIC
from rich.console import Console

from ..cluster.config import read_client_config
from ..decode.capture import CaptureOptions
from ..decode.commands import LiveRecords, capture_command, offsets_command, payload_command
from ..decode.payload import BODY_KINDS, DETECTION_ORDER
from ..decode.traffic.frames import DEFAULT_MAX_FRAME_BYTES
from ..errors import BrokerError
from ..plugins.manager import get_plugin_manager
from ._common import (
    CommandLineError,
    add_command,
    checked_bootstrap,
    checked_strategies,
    console,
    positive_int,
)

__all__ = ["register"]

KINDS = (*DETECTION_ORDER, *BODY_KINDS)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "decode",
        description=(
            "Read consumer-group traffic: rebalance timelines from packet captures, single\n"
            "payloads (hex or base64), and __consumer_offsets records (or the live topic)."
        ),
        examples=(
            "assignframe decode capture traffic.pcap",
            "assignframe decode capture traffic.pcap --json > snapshots.jsonl",
            "assignframe decode payload 000300000001000174ffffffff00000000ffffffffffff",
            "assignframe decode offsets --bootstrap-server 127.0.0.1:9092",
        ),
        docs="docs/decode.md",
    )
    actions = parser.add_subparsers(dest="decode_action", metavar="WHAT", required=True)
    _capture_parser(actions)
    _payload_parser(actions)
    _offsets_parser(actions)


def _consoles(width: int | None = None) -> tuple[Console, Console]:
    return console(width), Console(stderr=True, highlight=False)


def _capture_parser(actions: argparse._SubParsersAction) -> None:
    parser = add_command(
        actions,
        "capture",
        summary="rebalance timelines from pcap/pcapng captures",
        description=(
            "One timeline per consumer group in the captures (classic, consumer protocol,\n"
            "share and Streams groups): each generation's members, subscriptions, assignment\n"
            "(a Streams member's tasks by kind), what changed and its metrics; --json writes\n"
            "one snapshot per generation (the audit's input) and one line per Streams group\n"
            "epoch (not a snapshot: the audit does not read it)."
        ),
        examples=(
            "assignframe decode capture traffic.pcap --replay sticky",
            "assignframe decode capture a.pcap b.pcapng --port 9092 --port 9093 --json",
        ),
        docs="docs/decode.md",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="pcap or pcapng capture")
    parser.add_argument(
        "--port",
        type=int,
        action="append",
        metavar="PORT",
        help="broker port (repeatable; default 9092)",
    )
    parser.add_argument(
        "--no-sniff",
        action="store_true",
        help="only decode connections to --port (no request-header sniffing)",
    )
    parser.add_argument(
        "--max-frame-bytes",
        type=int,
        default=DEFAULT_MAX_FRAME_BYTES,
        help="frames announcing more are corrupt (default %(default)s)",
    )
    parser.add_argument("--replay", metavar="STRATEGY", help="also show what STRATEGY would assign")
    parser.add_argument("--json", action="store_true", help="one JSON object per group generation")
    parser.add_argument(
        "--width",
        type=positive_int,
        metavar="COLUMNS",
        help="text width (default: the terminal's; unwrapped when piped)",
    )
    parser.set_defaults(handler=_run_capture)


def _run_capture(args: argparse.Namespace) -> int:
    options = CaptureOptions(
        frozenset(args.port or [9092]), not args.no_sniff, args.max_frame_bytes
    )
    if args.replay:
        note = (
            "--replay plays a classic generation again with a client strategy; "
            "`assignframe audit` predicts what the broker's assignors would do"
        )
        checked_strategies(get_plugin_manager(), [args.replay], "--replay", note)
    out, err = _consoles(args.width)
    return capture_command(args.files, options, out, err, as_json=args.json, replay=args.replay)


def _payload_parser(actions: argparse._SubParsersAction) -> None:
    parser = add_command(
        actions,
        "payload",
        summary="one payload per argument / line (hex or base64)",
        description=(
            "Decode single payloads: subscriptions, assignments, strategies' user data,\n"
            "__consumer_offsets keys and values, request and response bodies. The kind is\n"
            "detected (only a kind that reads the whole payload plausibly) unless --kind says."
        ),
        examples=(
            "assignframe decode payload 000300000001000174ffffffff00000000ffffffffffff",
            "assignframe decode payload --kind ConsumerProtocolAssignment --file payloads.txt",
        ),
        docs="docs/decode.md",
    )
    parser.add_argument(
        "payloads",
        nargs="*",
        metavar="PAYLOAD",
        help="hex or base64; '-' or none (without --file) reads stdin, one per line",
    )
    parser.add_argument("--file", help="read payloads from FILE, one per line")
    parser.add_argument("--kind", choices=KINDS, help="decode as this kind instead of detecting")
    parser.add_argument(
        "--version", type=int, help="version for message bodies that do not carry it"
    )
    parser.add_argument("--encoding", choices=("auto", "hex", "base64"), default="auto")
    parser.add_argument("--json", action="store_true", help="one JSON object per payload")
    parser.set_defaults(handler=_run_payload)


def _run_payload(args: argparse.Namespace) -> int:
    out, err = _consoles()
    return payload_command(
        args.payloads,
        out,
        err,
        file=args.file,
        kind=args.kind,
        version=args.version,
        encoding=args.encoding,
        as_json=args.json,
    )


def _offsets_parser(actions: argparse._SubParsersAction) -> None:
    parser = add_command(
        actions,
        "offsets",
        summary="__consumer_offsets records (group metadata, commits)",
        description=(
            "Decode __consumer_offsets records (group metadata, offset commits, KIP-848\n"
            "records): one key and value, a file of them, or the live topic from a broker.\n"
            "Every group they describe is rebuilt; --json prints one group snapshot per line\n"
            "(what 'assignframe audit' reads), --records one JSON object per record."
        ),
        examples=(
            "assignframe decode offsets --key 0002000762696c6c696e67",
            "assignframe decode offsets --bootstrap-server 127.0.0.1:9092 --json > groups.jsonl",
            "assignframe decode offsets --file records.txt --records",
        ),
        docs="docs/decode.md",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--key", help="record key (hex/base64); with --value, or alone for a tombstone"
    )
    source.add_argument("--file", help='lines of \'KEY [VALUE]\' or JSON {"key":..,"value":..}')
    source.add_argument(
        "--bootstrap-server", metavar="HOST:PORT", help="read the topic live from a broker"
    )
    parser.add_argument("--value", help="record value (hex/base64); omit or 'null' for a tombstone")
    parser.add_argument(
        "--topic", default=OFFSETS_TOPIC, help="live: read this topic (e.g. a mirrored copy)"
    )
    parser.add_argument(
        "--command-config", metavar="FILE",
        help="live: client.properties (security.protocol, sasl.*, ssl.*), as for inspect",
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="S",
        help="live: give up when the broker does not answer, or no record arrives, for this "
             "many seconds (default: 30)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="one group snapshot per line (audit input)")
    output.add_argument("--records", action="store_true",
                        help="one JSON object per record, then each rebuilt consumer-protocol, "
                             "share and Streams group state")
    parser.set_defaults(handler=_run_offsets)


def _run_offsets(args: argparse.Namespace) -> int:
    out, err = _consoles()
    live = None
    if args.bootstrap_server is not None:
        live = _live_offsets(args)
    return offsets_command(
        out,
        err,
        key=args.key,
        value=args.value,
        file=args.file,
        live=live,
        live_source=args.bootstrap_server or "",
        as_json=args.json,
        records_json=args.records,
    )


def _live_offsets(args: argparse.Namespace) -> LiveRecords:
    """The live reader: the kafka-python adapter, bound here (decode imports no client)."""
    if args.timeout <= 0:
        raise CommandLineError("expected seconds > 0", "--timeout")
    checked_bootstrap(args.bootstrap_server)
    config = read_client_config(args.command_config)
    try:
        from ..kafka_python.offsets import consume_offsets
    except ImportError:
        raise CommandLineError("reading a live topic needs kafka-python: "
                               "pip install 'assignframe[cluster]'", "--bootstrap-server") from None

    def live(report, progress, on_topics):
        import time

        from ..cluster.probe import kafka_listener

        protocol = str(config.settings.get("security_protocol", "PLAINTEXT"))
        listener, problem = kafka_listener(args.bootstrap_server, protocol,
                                           time.monotonic() + args.timeout)
        if listener is None:
            raise BrokerError(config.redact(problem or "no broker answered"))
        try:  # through the broker that answered: the metadata names the others
            yield from consume_offsets(listener, report, progress, args.timeout,
                                       args.topic, config.kafka_python_settings(), on_topics)
        except BrokerError as exc:
            raise BrokerError(config.redact(str(exc))) from None

    return live
