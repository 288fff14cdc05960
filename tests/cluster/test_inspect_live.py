"""inspect on Apache Kafka 4.1 with real members: classic kafka-python groups (range, and
cooperative-sticky through assignframe's adapter) and a consumer-protocol confluent-kafka
group; every byte sent is captured at the transport to prove the reader never writes."""

from __future__ import annotations

import json
import time

import assignframe_codec as codec
import pytest
from kafka.protocol.parser import KafkaProtocol

from assignframe.cli import main
from assignframe.cluster.api_support import WRITE_APIS

from .conftest import ready, start_member

pytestmark = pytest.mark.e2e


def _topic(bootstrap: str, name: str, partitions: int, records: int = 30) -> None:
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(records):
        producer.send(name, b"r%d" % i, partition=i % partitions)
    producer.flush()
    producer.close()


@pytest.fixture(scope="module")
def live_groups(kafka_node):
    """Three live groups: range (2 kafka-python), coop (2 kafka-python through the adapter,
    cooperative-sticky), kip848 (2 confluent-kafka, group.protocol=consumer)."""
    kafka = kafka_node.bootstrap
    _topic(kafka, "orders", 6)
    _topic(kafka, "payments", 4)
    started = [start_member(kafka, group, topic, client, *extra, log=kafka_node.log_path)
               for group, topic, client, extra in (
                   ("range-g", "orders", "kafka-python", ["range"]),
                   ("range-g", "orders", "kafka-python", ["range"]),
                   ("coop-g", "payments", "kafka-python", ["cooperative-sticky"]),
                   ("coop-g", "payments", "kafka-python", ["cooperative-sticky"]),
                   ("kip848-g", "orders", "confluent", []),
                   ("kip848-g", "orders", "confluent", []))]
    try:
        for member in started:
            ready(member)
        time.sleep(8)  # the second member of each classic group joins a later generation
        yield kafka
    finally:
        for member in started:
            member.stop()


@pytest.fixture
def wire(monkeypatch):
    """Every byte kafka-python writes to any broker socket, in order."""
    sent: list[bytes] = []
    original = KafkaProtocol.send_bytes

    def capture(self):
        data = original(self)
        sent.append(bytes(data))
        return data

    monkeypatch.setattr(KafkaProtocol, "send_bytes", capture)
    return sent


def _apis(chunks: list[bytes]) -> list[str]:
    """The api names of the request frames in what was written (frames may span writes)."""
    data, names, offset = b"".join(chunks), [], 0
    while offset < len(data):
        size, api_key, _, _, _ = codec.peek_request_head(data, offset)
        names.append(codec.api_name(api_key))
        offset += 4 + size
    return names


def _inspect(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["inspect", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_inspect_reads_every_group_type_and_writes_nothing(live_groups, wire, capsys):
    code, out, err = _inspect(capsys, "--bootstrap-server", live_groups, "--json")
    sent = _apis(wire)
    assert code == 0, err
    assert not set(sent) & set(WRITE_APIS), sent
    for api in ("ApiVersions", "Metadata", "ListGroups", "FindCoordinator", "DescribeGroups",
                "ConsumerGroupDescribe", "OffsetFetch", "ListOffsets"):
        assert api in sent, (api, sent)
    snapshots = {s["group_id"]: s for s in map(json.loads, out.splitlines())}
    assert set(snapshots) == {"range-g", "coop-g", "kip848-g"}
    assert snapshots["range-g"]["protocol"] == "range"
    assert snapshots["coop-g"]["protocol"] == "cooperative-sticky"
    kip848 = snapshots["kip848-g"]
    assert kip848["group_type"] == "consumer" and kip848["assignor"] == "uniform"
    for group_id, snapshot in snapshots.items():
        owned = sorted(tuple(p) for m in snapshot["members"] for p in m["assignment"]["partitions"])
        partitions = snapshot["topic_partitions"]
        expected = sorted((t, p) for t, n in partitions.items() for p in range(n))
        assert owned == expected, group_id  # each partition owned exactly once
        assert len(snapshot["members"]) == 2, group_id


def test_inspect_json_is_audit_input_unchanged(live_groups, capsys, tmp_path):
    code, out, err = _inspect(capsys, "--bootstrap-server", live_groups, "--json")
    assert code == 0, err
    path = tmp_path / "groups.jsonl"
    path.write_text(out)
    assert main(["audit", str(path), "--out", str(tmp_path / "audit"), "--json",
                 "--processes", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()  # one line per group, then the summary
    summary = json.loads(lines[-1])["summary"]
    assert summary["groups"] == 3 and summary["malformed"] == 0
    assert {json.loads(line)["group_id"] for line in lines[:-1]} == {"range-g", "coop-g",
                                                                      "kip848-g"}


def test_inspect_table_ranks_and_judges(live_groups, capsys, tmp_path):
    # this fixture's groups only: other tests on the same broker leave groups behind
    code, out, err = _inspect(capsys, "--bootstrap-server", live_groups,
                              "--group=^(range|coop|kip848)-g$", "--out", str(tmp_path / "out"))
    assert code == 0, err
    for group_id in ("range-g", "coop-g", "kip848-g"):
        assert group_id in out
    verdicts = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    by_id = {g["group_id"]: g for g in verdicts["groups"]}
    # the audit's verdict: kafka-python members cannot speak the consumer protocol
    assert by_id["range-g"]["migration"].startswith("refused:")
    assert "kafka-python" in by_id["range-g"]["migration"]
    assert by_id["kip848-g"]["migration"] is None
    assert all(g["recommendation"] for g in by_id.values()), {
        g: (v["recommendation"], v["protocol"], v["problems"]) for g, v in by_id.items()}
    assert (tmp_path / "out" / "audit" / "summary.json").exists()


def test_requests_stay_batched(live_groups, capsys, tmp_path):
    code, _, err = _inspect(capsys, "--bootstrap-server", live_groups, "--out", str(tmp_path))
    requests = json.loads((tmp_path / "verdicts.json").read_text())["requests"]
    assert code == 0, err
    assert requests["DescribeGroups"] == 1 and requests["FindCoordinator"] == 1
    assert requests["OffsetFetch"] == 1 and requests["ConsumerGroupDescribe"] == 1


def test_type_filter(live_groups, capsys):
    code, out, err = _inspect(capsys, "--bootstrap-server", live_groups, "--json",
                              "--type", "consumer")
    assert code == 0, err
    assert [json.loads(line)["group_id"] for line in out.splitlines()] == ["kip848-g"]


def test_versions_are_the_highest_both_sides_know(live_groups):
    """Each API goes out at min(the broker's highest, the codec's highest): on Kafka 4.1 the
    broker offers DescribeGroups v6, which the codec (Kafka 4.0's schemas) does not build, so
    v5 is used; Metadata v13 is shared. The broker's ranges are asked here directly."""
    from assignframe_codec.registry import message_codec

    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.reader import read_cluster
    from assignframe.cluster.transport import Transport

    transport = Transport(live_groups, ClientConfig(), 20)
    try:
        asked = transport.send(1, "ApiVersionsRequest", codec.api_versions_request(
            3, client_software_name="t", client_software_version="1"), 3)
        broker = {k.api_key: k.max_version for k in asked.api_keys}
        transport.sent.clear()
        read_cluster(transport)
    finally:
        transport.close()
    used = {api: version for (api, version, _) in transport.sent}
    assert len(used) == len({api for (api, _, _) in transport.sent})  # one version per API
    for api, version in used.items():
        if api == "ApiVersions":
            continue  # sent before any range is known: v3, every broker since 2.4
        ours = min(message_codec(f"{api}Request").highest,
                   message_codec(f"{api}Response").highest)
        assert version == min(broker[codec.api_key(api)], ours), (api, version)
    # measured on this broker (4.1.0) with this codec: DescribeGroups is where they differ
    assert broker[codec.api_key("DescribeGroups")] == 6
    assert used == {"ApiVersions": 3, "Metadata": 13, "ListGroups": 5, "FindCoordinator": 6,
                    "DescribeGroups": 5, "ConsumerGroupDescribe": 1, "OffsetFetch": 9,
                    "ListOffsets": 10, "DescribeConfigs": 4}
