"""The shared captures decode into the rebalances the members themselves reported."""

from __future__ import annotations

import pytest

from ..conftest import (
    ALL_CAPTURES,
    KAFKA_PYTHON_CAPTURES,
    assigned,
    complete,
    decoded,
    expected,
    snapshots,
)


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_capture_decodes_without_skipping_anything(name):
    result = decoded(name)
    assert [str(p) for p in result.problems] == []
    assert len(result.timelines) == 1
    assert result.messages > 50


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_every_complete_generation_assigns_every_partition_once(name):
    for snapshot in complete(name):
        assert snapshot["metrics"]["validity"]["valid"], snapshot["metrics"]["validity"]
        owned = [p for m in snapshot["members"] for p in assigned(m)]
        ((topic, count),) = snapshot["topic_partitions"].items()
        assert sorted(owned) == [(topic, p) for p in range(count)]
        for member in snapshot["members"]:
            # what the leader sent is what the member received
            if member["assignment"] is not None:
                assert member["received_assignment"]["hex"] == member["assignment"]["hex"]


@pytest.mark.parametrize("name,strategy", sorted(KAFKA_PYTHON_CAPTURES.items()))
def test_kafka_python_group_rebalances_after_a_member_leaves(name, strategy):
    first, second = complete(name)
    assert first["protocol"] == second["protocol"] == strategy
    assert first["group_id"] == second["group_id"]
    assert first["topic_partitions"] == second["topic_partitions"] and list(
        first["topic_partitions"].values()
    ) == [6]
    topic = next(iter(first["topic_partitions"]))
    assert len(first["members"]) == 3 and len(second["members"]) == 2
    leavers = [e["member_id"] for e in first["events"] if e["type"] == "leave"]
    assert len(leavers) == 1
    assert second["changes"]["left"] == leavers
    assert {m["member_id"] for m in second["members"]} == {
        m["member_id"] for m in first["members"]
    } - set(leavers)
    for snapshot in (first, second):
        assert snapshot["leader"] in {m["member_id"] for m in snapshot["members"]}
        assert len([r for r in snapshot["rounds"] if r["type"] == "join"]) >= len(
            snapshot["members"]
        )
        for member in snapshot["members"]:
            assert member["subscription"]["topics"] == [topic]
            assert member["client_software"].startswith("kafka-python")
    kept = {(c["topic"], c["partition"]) for c in second["changes"]["kept"]}
    moved = {(c["topic"], c["partition"]) for c in second["changes"]["moved"]}
    assert kept | moved == {(topic, p) for p in range(6)} and not kept & moved


def test_sticky_subscriptions_carry_the_previous_assignment():
    first, second = complete("kafka_group_sticky.pcap")
    before = {m["member_id"]: assigned(m) for m in first["members"]}
    for member in second["members"]:
        # read by the installed sticky strategy's own hooks, not by the decoder
        assert member["subscription"]["user_data_decoded"]["strategy"] == "sticky"
        decoded_user_data = member["subscription"]["user_data_decoded"]["value"]
        # kafka-python 3.0.12 writes an int16 version (1) before the V1 struct, unlike Java
        assert member["subscription"]["user_data"].startswith("0001")
        assert decoded_user_data["layout"] == "kafka-python sticky (int16 version prefix) V1"
        assert decoded_user_data["generation"] == first["generation"]
        assert (
            sorted(map(tuple, decoded_user_data["previous_assignment"]))
            == before[member["member_id"]]
        )
    # sticky keeps every partition whose owner stayed
    assert len(second["changes"]["kept"]) == 4


def test_cooperative_subscriptions_carry_owned_partitions_and_a_follow_up_round():
    first, second = complete("kafka_group_cooperative_sticky.pcap")
    before = {m["member_id"]: assigned(m) for m in first["members"]}
    for member in second["members"]:
        assert (
            sorted(map(tuple, member["subscription"]["owned_partitions"]))
            == before[member["member_id"]]
        )
        # kafka-python sends subscription v1: owned partitions, no generation (v2+), empty user data
        assert (
            member["subscription"]["version"] == 1 and member["subscription"]["generation_id"] == -1
        )
        assert member["subscription"]["user_data"] == ""
    rejoins = [r["member_id"] for r in second["rounds"] if r["type"] == "join"]
    assert (
        len(rejoins) == 3 and len(set(rejoins)) == 2
    )  # one member joined again: the follow-up round
    assert any("follow-up" in note for note in second["notes"])


@pytest.mark.parametrize("name", ["java_sticky.pcap", "java_mixed_range.pcap"])
def test_java_captures_match_what_members_reported(name):
    reported = expected(name)
    ours = {s["generation"]: s for s in complete(name)}
    assert sorted(ours) == sorted(int(g) for g in reported["generations"])
    for generation, report in reported["generations"].items():
        snapshot = ours[int(generation)]
        assert snapshot["group_id"] == reported["group"]
        assert snapshot["topic_partitions"] == reported["topics"]
        assert snapshot["leader"] == report["leader"]
        members = {m["member_id"]: m for m in snapshot["members"]}
        assert set(members) == set(report["assignments"])
        for member_id, topics in report["assignments"].items():
            assert assigned(members[member_id]) == sorted(
                (t, p) for t, ps in topics.items() for p in ps
            )
            assert members[member_id]["protocols"] == (
                ["sticky"] if "sticky" in name else ["range", "roundrobin"]
            )
            assert members[member_id]["client_id"] == reported["members"][member_id]["client_id"]
        for member_id, topics in (report.get("leader_computed_assignments") or {}).items():
            sent = members[member_id]["assignment"]["partitions"]  # wire order; the log is sorted
            assert sorted(map(tuple, sent)) == sorted(
                (t, p) for t, ps in topics.items() for p in ps
            )


def test_java_sticky_user_data_and_the_last_join_round():
    rounds = snapshots("java_sticky.pcap")
    first = rounds[0]
    for member in first["members"]:
        subscription = member["subscription"]
        assert subscription["version"] == 3 and subscription["user_data"] is None
        assert subscription["generation_id"] == -1
    for previous, snapshot in zip(rounds, rounds[1:3], strict=False):
        before = {m["member_id"]: assigned(m) for m in previous["members"]}
        for member in snapshot["members"]:
            if member["member_id"] in before:  # j3 joins fresh in generation 2
                user_data = member["subscription"]["user_data_decoded"]["value"]
                assert (
                    user_data["layout"] == "sticky V1"
                    and user_data["generation"] == previous["generation"]
                )
                assert (
                    sorted(map(tuple, user_data["previous_assignment"]))
                    == before[member["member_id"]]
                )
                assert member["subscription"]["generation_id"] == previous["generation"]
    # the members' closing LeaveGroups start one more JoinGroup round that never syncs
    assert not rounds[-1]["complete"]
    assert [e["type"] for e in rounds[2]["events"]].count("leave") == 3


def test_java_mixed_range_members_offer_two_protocols_and_subscription_versions_differ():
    for snapshot in complete("java_mixed_range.pcap"):
        versions = {m["client_id"]: m["subscription"]["version"] for m in snapshot["members"]}
        assert versions.pop("p1") == 0 and set(versions.values()) == {3}
        assert all(m["protocols"] == ["range", "roundrobin"] for m in snapshot["members"])


def test_librdkafka_cooperative_sticky_matches_reported_phases():
    reported = expected("librdkafka_cooperative_sticky.pcap")
    ours = complete("librdkafka_cooperative_sticky.pcap")
    assert (
        ours[0]["group_id"] == reported["group"]
        and ours[0]["topic_partitions"] == reported["topics"]
    )
    topic = next(iter(reported["topics"]))
    for phase, snapshot in zip(reported["phases"], (ours[0], ours[-1]), strict=True):
        by_client = {m["client_id"]: assigned(m) for m in snapshot["members"]}
        assert by_client == {c: [(topic, p) for p in ps] for c, ps in phase["assignments"].items()}
    first_joins = ours[0]["members"]
    assert all(
        m["subscription"]["user_data"] == "" and m["subscription"]["owned_partitions"] == []
        for m in first_joins
    )
    before = {m["member_id"]: assigned(m) for m in ours[0]["members"]}
    for member in ours[-1]["members"]:
        assert member["subscription"]["user_data_decoded"]["strategy"] == "cooperative-sticky"
        user_data = member["subscription"]["user_data_decoded"]["value"]
        assert (
            "librdkafka" in user_data["layout"] and user_data["generation"] == ours[0]["generation"]
        )
        assert sorted(map(tuple, user_data["previous_assignment"])) == before[member["member_id"]]
