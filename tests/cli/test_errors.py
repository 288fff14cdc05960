"""Every command's bad inputs: one error line on stderr, the exit code docs/cli.md promises.

The table is issue 17's list (plus a directory, an empty file, a pcap without Kafka traffic, an
unknown ``--kind`` and an unknown strategy in every command that takes one). Each row names the
command, the input, the exit code and the exact line (or, where another module words the cause,
the part of it this layer owns).
"""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys

import assignframe_codec as codec
import pytest
from audit_snapshots import snapshot_row

import assignframe.plugins.manager
from assignframe import GroupAssignment, Strategy, hookimpl
from assignframe.audit import write_fleet
from assignframe.cli import main
from assignframe.testing import shared_path

SHARED = shared_path(__file__)
CAPTURE = SHARED / "captures" / "kafka_group_range.pcap"
GOLDEN = SHARED / "golden" / "assign.jsonl"
INSTALLED = "cooperative-balance, modulo, restless, tunable"
GROUP = "partitions_per_topic: {t: 2}\nmembers: {a: {topics: [t]}}\n"
#: A valid pcap header (little-endian, v2.4, Ethernet) and no packets: a capture of nothing Kafka.
EMPTY_PCAP = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")


class Tunable(Strategy):
    """Declares its options, so the CLI can reject the ones it does not take."""

    name = "tunable"
    option_defaults = {"refine": True, "budget": 10}

    @classmethod
    def check_options(cls, options):
        super().check_options(options)
        if options.get("budget", 10) < 0:
            raise ValueError("budget cannot be negative")

    def assign(self, group):
        return GroupAssignment.from_partitions({m: [] for m in group.members})


class TunablePlugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(Tunable)


@pytest.fixture(autouse=True)
def cli_pm(spm, monkeypatch):
    spm.register(TunablePlugin(), name="tunable")
    monkeypatch.setattr(assignframe.plugins.manager, "_shared_manager", spm)
    return spm


@pytest.fixture
def workdir(tmp_path, monkeypatch, cli_pm):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "junk.txt").write_text("hello, not what you think\n")
    (tmp_path / "nokafka.pcap").write_bytes(EMPTY_PCAP)
    (tmp_path / "group.yaml").write_text(GROUP)
    (tmp_path / "consumer.yaml").write_text("group_type: consumer\n" + GROUP)
    (tmp_path / "members.yaml").write_text("members: [1]\n")
    (tmp_path / "bad.jsonl").write_text('{"id": "x", "rounds": []}\n')
    # nested deeper than the interpreter's recursion limit: malformed, never a RecursionError
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000 + "\n")
    # sizes no replay can hold: refused before anything is allocated for them
    (tmp_path / "huge.jsonl").write_text('{"id": "x", "partitions_per_topic": {"t": 2147483649}, '
                                         '"rounds": []}\n')
    (tmp_path / "huge.yaml").write_text(
        "partitions_per_topic: {t: 3000000, u: 3000000}\nmembers: {a: {topics: [t]}}\n")
    (tmp_path / "grows.yaml").write_text(
        "topics: {t: 4}\nsteps:\n  - events:\n      - {join: a, topics: [t]}\n"
        "      - {add_partitions: t, partitions: 6000000}\n")
    (tmp_path / "huge-snapshots.jsonl").write_text(json.dumps(
        snapshot_row(topic_partitions={"t": 1_000_000_000})) + "\n")
    write_fleet(tmp_path / "fleet.jsonl", 4, seed=3, max_members=3, max_partitions=6, pm=cli_pm)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _has_pyspark() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspark") is not None


UNKNOWN = f"unknown strategy 'nope'; installed strategies: {INSTALLED}"

# (arguments, exit code, the whole error line after "assignframe: error: ")
TABLE = [
    # decode capture
    (
        ["decode", "capture", "junk.txt"],
        2,
        "not a pcap/pcapng capture: invalid tcpdump header (junk.txt @ byte 0)",
    ),
    (["decode", "capture", "adir"], 2, "is a directory, expected a pcap/pcapng capture (adir)"),
    (
        ["decode", "capture", "empty"],
        2,
        "not a pcap/pcapng capture: got 0, 24 needed at least (empty @ byte 0)",
    ),
    (
        ["decode", "capture", "nokafka.pcap"],
        2,
        "no consumer-group traffic found (0 Kafka frames of interest; is the broker port --port?)"
        " (nokafka.pcap)",
    ),
    (["decode", "capture", "missing.pcap"], 2, "no such file (missing.pcap)"),
    (["decode", "capture", str(CAPTURE), "--replay", "nope"], 2, f"{UNKNOWN} (--replay)"),
    (
        ["decode", "capture", str(CAPTURE), "--width", "0"],
        2,
        "argument --width: expected a whole number >= 1, got 0 "
        "(assignframe decode capture; see assignframe decode capture --help)",
    ),
    # decode payload / offsets
    (["decode", "payload", "--kind", "Nope", "00"], 2, "argument --kind: invalid choice: 'Nope'"),
    (["decode", "payload", "--file", "adir"], 2, "cannot read: Is a directory (adir)"),
    (
        ["decode", "payload", "--file", "empty"],
        2,
        "empty file: expected payloads, hex or base64, one per line (empty)",
    ),
    (
        ["decode", "payload", "empty"],
        2,
        "neither hex nor base64: 'm' at character 2, and 5 characters are not whole base64 "
        "(groups of 4); 'empty' is a file: give it as --file empty (argument 1)",
    ),
    (["decode", "payload", "abc"], 2, "hex with an odd number of digits (3) (argument 1)"),
    (["decode", "payload", "no!"], 2, "neither hex nor base64: 'n' at character 1, and 3 "
                                      "characters are not whole base64 (groups of 4) (argument 1)"),
    (
        ["decode", "capture", str(CAPTURE), "--replay", "server:uniform"],
        2,
        "server:uniform is the broker's assignor for consumer-protocol groups: --replay plays a "
        "classic generation again with a client strategy; `assignframe audit` predicts what the "
        "broker's assignors would do (--replay)",
    ),
    (["decode", "offsets", "--file", "adir"], 2, "cannot read: Is a directory (adir)"),
    (
        ["decode", "offsets", "--file", "missing"],
        2,
        "cannot read: No such file or directory (missing)",
    ),
    # replay
    (["replay", str(GOLDEN), "--strategy", "nope"], 2, f"{UNKNOWN} (--strategy)"),
    (["replay", "empty"], 2, "no scenario in the input (empty)"),
    (
        ["replay", "bad.jsonl"],
        2,
        "partitions_per_topic: expected {topic: partition count} (bad.jsonl:1)",
    ),
    (["replay", "adir"], 2, "cannot read: Is a directory (adir)"),
    (["replay", "missing.jsonl"], 2, "cannot read: No such file or directory (missing.jsonl)"),
    (["replay", "junk.txt"], 2, "<top level>: expected a JSON object (a scenario) (junk.txt)"),
    (
        ["replay", str(GOLDEN), "-s", "tunable", "-o", "refin=false"],
        2,
        "strategy 'tunable' has no option 'refin'; it accepts budget (default 10), "
        "refine (default true) (--option)",
    ),
    # assign
    (["assign", "group.yaml", "--strategy", "nope"], 2, f"{UNKNOWN} (--strategy)"),
    (
        ["assign", "group.yaml", "-s", "tunable", "-o", "refin=false"],
        2,
        "strategy 'tunable' has no option 'refin'; it accepts budget (default 10), "
        "refine (default true) (--option)",
    ),
    (
        ["assign", "group.yaml", "-s", "tunable", "-o", "refine=maybe"],
        2,
        "option 'refine' of strategy 'tunable' expects bool (default true), got \"maybe\" "
        "(--option)",
    ),
    (
        ["assign", "group.yaml", "-s", "tunable", "-o", "budget=1.5"],
        2,
        "option 'budget' of strategy 'tunable' expects int (default 10), got 1.5 (--option)",
    ),
    (
        ["assign", "group.yaml", "-s", "tunable", "-o", "budget=-1"],
        2,
        "strategy 'tunable': budget cannot be negative (--option)",
    ),
    (
        ["assign", "group.yaml", "-s", "range", "-o", "novalue"],
        2,
        "--option expects KEY=VALUE, got 'novalue'",
    ),
    (["assign", "group.yaml"], 2, "no strategy: give --strategy or a `strategy` key (group.yaml)"),
    (
        ["assign", "group.yaml", "-s", "server:uniform"],
        2,
        "server:uniform is the broker's assignor for consumer-protocol groups: add "
        "`group_type: consumer` to the group file to see what it would assign (--strategy)",
    ),
    (
        ["assign", "consumer.yaml", "-s", "modulo"],
        2,
        "a consumer-protocol group is assigned by the broker, not by 'modulo': give a server "
        "assignor (`assignframe plugins` lists them, e.g. server:uniform) (--strategy)",
    ),
    (
        ["assign", "consumer.yaml", "-s", "server:nope"],
        2,
        "unknown server assignor 'server:nope'; installed server assignors: none (is any "
        "assignframe-server-* plugin installed?) (--strategy)",
    ),
    (["assign", "adir", "-s", "modulo"], 2, "cannot read: Is a directory (adir)"),
    (["assign", "empty", "-s", "modulo"], 2, "<top level>: expected an object (empty)"),
    (
        ["assign", "members.yaml", "-s", "modulo"],
        2,
        "partitions_per_topic: expected {topic: partition count} (members.yaml)",
    ),
    # simulate
    (["simulate", "--shipped", "--strategies", "nope"], 2, f"{UNKNOWN} (--strategies)"),
    (["simulate", "adir"], 2, "cannot read: Is a directory (adir)"),
    (
        ["simulate", "junk.txt"],
        2,
        "(top level): expected a mapping with 'topics' and 'steps' (junk.txt)",
    ),
    (["simulate"], 2, "give SCENARIO files or --shipped"),
    (
        ["simulate", "--shipped", "--strategies", "server:range"],
        2,
        "server:range is the broker's assignor for consumer-protocol groups: a scenario moves "
        "members to it with `upgrade: ID` steps and their `assignor` (docs/simulate.md); "
        "--strategies names client strategies (--strategies)",
    ),
    # audit
    (
        ["audit", "fleet.jsonl", "--out", "o", "--strategies", "nope"],
        2,
        f"{UNKNOWN} (--strategies)",
    ),
    (
        ["audit", "junk.txt", "--out", "o"],
        2,
        "no group snapshot could be read (1 malformed rows; line 1: not JSON: Expecting value: "
        "line 1 column 1 (char 0)) (junk.txt)",
    ),
    (["audit", "empty", "--out", "o"], 2, "no group snapshot in the input (empty)"),
    (["audit", "adir", "--out", "o"], 2, "no input files (adir)"),
    (["audit", "missing", "--out", "o"], 2, "no such file (missing)"),
    (
        ["audit", "nokafka.pcap", "--out", "o"],
        2,
        "a packet capture, not group snapshots: run `assignframe decode capture nokafka.pcap "
        "--json > snapshots.jsonl` and audit that (nokafka.pcap)",
    ),
    (
        ["audit", "fleet.jsonl", "--out", "o", "--strategies", "modulo,server:uniform"],
        2,
        "server:uniform is the broker's assignor for consumer-protocol groups: the audit replays "
        "every consumer-protocol group through the broker's assignors and predicts each classic "
        "group's upgrade with them; --strategies names client strategies (--strategies)",
    ),
    # report
    (
        ["report", "--audit", "adir"],
        2,
        "cannot read: No such file or directory (adir/summary.json)",
    ),
    (["report", "--simulation", "junk.txt"], 2, "not JSON: Expecting value (junk.txt line 1)"),
    (["report", "--simulation", "empty"], 2, "empty file, expected JSON (empty)"),
    (
        ["report", "--snapshots", "junk.txt"],
        2,
        "not a decode snapshot: Expecting value: line 1 column 1 (char 0) (junk.txt line 1)",
    ),
    # inspect, watch (a live cluster: only what is refused before connecting)
    (
        ["inspect"],
        2,
        "the following arguments are required: --bootstrap-server (assignframe inspect; see "
        "assignframe inspect --help)",
    ),
    (["inspect", "--bootstrap-server", "127.0.0.1:1", "--timeout", "0"], 2,
     "expected seconds > 0 (--timeout)"),
    (
        ["inspect", "--bootstrap-server", "127.0.0.1:1", "--group", "("],
        2,
        "not a regular expression: missing ), unterminated subpattern at position 0 (--group)",
    ),
    (["watch", "--bootstrap-server", "127.0.0.1:1", "--interval", "0"], 2,
     "expected seconds > 0 (--interval)"),
    (
        ["inspect", "--bootstrap-server", "127.0.0.1:1", "--command-config", "missing"],
        2,
        "cannot read the client config: No such file or directory (missing)",
    ),
    # too deep a document, in every command that reads JSON or YAML
    (["replay", "deep.json"], 2, "neither JSON nor YAML: nested too deeply to read (deep.json)"),
    (["assign", "--strategy", "range", "deep.json"], 2,
     "neither JSON nor YAML: nested too deeply to read (deep.json)"),
    (["simulate", "deep.json"], 2, "not valid YAML/JSON: nested too deeply to read (deep.json)"),
    (["audit", "deep.json"], 2, "no group snapshot could be read (1 malformed rows; line 1: not "
     "JSON: nested too deeply to read: line 1 column 1 (char 0)) (deep.json)"),
    # a partition count out of int32's range, or a group larger than the tools replay
    (["replay", "huge.jsonl"], 2, "partitions_per_topic['t']: a partition count is 0 .. "
     "2,147,483,648 (partition ids are int32), got 2,147,483,649 (huge.jsonl:1)"),
    (["assign", "huge.yaml", "-s", "modulo"], 2, "partitions_per_topic: its topics total "
     "6,000,000 partitions; the tools replay groups of at most 5,000,000 (huge.yaml)"),
    (["simulate", "grows.yaml"], 2, "steps[0].events[1].add_partitions: its topics total "
     "6,000,000 partitions; the tools replay groups of at most 5,000,000 (grows.yaml)"),
    (["audit", "huge-snapshots.jsonl", "--out", "o"], 2, "no group snapshot could be read (1 "
     "malformed rows; line 1: topic_partitions: its topics total 1,000,000,000 partitions; the "
     "tools replay groups of at most 5,000,000) (huge-snapshots.jsonl)"),
    # demo, usage
    (
        ["demo", "--groups", "0"],
        2,
        "argument --groups: expected a whole number >= 1, got 0 "
        "(assignframe demo; see assignframe demo --help)",
    ),
    (["frobnicate"], 2, "argument COMMAND: invalid choice: 'frobnicate'"),
]


@pytest.mark.parametrize(
    ("args", "code", "line"), TABLE, ids=[" ".join(args) for args, _, _ in TABLE]
)
def test_bad_input_is_one_error_line(workdir, capsys, args, code, line):
    got_code, out, err = run(capsys, *args)
    assert got_code == code
    assert err.count("\n") == 1, err  # once, on one line
    assert err.startswith("assignframe: error: "), err
    message = err[len("assignframe: error: ") : -1]
    assert message == line or (message.startswith(line) and _worded_elsewhere(line)), message
    assert "Traceback" not in err and "usage:" not in err
    assert out == ""


def _worded_elsewhere(line: str) -> bool:
    """Rows whose message argparse finishes (the list of choices)."""
    return line.startswith("argument ")


@pytest.mark.skipif(_has_pyspark(), reason="pyspark is installed here")
def test_an_engine_without_its_package_is_one_line(workdir, capsys):
    code, _, err = run(capsys, "audit", "fleet.jsonl", "--out", "o", "--engine", "spark")
    assert code == 2
    line = "the spark engine needs the package pyspark (pip install pyspark) (--engine)"
    assert err == f"assignframe: error: {line}\n"


def test_skipped_input_exits_1_with_one_line_each(workdir, capsys):
    # (audit's exit 1 on malformed rows: tests/audit/test_local.py, where strategies are installed)
    truncated = workdir / "truncated.pcap"
    truncated.write_bytes(CAPTURE.read_bytes()[:-37])
    code, out, err = run(capsys, "decode", "capture", str(truncated))
    assert code == 1 and "generation" in out
    assert err.startswith("assignframe: skipped: ") and err.count("\n") == 1
    assert f"({truncated.name}" in err or "@ byte" in err


@pytest.mark.parametrize("payload", ["zzzz", "00"], ids=["base64-of-nothing", "one-byte"])
def test_undecodable_payload_is_said_once(capsys, payload):
    """Bytes that decode as no kind: exit 1 (skipped), one line on stderr naming the argument,
    nothing on stdout. (What the line says about the bytes is payload detection's: tests/decode;
    text that is not hex or base64 at all is unusable input: the table above.)"""
    code, out, err = run(capsys, "decode", "payload", payload)
    assert code == 1 and out == ""
    assert err.startswith("assignframe: skipped: ") and err.count("\n") == 1
    assert err.endswith("(argument 1 @ byte 0)\n")


@pytest.mark.parametrize("output", [["--json"], []], ids=["json-lines", "rich-text"])
def test_a_closed_pipe_ends_quietly(output):
    """``decode capture ... | head -1``: exit 0, nothing on stderr (no BrokenPipeError)."""
    command = [sys.executable, "-m", "assignframe", "decode", "capture", *output]
    command += [str(CAPTURE)] * 400  # far more than a pipe buffer holds
    env = {**os.environ, "ASSIGNFRAME_DISABLE_PLUGINS": "1"}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        # a deadline that fires: readline() alone would block for ever on a silent child
        ready, _, _ = select.select([process.stdout], [], [], 120)
        if not ready:
            process.kill()
            pytest.fail(f"decode capture wrote nothing in 120 s; stderr: {process.stderr.read()!r}")
        first = process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read()
        code = process.wait(timeout=120)
    assert first.startswith(b'{"schema"' if output else b"== group ")
    assert err == b"" and code == 0


def test_empty_stdin_is_unusable_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, "decode", "payload")
    assert (code, out) == (2, "")
    assert err == (
        "assignframe: error: nothing on stdin: expected payloads, hex or base64, one per line "
        "(stdin)\n"
    )


def test_one_bad_payload_among_good_ones_is_skipped(capsys):
    good = codec.encode_assignment([("t", 0)], version=0).hex()
    code, out, err = run(capsys, "decode", "payload", "abc", good)
    assert code == 1 and "argument 2: ConsumerProtocolAssignment" in out  # the good one shown
    assert err == (
        "assignframe: skipped: hex with an odd number of digits (3) (argument 1 @ byte 0)\n"
    )


def test_a_broken_older_generation_is_skipped_not_lost(workdir, capsys):
    """Older generations of a group are passed over; a broken line among them is said."""
    lines = (workdir / "fleet.jsonl").read_text().splitlines()
    older = json.loads(lines[0])
    older["generation"] -= 1
    broken = json.dumps(older)[:-20]  # an older generation, cut short
    (workdir / "decoded.jsonl").write_text("\n".join([broken, *lines]) + "\n")
    code, out, err = run(capsys, "audit", "decoded.jsonl", "--out", "o")
    assert code == 1 and "malformed" in out
    assert err.startswith("assignframe: skipped: not JSON: ") and err.count("\n") == 1
    assert err.endswith("(decoded.jsonl line 1)\n")


def test_every_command_with_a_strategy_is_in_the_table():
    """An unknown strategy is rejected by each command that takes one (and listed above)."""
    takes_strategy = {"assign", "replay", "decode", "simulate", "audit"}
    rejected = {args[0] for args, _, line in TABLE if line.startswith(UNKNOWN)}
    assert rejected == takes_strategy


def test_the_table_covers_every_command():
    from assignframe.cli import COMMANDS

    assert {args[0] for args, _, _ in TABLE} >= set(COMMANDS) - {"plugins"}
