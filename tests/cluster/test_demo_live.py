"""``assignframe demo``'s live stage: a local Apache Kafka it starts itself, real groups, inspect.

The stage is what a newcomer sees of ``inspect`` without a cluster of their own, so the test reads
what it printed and wrote, and checks them against what the groups on the broker really are:
range over two 4-partition topics gives its three members 4, 2 and 2 partitions; the
consumer-protocol group is one of the broker's (uniform); the group with offsets only has the
lag the stage left it (5 of 25 records read on each of 4 partitions).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assignframe.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.e2e
def test_demo_starts_kafka_and_inspects_its_groups(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # shared/ is found beside the checkout, as a user's clone has it
    out = tmp_path / "demo"
    code = main(["demo", "--out", str(out), "--groups", "40", "--processes", "1"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "starting Apache Kafka 4.1" in printed.out
    assert "inspected 3 live group(s) on kafka at 127.0.0.1:" in printed.out
    verdicts = json.loads((out / "inspect" / "verdicts.json").read_text())
    groups = {g["group_id"]: g for g in verdicts["groups"]}
    assert set(groups) == {"demo-billing", "demo-shipping", "demo-archive"}
    billing = groups["demo-billing"]
    assert (billing["group_type"], billing["protocol"], billing["members"]) == (
        "classic", "range", 3)
    assert (billing["partitions"], billing["spread"]) == (8, 2)
    assert billing["recommendation"] not in (None, "range")  # range is the skew it reports
    shipping = groups["demo-shipping"]
    assert (shipping["group_type"], shipping["protocol"], shipping["members"]) == (
        "consumer", "uniform", 2)
    assert (shipping["partitions"], shipping["spread"]) == (4, 0)
    archive = groups["demo-archive"]
    assert archive["members"] == 0
    assert any("lag 80 on 4 committed partition(s)" in p for p in archive["problems"])
    snapshots = (out / "inspect" / "snapshots.jsonl").read_text().splitlines()
    assert {json.loads(line)["group_id"] for line in snapshots} == {"demo-billing", "demo-shipping"}
    assert (out / "inspect" / "audit" / "summary.json").is_file()  # the audit ran on them
    assert not (out / "broker").exists()  # the node and its directory are gone
