"""Consumer-protocol groups in the audit, and the migration section of classic groups."""

from __future__ import annotations

import assignframe_codec as codec
import pytest

from assignframe.audit.group import audit_group


def _with_assignment_user_data(make_snapshot):
    row = make_snapshot()
    row["members"][0]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 0), ("t", 1)], user_data=b"\x00\x07", version=3
    ).hex()
    return row


def test_the_audit_flags_an_upgrade_blocking_group(make_snapshot, context):
    rows, detail = audit_group(0, _with_assignment_user_data(make_snapshot), context, detail=True)
    assert {r["upgrade_refused"] for r in rows} == {True}
    assert "Assignment of a carries user data" in rows[0]["upgrade_refusal"]
    assert "KAFKA-18134" in rows[0]["upgrade_refusal"]
    assert detail["migration"]["upgrade_refused"] is True
    # the coordinator refuses the conversion: the hand-over is only what would happen once the
    # cause is fixed, and every prediction says so
    assert {p["hypothetical"] for p in detail["migration"]["predicted"]} == {True}


def test_a_partition_in_two_assignments_makes_the_upgrade_fail(make_snapshot, context):
    row = make_snapshot()
    row["members"][1]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 1), ("t", 2)], version=3
    ).hex()  # a holds t-0 and t-1, b t-1 and t-2
    rows, detail = audit_group(0, row, context, detail=True)
    assert {r["upgrade_refused"] for r in rows} == {True}
    assert rows[0]["upgrade_refusal"].startswith(
        "online upgrade fails: t-1 is in the Assignment of a, b;"
    )
    assert detail["migration"]["refusal"] == rows[0]["upgrade_refusal"]


def test_a_group_without_assignment_user_data_can_upgrade(make_snapshot, context):
    rows, detail = audit_group(0, make_snapshot(), context, detail=True)
    assert {r["upgrade_refused"] for r in rows} == {False}
    migration = detail["migration"]
    assert migration["refusal"] is None
    assert migration["current_strategy"] == "range"
    assert migration["server_assignor"] == "server:uniform"  # no member names one yet
    predicted = {p["assignor"]: p["metrics"] for p in migration["predicted"]}
    assert set(predicted) == {"server:uniform", "server:range"}
    # a: t-0, t-1; b: t-2 is what both server assignors give two members on three partitions
    for metrics in predicted.values():
        assert metrics["valid"] and metrics["partitions_moved"] == 0
    for entry in migration["predicted"]:  # every member just moves to the new epoch
        assert entry["handover"] == {
            "heartbeats": 1,
            "unowned_partitions": 0,
            "max_unowned_ms": 0,
            "total_unowned_ms": 0,
            "revoking_members": 0,
        }


def test_an_unbalanced_group_sees_what_each_server_assignor_moves(make_snapshot, context):
    row = make_snapshot(topic_partitions={"t": 4})
    row["members"][0]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 0), ("t", 1), ("t", 2), ("t", 3)], version=3
    ).hex()
    row["members"][1]["assignment"]["hex"] = codec.encode_assignment([], version=3).hex()
    _, detail = audit_group(0, row, context, detail=True)
    predicted = {p["assignor"]: p["metrics"] for p in detail["migration"]["predicted"]}
    assert predicted["server:uniform"]["partitions_moved"] == 2  # sticky: two go to b
    assert predicted["server:range"]["partitions_moved"] == 2  # range: t-2, t-3 go to b
    assert predicted["server:uniform"]["spread"] == 0
    # a (first of two members: heartbeat at 5 s / 3) revokes two partitions and acknowledges at
    # once; b takes them at its own heartbeat (2 * 5 s / 3): each unconsumed for 1.667 s
    for entry in detail["migration"]["predicted"]:
        assert entry["handover"] == {
            "heartbeats": 1,
            "unowned_partitions": 2,
            "max_unowned_ms": 3333 - 1666,
            "total_unowned_ms": 2 * (3333 - 1666),
            "revoking_members": 1,
        }


def test_a_consumer_group_is_replayed_through_the_server_assignors(make_snapshot, context):
    rows, detail = audit_group(0, make_snapshot(group_type="consumer"), context, detail=True)
    assert [r["strategy"] for r in rows] == ["server:uniform", "server:range"]
    assert all(r["error"] is None and r["valid"] for r in rows)
    assert {r["group_type"] for r in rows} == {"consumer"}
    assert detail["migration"] is None
    assert rows[0]["upgrade_refused"] is None


def test_a_kafka_python_group_cannot_move_to_the_consumer_protocol(make_snapshot, context):
    row = make_snapshot()
    for member in row["members"]:
        member["client_software"] = "kafka-python 2.0.2"
        member["subscription"]["hex"] = codec.encode_subscription(["t"], version=0).hex()
    rows, detail = audit_group(0, row, context, detail=True)
    assert rows[0]["migration_verdict"] == "refused" and rows[0]["refused_client"] is True
    assert rows[0]["upgrade_refusal"] == (
        "online upgrade impossible: kafka-python has no consumer-protocol support (a, b)"
    )
    # what it would do once the members' clients are replaced: said as hypothetical
    assert {p["hypothetical"] for p in detail["migration"]["predicted"]} == {True}


def test_a_partition_listed_twice_in_one_assignment_is_owned_once_after_conversion(
    make_snapshot, context
):
    row = make_snapshot()
    row["members"][1]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 2), ("t", 2)], version=3
    ).hex()
    rows, detail = audit_group(0, row, context, detail=True)
    assert "double-owned" in rows[0]["current_problems"]
    assert rows[0]["migration_verdict"] == "allowed"  # one Assignment: the coordinator keeps a set
    assert rows[0]["uniform_valid"] is True and rows[0]["uniform_moved"] == 0


def test_an_invalid_prediction_never_reads_as_nothing_moved(make_snapshot, context):
    row = make_snapshot(topic_partitions={"t": 3, "u": 1})
    row["members"][0]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 0), ("t", 1), ("u", 0)], version=3  # u-0: nobody subscribes to u
    ).hex()
    rows, detail = audit_group(0, row, context, detail=True)
    predicted = {p["assignor"]: p for p in detail["migration"]["predicted"]}
    for prefix in ("uniform", "range"):
        valid = predicted[f"server:{prefix}"]["valid"]
        assert rows[0][f"{prefix}_valid"] is valid
        if not valid:
            assert rows[0][f"{prefix}_moved"] is None


def test_the_longest_wait_follows_what_moves(make_snapshot, context):
    row = make_snapshot(topic_partitions={"t": 4})
    row["members"][0]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 0), ("t", 1), ("t", 2), ("t", 3)], version=3
    ).hex()
    row["members"][1]["assignment"]["hex"] = codec.encode_assignment([], version=3).hex()
    rows, _ = audit_group(0, row, context)
    assert rows[0]["uniform_moved"] == 2 and rows[0]["uniform_max_unowned_ms"] > 0
    balanced, _ = audit_group(0, make_snapshot(), context)
    assert balanced[0]["uniform_moved"] == 0 and balanced[0]["uniform_max_unowned_ms"] == 0


def test_a_consumer_group_is_recommended_uniform_on_a_tie(make_snapshot, context):
    rows, _ = audit_group(0, make_snapshot(group_type="consumer", protocol=None), context)
    by_strategy = {r["strategy"]: r for r in rows}
    uniform, range_ = by_strategy["server:uniform"], by_strategy["server:range"]
    assert uniform["spread"] == range_["spread"] and uniform["partitions_moved"] == 0
    assert rows[0]["recommendation"] == "server:uniform" and rows[0]["recommendation_tie"]


def test_a_hand_over_that_cannot_be_played_is_a_result_not_a_crash(context):
    """A group of the 10k-group Spark fleet (group-0008753): consumer-0 holds all four
    partitions and consumer-1 also holds topic-777-1-0. Its upgrade is refused; playing the
    hypothetical hand-over got stuck (a partition two members own) and crashed the whole
    audit. The prediction now says why it has no hand-over, and the rows hold no wait."""
    topics = [f"topic-777-{i}" for i in range(4)]
    owned = {
        "consumer-0-fd9be616": [(t, 0) for t in topics],
        "consumer-1-4b0d12a3": [("topic-777-1", 0)],
        "consumer-2-60e3c8eb": [],
        "consumer-3-4fd16763": [],
    }
    members = [
        {
            "member_id": member,
            "subscription": {"hex": codec.encode_subscription(topics, version=3).hex()},
            "assignment": {"hex": codec.encode_assignment(partitions, version=3).hex()},
        }
        for member, partitions in owned.items()
    ]
    row = {"group_id": "group-0008753", "generation": 424, "protocol": "range",
           "topic_partitions": dict.fromkeys(topics, 1), "members": members}
    rows, detail = audit_group(0, row, context, detail=True)
    assert rows[0]["migration_verdict"] == "refused" and rows[0]["refused_shared_partition"]
    for predicted in detail["migration"]["predicted"]:
        assert predicted["hypothetical"]
        if predicted["handover"] is None:
            assert "did not reach its target epoch" in predicted["handover_error"]
            prefix = predicted["assignor"].split(":")[1]
            assert predicted["max_unowned_ms"] is None
            assert rows[0][f"{prefix}_max_unowned_ms"] is None
    assert any(p["handover"] is None for p in detail["migration"]["predicted"])


def _six_partitions(owned: dict[str, list[int]], user_data: bytes | None = None):
    from assignframe.snapshot import read_snapshot

    members = [
        {
            "member_id": member_id,
            "subscription": {"hex": codec.encode_subscription(["t"], version=3).hex()},
            "assignment": {"hex": codec.encode_assignment(
                [("t", p) for p in partitions], user_data=user_data, version=3).hex()},
        }
        for member_id, partitions in owned.items()
    ]
    return read_snapshot({"group_id": "g", "generation": 3, "protocol": "range",
                          "topic_partitions": {"t": 6}, "members": members})


# What Apache Kafka 4.1 did when a confluent-kafka member (group.protocol=consumer, the third
# member id) joined two-member classic groups on 6 partitions, in one run of
# tests/e2e/test_online_migration.py: uniform keeps the first two of each member's partitions and
# gives the rest to the newcomer.
KAFKA_CONVERSIONS = [
    # librdkafka range: c0 0-2, c1 3-5 -> the newcomer takes 2 and 5
    ({"c0-3566a2ff-af53-4db3-a0b4-e8400d16e71e": [0, 1, 2],
      "c1-3df0bc72-ee18-4f1f-bd5b-6771dd50dba6": [3, 4, 5]},
     "AvgLTxU0STWWL0IXTySzUg", [[0, 1], [3, 4], [2, 5]]),
    # librdkafka roundrobin: c0 0,2,4, c1 1,3,5 -> the newcomer takes 4 and 5
    ({"c0-38e4df11-44f8-494d-8f8f-6460016d8308": [0, 2, 4],
      "c1-d2b12c8a-719e-4d96-8030-42e9b921fc2a": [1, 3, 5]},
     "0pE5humJRM2Wv6Nt8pqHCQ", [[0, 2], [1, 3], [4, 5]]),
]


@pytest.mark.parametrize("owned, joiner, converted", KAFKA_CONVERSIONS)
def test_a_joining_consumer_member_converts_the_group_as_kafka_did(
    context, owned, joiner, converted
):
    from assignframe.audit.migration import predict_join
    from assignframe.model import TopicPartition

    predicted = predict_join(_six_partitions(owned), {joiner: ("t",)}, context.pm)
    assert predicted["refusal"] is None and predicted["assignor"] == "uniform"
    target = {m: [tp.partition for tp in a.partitions]
              for m, a in predicted["target"].assignments.items()}
    assert target == dict(zip([*owned, joiner], converted, strict=True))
    moved = {TopicPartition("t", p): (next(m for m, ps in owned.items() if p in ps), joiner)
             for p in converted[-1]}
    assert predicted["moved"] == moved
    # both classic members give one partition up before the newcomer can take it
    assert predicted["handover"]["revoking_members"] == 2
    assert predicted["handover"]["max_unowned_ms"] > 0


@pytest.mark.parametrize("owned, user_data, why", [
    ({"a": [0, 1, 2], "b": [3, 4, 5]}, b"\x01", "KAFKA-18134"),
    ({"a": [0, 1, 2, 3, 4, 5], "b": [0, 1, 2, 3, 4, 5]}, None, "is in the Assignment of a, b"),
])
def test_a_refused_conversion_predicts_no_target(context, owned, user_data, why):
    from assignframe.audit.migration import predict_join

    predicted = predict_join(_six_partitions(owned, user_data), {"n": ("t",)}, context.pm)
    assert why in predicted["refusal"]
    assert (predicted["target"], predicted["moved"], predicted["handover"]) == (None, {}, None)


def _uneven(make_snapshot):
    """a holds t-0, t-1 and u-0, b t-2: the uniform target moves one partition from a to b."""
    row = make_snapshot(topic_partitions={"t": 3, "u": 1})
    for member, owned in zip(row["members"], ([("t", 0), ("t", 1), ("u", 0)], [("t", 2)]),
                             strict=True):
        member["subscription"]["hex"] = codec.encode_subscription(["t", "u"], version=3).hex()
        member["assignment"]["hex"] = codec.encode_assignment(owned, version=3).hex()
    return row


def test_the_prediction_runs_on_the_timing_it_is_given_and_names_it(make_snapshot, context):
    """Issue 31 item 3: the live reader passes the broker's heartbeat interval; two members
    heartbeat a third and two thirds of an interval I after the change, the giver acknowledges
    at once, the getter takes the partition at its next heartbeat: it waits I/3 or 2I/3."""
    from assignframe.kip848.timing import BROKER_CONFIG, GroupTiming

    default_rows, default = audit_group(0, _uneven(make_snapshot), context, detail=True)
    timing = GroupTiming(500, 6000, BROKER_CONFIG, BROKER_CONFIG)
    rows, detail = audit_group(0, _uneven(make_snapshot), context, detail=True, timing=timing)
    assert "timing" not in default["migration"]  # the offline audit: as before, unsaid
    assert detail["migration"]["timing"] == {"heartbeat_interval_ms": 500,
                                             "session_timeout_ms": 6000,
                                             "timing_source": BROKER_CONFIG}
    waited, waited_by_default = rows[0]["uniform_max_unowned_ms"], \
        default_rows[0]["uniform_max_unowned_ms"]
    assert any(abs(waited - third) <= 1 for third in (500 / 3, 1000 / 3)), waited
    assert any(abs(waited_by_default - third) <= 1 for third in (5000 / 3, 10000 / 3))
    assert abs(waited_by_default - 10 * waited) <= 10
    # nothing else of the verdict depends on the timing
    same = ("migration_verdict", "uniform_moved", "range_moved", "range_max_unowned_ms")
    assert {k: rows[0][k] for k in same} == {k: default_rows[0][k] for k in same}
