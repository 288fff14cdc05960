"""The codec at Apache Kafka 4.3.1's versions of the share and Streams group APIs, against bytes
made by 4.3.1's own generated message classes (kafka-clients 4.3.1 in shared/java/broker-4.3,
through the Kafka43Oracle harness's ``message`` op).

4.3.1 supports ShareGroupHeartbeat/ShareGroupDescribe v1 and StreamsGroupHeartbeat/
StreamsGroupDescribe v0 only; the codec follows trunk (d79bd50), which adds Streams v1 (KIP-1331,
KIP-1357). At 4.3.1's versions the wire is the same: every golden body (made by trunk) is read by
4.3.1 and written back byte for byte, and the codec decodes 4.3.1's bytes to 4.3.1's own field
values and encodes them to the same bytes. One name differs: 4.3.1's v0
``StreamsGroupHeartbeatResponse.AcceptableRecoveryLag`` (int32) is trunk's
``AcceptableRecoveryLagLegacy``, the codec's ``acceptable_recovery_lag_legacy``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import assignframe_codec as codec
import pytest
from assignframe_codec.registry import message_codec
from assignframe_codec.types import UNKNOWN_TAGS

from assignframe.testing.paths import shared_path

#: kind -> the versions Kafka 4.3.1 supports (its common/message/*.json at 26b251a451)
KAFKA_43_VERSIONS = {
    "ShareGroupHeartbeatRequest": (1, 1),
    "ShareGroupHeartbeatResponse": (1, 1),
    "ShareGroupDescribeRequest": (1, 1),
    "ShareGroupDescribeResponse": (1, 1),
    "StreamsGroupHeartbeatRequest": (0, 0),
    "StreamsGroupHeartbeatResponse": (0, 0),
    "StreamsGroupDescribeRequest": (0, 0),
    "StreamsGroupDescribeResponse": (0, 0),
}
#: 4.3.1's JSON field name -> the codec's, where they differ (kind, version)
RENAMED = {
    ("StreamsGroupHeartbeatResponse", 0): {
        "acceptable_recovery_lag": "acceptable_recovery_lag_legacy"
    }
}


def _golden_rows() -> list[dict[str, Any]]:
    path = shared_path(Path(__file__)) / "golden" / "kip848" / "codec.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        row
        for row in rows
        if row.get("kind") == "api"
        and row["type"] in KAFKA_43_VERSIONS
        and KAFKA_43_VERSIONS[row["type"]][0] <= row["version"] <= KAFKA_43_VERSIONS[row["type"]][1]
    ]


ROWS = _golden_rows()


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _java_view(value: Any, renamed: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {renamed.get(_snake(k), _snake(k)): _java_view(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_java_view(v, renamed) for v in value]
    return value


def _codec_view(value: Any) -> Any:
    if isinstance(value, dict):
        # Java's JSON view leaves unknown tagged fields out (the bytes carry them: checked above)
        return {k: _codec_view(v) for k, v in value.items() if k != UNKNOWN_TAGS}
    if isinstance(value, (list, tuple)):
        return [_codec_view(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)  # a Uuid: Java's JSON shows Uuid.toString()


def test_the_golden_set_has_bodies_of_every_kind_at_4_3s_versions():
    assert {row["type"] for row in ROWS} == set(KAFKA_43_VERSIONS)
    assert len(ROWS) >= 100


def test_codec_versions_cover_kafka_4_3s(assignframe_java43_oracle):
    for kind, (low, high) in KAFKA_43_VERSIONS.items():
        row = next(r for r in ROWS if r["type"] == kind)
        java = assignframe_java43_oracle.request(
            {"op": "message", "type": kind, "version": row["version"], "hex": row["hex"]}
        )["result"]
        assert (java["lowest"], java["highest"]) == (low, high), kind
        declared = message_codec(kind)
        assert declared.lowest <= low and high <= declared.highest, kind


@pytest.mark.parametrize(
    "row", ROWS, ids=lambda row: f"{row['type']}-v{row['version']}-{row['case']}"
)
def test_kafka_4_3_bytes_decode_and_encode(assignframe_java43_oracle, row):
    kind, version = row["type"], row["version"]
    java = assignframe_java43_oracle.request(
        {"op": "message", "type": kind, "version": version, "hex": row["hex"]}
    )["result"]
    # 4.3.1 writes what trunk wrote: at 4.3.1's versions the wire format is the same
    assert java["hex"] == row["hex"]
    data = bytes.fromhex(java["hex"])
    decoded = codec.decode(kind, data, version)
    assert codec.encode(kind, decoded, version) == data
    ours = _codec_view(decoded.to_dict(version))
    assert ours == _java_view(java["json"], RENAMED.get((kind, version), {}))
