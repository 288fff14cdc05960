"""Which client each member runs, from what it put on the wire, and recommendations it can use."""

from __future__ import annotations

import json

import assignframe_codec as codec
import pytest

from assignframe.audit.clients import identify_clients
from assignframe.audit.group import audit_group
from assignframe.decode import decode_capture, snapshot_dicts
from assignframe.plugins import PluginManager
from assignframe.snapshot import read_snapshot
from assignframe.testing import shared_path

CAPTURES = shared_path(__file__) / "captures"


def _captured(name: str):
    """The last complete generation of a real capture, through the JSON lines (as audit reads)."""
    lines = list(snapshot_dicts(decode_capture(CAPTURES / name).timelines))
    return read_snapshot(json.dumps([s for s in lines if s["complete"]][-1], default=str))


@pytest.mark.parametrize(
    ("capture", "label", "evidence"),
    [
        ("java_sticky.pcap", "Java", "client software 'apache-kafka-java 4.0.0-SNAPSHOT'"),
        ("librdkafka_cooperative_sticky.pcap", "librdkafka",
         "client software 'confluent-kafka-python 2.16.1-rdkafka-2.16.0'"),
        ("kafka_group_sticky.pcap", "kafka-python", "client software 'kafka-python 3.0.12'"),
    ],
)
def test_real_clients_are_named_from_their_api_versions(capture, label, evidence):
    clients = identify_clients(_captured(capture), PluginManager())
    assert {c.label for c in clients.members.values()} == {label}
    assert {c.evidence for c in clients.members.values()} == {evidence}


def test_a_mixed_group_names_both_and_runs_only_what_both_run():
    clients = identify_clients(_captured("java_mixed_range.pcap"), PluginManager())
    assert clients.describe() == "Java (2), kafka-python (1)"
    assert clients.cannot_run("cooperative-sticky") is None  # both ship it (kafka-python 3)
    assert clients.cannot_run("fair") == (
        "Java and kafka-python member(s) j2, j0, p1 cannot run it"  # no adapter for Java
    )


def test_librdkafka_cannot_run_eager_sticky():
    clients = identify_clients(_captured("librdkafka_cooperative_sticky.pcap"), PluginManager())
    assert clients.cannot_run("sticky") == "librdkafka member(s) w1-ck, w2-ck cannot run it"
    assert clients.default_strategy() == ("range", "librdkafka")


def _group(members, protocol="range", **extra):
    """Two members of topic t (3 partitions), each with the given member fields."""
    rows = []
    for member_id, fields in members.items():
        version = fields.pop("version", 3)
        rows.append({
            "member_id": member_id,
            "subscription": {"hex": codec.encode_subscription(["t"], version=version).hex()},
            "assignment": {"hex": codec.encode_assignment([], version=3).hex()},
            **fields,
        })
    return read_snapshot({"group_id": "g", "generation": 2, "protocol": protocol,
                          "topic_partitions": {"t": 3}, "members": rows, **extra})


@pytest.mark.parametrize(
    ("fields", "label", "evidence"),
    [
        ({"client_id": "consumer-g-1"}, "Java", "client id 'consumer-g-1' (its default)"),
        ({"client_id": "rdkafka"}, "librdkafka", "client id 'rdkafka' (its default)"),
        ({"client_id": "kafka-python-2.0.2", "version": 0}, "kafka-python",
         "client id 'kafka-python-2.0.2' (its default)"),
        ({"client_id": "kgo"}, "franz-go", "client id 'kgo' (its default)"),
        ({"protocols": ["range", "cooperative-sticky"]}, "Java",
         "strategies offered 'range, cooperative-sticky' (Java's default)"),
        ({"client_id": "billing-1"}, "unknown client", "nothing it sent names its client"),
        ({"client_software": "kafka-python 3.0.12"}, "kafka-python with assignframe's adapter",
         "client software 'kafka-python 3.0.12', subscription v3 (only the adapter sends v3)"),
    ],
)
def test_client_id_conventions_and_wire_shapes(fields, label, evidence):
    clients = identify_clients(_group({"m": fields}), PluginManager())
    assert (clients.members["m"].label, clients.members["m"].evidence) == (label, evidence)


def test_javas_cooperative_user_data_names_no_client():
    """assignframe's kafka-python adapter writes Java's cooperative-sticky user data (an int32
    generation) in a v3 subscription, exactly as Java does: with a client id of its own, the
    member could be either, so it is not called Java (issue 31: the adapter was labelled Java and
    its group 'allowed', though kafka-python can never leave the classic protocol)."""
    rows = [{"member_id": m, "client_id": "orders-worker",
             "subscription": {"hex": codec.encode_subscription(
                 ["t"], user_data=(4).to_bytes(4, "big"), version=3).hex()},
             "assignment": {"hex": codec.encode_assignment([], version=3).hex()}}
            for m in ("a", "b")]
    snapshot = read_snapshot({"group_id": "g", "generation": 4, "protocol": "cooperative-sticky",
                              "topic_partitions": {"t": 3}, "members": rows})
    clients = identify_clients(snapshot, PluginManager())
    assert clients.members["a"].label == "unknown client"
    assert clients.members["a"].evidence == (
        "user data layout 'cooperative-sticky generation (Java)': Java's cooperative-sticky "
        "user data, which assignframe's kafka-python adapter writes too")
    assert clients.unidentified() == ["orders-worker", "orders-worker"]


def test_a_member_id_carries_its_client_id():
    member = "consumer-g-7-0f6e2f4c-8d0b-4a8e-9d43-5b1c2a3e4f50"  # <client id>-<UUID>
    clients = identify_clients(_group({member: {}}), PluginManager())
    assert clients.members[member].label == "Java" and clients.members[member].name == (
        "consumer-g-7"
    )


def test_an_unknown_client_runs_what_it_offers_and_what_every_library_ships():
    clients = identify_clients(_group({"m": {"protocols": ["sticky"]}}), PluginManager())
    assert [clients.cannot_run(s) is None for s in ("sticky", "range", "roundrobin")] == [True] * 3
    assert clients.cannot_run("cooperative-sticky") == "unknown client member(s) m cannot run it"


def test_the_adapter_is_named_where_one_exists():
    kafka_python = identify_clients(_group({"m": {"client_id": "kafka-python-2.0.2",
                                                  "version": 0}}), PluginManager())
    assert kafka_python.cannot_run("fair") == (
        "kafka-python member(s) kafka-python-2.0.2 would need assignframe's adapter "
        "(assignframe.kafka_python)"
    )
    adapter = identify_clients(_group({"m": {"client_software": "kafka-python 3.0.12"}}),
                               PluginManager())
    assert adapter.cannot_run("fair") is None and adapter.cannot_run("lag-aware") is None


def _lagging(client, version=3):
    """Two members on t0 (4 partitions) and t1 (5) whose lags fair spreads best of all the
    audit's strategies (found by search; the assertions below check it holds)."""
    members = [{
        "member_id": f"C{i}",
        "subscription": {"hex": codec.encode_subscription(["t0", "t1"], version=version).hex()},
        "assignment": {"hex": codec.encode_assignment([], version=3).hex()},
        **client,
    } for i in range(2)]
    return {"group_id": "lagging", "generation": 3, "protocol": "range",
            "topic_partitions": {"t0": 4, "t1": 5}, "members": members,
            "partition_lags": {"t0": [10, 0, 100, 0], "t1": [10, 10, 10, 0, 1000]}}


@pytest.mark.parametrize(
    ("client", "recommended", "why_not_fair"),
    [
        ({"client_software": "apache-kafka-java 3.9.1"}, False,
         "but Java member(s) C0, C1 cannot run it"),
        ({"client_id": "kafka-python-2.0.2"}, False,
         "but kafka-python member(s) kafka-python-2.0.2 (x2) would need "
         "assignframe's adapter (assignframe.kafka_python)"),
        ({"client_software": "kafka-python 3.0.12"}, True, None),  # the adapter runs fair
    ],
    ids=["java", "kafka-python", "adapter"],
)
def test_fair_only_where_the_clients_can_run_it(context, client, recommended, why_not_fair):
    version = 0 if client.get("client_id", "").startswith("kafka-python") else 3  # as it sends
    rows, _ = audit_group(1, _lagging(client, version), context)
    by_strategy = {r["strategy"]: r for r in rows}
    fair, chosen = by_strategy["fair"], by_strategy[rows[0]["recommendation"]]
    others = [by_strategy[s] for s in ("range", "roundrobin", "sticky", "cooperative-sticky")]
    assert all(fair["lag_spread"] < o["lag_spread"] for o in others)  # fair is the best here
    assert (rows[0]["recommendation"] == "fair") is recommended
    if not recommended:
        assert rows[0]["reason"].endswith(
            f"fair would do better on lag spread ({fair['lag_spread']} vs "
            f"{chosen['lag_spread']}) {why_not_fair}"
        )
