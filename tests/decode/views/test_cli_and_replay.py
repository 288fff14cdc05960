"""The command line: rich timelines for people, JSON snapshots for machines, --replay."""

from __future__ import annotations

import json

from rich.console import Console

from assignframe import GroupAssignment, Strategy, hookimpl
from assignframe.cli import main
from assignframe.decode import SNAPSHOT_SCHEMA, decode_capture, snapshot_dicts
from assignframe.decode.views.console import render_timelines
from assignframe.plugins import isolated_plugin_manager

from ..conftest import CAPTURES

SNAPSHOT_KEYS = {
    "schema",
    "group_type",
    "source",
    "group_id",
    "generation",
    "protocol_type",
    "protocol",
    "leader",
    "group_state",
    "assignor",
    "target_epoch",
    "observed_at",
    "partition_lags",
    "first_seen",
    "synced_at",
    "complete",
    "topic_partitions",
    "members",
    "changes",
    "metrics",
    "rounds",
    "events",
    "replay",
    "notes",
}
MEMBER_KEYS = {
    "member_id",
    "group_instance_id",
    "client_id",
    "client_host",
    "client_software",
    "protocols",
    "member_type",
    "member_epoch",
    "subscription",
    "assignment",
    "target",
    "assignment_source",
    "received_assignment",
}


def test_json_lines_follow_the_documented_schema(capsys):
    path = CAPTURES / "java_mixed_range.pcap"
    assert main(["decode", "capture", str(path), "--json"]) == 0
    snapshots = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["generation"] for s in snapshots] == [0, 1, 2, 4]
    for snapshot in snapshots:
        assert set(snapshot) == SNAPSHOT_KEYS and snapshot["schema"] == SNAPSHOT_SCHEMA
        assert snapshot["source"] == str(path)
        for member in snapshot["members"]:
            assert set(member) == MEMBER_KEYS
            assert bytes.fromhex(
                member["subscription"]["hex"]
            )  # raw bytes kept next to the decoding


def test_rich_timeline_names_groups_generations_members_and_changes(capsys):
    assert main(["decode", "capture", str(CAPTURES / "kafka_group_sticky.pcap")]) == 0
    out = capsys.readouterr().out
    assert "group group-cap-sticky" in out and "generation 0" in out and "generation 1" in out
    assert "(leader)" in out and "kept 4" in out and "leave" in out
    assert (
        "kafka-python" in out and "prev" in out
    )  # the decoded sticky user data (wrapped at 80 columns)


class EverythingToTheSmallestId(Strategy):
    """A deliberately lopsided strategy: replay must show its (different) answer."""

    name = "smallest-id-takes-all"

    def assign(self, group):
        first = min(group.members)
        return GroupAssignment.from_partitions(
            {
                m: (
                    [tp for t in group.subscribed_topics() for tp in group.cluster.partitions(t)]
                    if m == first
                    else []
                )
                for m in group.members
            }
        )


class WantsCopies(EverythingToTheSmallestId):
    """Advertises an option in its user data, as ``redundant`` does with ``replicas``."""

    name = "wants-copies"
    option_defaults = {"copies": 1}
    user_data_options = ("copies",)


class _Plugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(EverythingToTheSmallestId)
        registry.add(WantsCopies)


def test_replay_runs_another_strategy_on_the_captured_subscriptions():
    manager = isolated_plugin_manager([_Plugin()])
    result = decode_capture(
        CAPTURES / "kafka_group_range.pcap", replay="smallest-id-takes-all", manager=manager
    )
    snapshots = [s for s in snapshot_dicts(result.timelines) if s["complete"]]
    for snapshot in snapshots:
        replay = snapshot["replay"]
        assert replay["strategy"] == "smallest-id-takes-all" and not replay["same_as_captured"]
        smallest = min(m["member_id"] for m in snapshot["members"])
        assert len(replay["assignments"][smallest]) == 6
    missing = decode_capture(
        CAPTURES / "kafka_group_range.pcap", replay="no-such-strategy", manager=manager
    )
    assert "UnknownStrategyError" in snapshot_dicts(missing.timelines).__next__()["replay"]["error"]


def test_replay_of_another_strategy_never_reads_the_captured_user_data_as_its_own():
    manager = isolated_plugin_manager([_Plugin()])
    result = decode_capture(
        CAPTURES / "kafka_group_sticky.pcap", replay="wants-copies", manager=manager
    )
    snapshots = [s for s in snapshot_dicts(result.timelines) if s["complete"]]
    unknown = (
        "wants-copies: the members' own copies are unknown (their user data is sticky's); "
        "replayed with copies=1"
    )
    sent = [
        [m["member_id"] for m in s["members"] if m["subscription"]["user_data"]] for s in snapshots
    ]
    assert any(sent) and not all(sent)  # the capture has both kinds of generation
    for snapshot, members in zip(snapshots, sent, strict=True):
        foreign = [
            f"member {m!r}: its user data is sticky's, not wants-copies's (what it would send "
            "'wants-copies' is not in the capture); replayed as a member that sent none"
            for m in members
        ]
        assert snapshot["replay"]["warnings"] == [*foreign, unknown]


def test_the_text_view_shows_the_replays_warnings(capsys):
    manager = isolated_plugin_manager([_Plugin()])
    result = decode_capture(
        CAPTURES / "kafka_group_sticky.pcap", replay="wants-copies", manager=manager
    )
    console = Console(width=200, force_terminal=False)
    render_timelines(result.timelines, console)
    assert "  warning: wants-copies: the members' own copies are unknown" in capsys.readouterr().out
