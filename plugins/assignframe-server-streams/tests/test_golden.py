"""Every round of golden_kafka43.jsonl (answered by Kafka 4.3.1's own StickyTaskAssignor, see
make_golden.py): the plugin gives the recorded result, or fails where Kafka's assignor threw."""

from __future__ import annotations

from pathlib import Path

import pytest
from assignframe_server_streams import StickyTaskAssignor, TaskAssignorFailure

from assignframe.testing.streams_differential import (
    group_from_request,
    java_streams_answer,
    ours,
    read_golden,
)

GOLDEN = read_golden(Path(__file__).with_name("golden_kafka43.jsonl"))


def test_the_file_covers_what_it_claims():
    assert len(GOLDEN) == 163
    assert sum("error" in line for line in GOLDEN) == 5
    with_standby = [
        line for line in GOLDEN if any(t["standby"] for t in line.get("result", {}).values())
    ]
    assert len(with_standby) == 45


@pytest.mark.parametrize("line", GOLDEN, ids=[line["id"] for line in GOLDEN])
def test_golden_round(line):
    group = group_from_request(line["request"])
    if "error" in line:
        assert line["error"]["class"].endswith("TaskAssignorException")
        with pytest.raises(TaskAssignorFailure, match=line["error"]["message"].split(" task ")[0]):
            StickyTaskAssignor().assign(group)
    else:
        assert ours(StickyTaskAssignor(), group) == {"result": line["result"]}


def test_kafka_4_3_still_gives_every_recorded_answer(assignframe_java43_oracle):
    for line in GOLDEN:
        java = java_streams_answer(assignframe_java43_oracle, line["request"])
        recorded = {k: line[k] for k in ("result", "error") if k in line}
        assert java == recorded, line["id"]
