"""Everything tshark decodes of JoinGroup/SyncGroup in the shared captures, we decode identically.

tshark (Wireshark 4.0) dissects JoinGroup v0-7 and SyncGroup v0-5 envelopes and shows member
metadata and assignments as bytes; it marks newer versions malformed, which are left out here (our
own tests cover them against what the members reported). Runs when tshark is installed; with
``ASSIGNFRAME_REQUIRE_TSHARK=1`` (the tox env meant to run it) a missing tshark fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import pytest

from assignframe.decode import Problems, iter_messages

from ..conftest import ALL_CAPTURES, CAPTURES

FIELDS = (
    "frame.number",
    "tcp.srcport",
    "tcp.dstport",
    "kafka.api_key",
    "kafka.api_version",
    "kafka.correlation_id",
    "kafka.consumer_group",
    "kafka.generation_id",
    "kafka.member_id",
    "kafka.protocol_name",
    "kafka.group_leader_id",
    "kafka.protocol_metadata",
    "kafka.member_metadata",
    "kafka.member_assignment",
    "_ws.expert",
)


def _tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        if os.environ.get("ASSIGNFRAME_REQUIRE_TSHARK") == "1":
            pytest.fail("tshark is required here (ASSIGNFRAME_REQUIRE_TSHARK=1) but not installed")
        pytest.skip("tshark not installed")
    return path


def exchange_headers(capture: Any, port: int, api_keys: tuple[int, ...]) -> tuple[set, set]:
    """The Kafka headers of every exchange of ``api_keys`` on the broker ``port`` of ``capture``,
    as (client port, api key, version, correlation id): tshark's framing and ours. For APIs
    whose bodies Wireshark 4.0 does not know, the headers are what compares."""
    wanted = " || ".join(f"kafka.api_key == {key}" for key in api_keys)
    command = [_tshark(), "-r", str(capture), "-d", f"tcp.port=={port},kafka", "-Y", wanted,
               "-T", "fields", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "kafka.api_key",
               "-e", "kafka.api_version", "-e", "kafka.correlation_id"]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    theirs = set()
    for line in output.stdout.splitlines():
        values = line.split("\t")
        if len(values) == 5 and all(values):
            source, destination, api, version, correlation = map(int, values)
            theirs.add((destination if source == port else source, api, version, correlation))
    ours = set()
    for message in iter_messages(capture, Problems()):
        frame = message.frame
        if frame.api_key in api_keys:
            ends = [int(end.rsplit(":", 1)[1]) for end in frame.stream.split("->")]
            client = ends[0] if frame.is_request else ends[1]
            ours.add((client, frame.api_key, frame.api_version, frame.correlation_id))
    return theirs, ours


def tshark_rows(name: str) -> list[dict[str, Any]]:
    """JoinGroup/SyncGroup frames tshark dissected without complaint, one dict of lists each."""
    command = [
        _tshark(),
        "-r",
        str(CAPTURES / name),
        "-d",
        "tcp.port==9092,kafka",
        "-Y",
        "kafka.api_key == 11 || kafka.api_key == 14",
        "-T",
        "fields",
        "-E",
        "separator=\t",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=|",
    ]
    for name_ in FIELDS:
        command += ["-e", name_]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout
    rows = []
    for line in output.splitlines():
        values = dict(
            zip(FIELDS, (v.split("|") if v else [] for v in line.split("\t")), strict=False)
        )
        if not any(
            word in " ".join(values["_ws.expert"])
            for word in ("Malformed", "Unsupported", "Undecoded")
        ):
            rows.append(values)
    return rows


def _ours(name: str) -> dict[tuple[int, int, int, bool], Any]:
    messages = {}
    for message in iter_messages(CAPTURES / name, Problems()):
        frame = message.frame
        source, destination = frame.stream.split("->")
        key = (
            int(source.rsplit(":", 1)[1]),
            int(destination.rsplit(":", 1)[1]),
            frame.correlation_id,
            frame.is_request,
        )
        messages[key] = message
    return messages


def _our_fields(message: Any) -> dict[str, list[str]]:
    """Our decoding, in the shape and order of tshark's fields."""
    fields, is_request, api = message.fields, message.frame.is_request, message.frame.api_key
    if api == 11 and is_request:
        return {
            "kafka.consumer_group": [fields["group_id"]],
            "kafka.member_id": [fields["member_id"]] if fields["member_id"] else [],
            "kafka.protocol_name": [p["name"] for p in fields["protocols"]],
            "kafka.protocol_metadata": [p["metadata"].hex() for p in fields["protocols"]],
        }
    if api == 11:
        listed = fields["members"]
        return {
            "kafka.generation_id": [str(fields["generation_id"])],
            "kafka.protocol_name": [fields["protocol_name"]] if fields["protocol_name"] else [],
            "kafka.group_leader_id": [fields["leader"]] if fields["leader"] else [],
            "kafka.member_id": [fields["member_id"]] + [m["member_id"] for m in listed],
            "kafka.member_metadata": [m["metadata"].hex() for m in listed],
        }
    if is_request:
        return {
            "kafka.consumer_group": [fields["group_id"]],
            "kafka.generation_id": [str(fields["generation_id"])],
            "kafka.member_id": [fields["member_id"]]
            + [a["member_id"] for a in fields["assignments"]],
            "kafka.protocol_name": [fields["protocol_name"]] if fields.get("protocol_name") else [],
            "kafka.member_assignment": [a["assignment"].hex() for a in fields["assignments"]],
        }
    return {"kafka.member_assignment": [fields["assignment"].hex()] if fields["assignment"] else []}


def _theirs(row: dict[str, list[str]], wanted: dict[str, list[str]]) -> dict[str, list[str]]:
    return {key: [v for v in row.get(key, []) if v != ""] for key in wanted}


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_tshark_and_we_agree_on_join_and_sync_group(name):
    ours = _ours(name)
    rows = tshark_rows(name)
    compared = 0
    for row in rows:
        sport, dport = int(row["tcp.srcport"][0]), int(row["tcp.dstport"][0])
        key = (sport, dport, int(row["kafka.correlation_id"][0]), dport == 9092)
        assert key in ours, f"frame {row['frame.number']}: tshark decoded it, we did not"
        wanted = _our_fields(ours[key])
        assert _theirs(row, wanted) == wanted, f"frame {row['frame.number']}"
        compared += 1
    if name.startswith("kafka_group"):
        # kafka-python's JoinGroup v7 / SyncGroup v5 are all within what tshark 4.0 dissects
        assert compared == sum(1 for (_, _, _, _), m in ours.items() if m.frame.api_key in (11, 14))
    assert compared == len(rows)
