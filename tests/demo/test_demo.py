"""``assignframe demo``: every stage on the shipped data, ending in a report."""

from __future__ import annotations

import json

from assignframe.cli import main
from assignframe.cli.demo import shipped_captures


def test_captures_are_shipped():
    names = {p.name for p in shipped_captures()}
    assert names == {
        "kafka_group_range.pcap",
        "kafka_group_sticky.pcap",
        "kafka_group_cooperative_sticky.pcap",
        "kafka_group_consumer_protocol.pcap",  # KIP-848 (issue 15)
        "kafka41_consumer_protocol.pcap",  # KIP-848 on Apache Kafka 4.1 (issue 27)
    } | {p.name for p in shipped_captures() if p.parent.name != "captures"}
    assert "kafka43_share_group.pcap" in names  # share groups on Apache Kafka 4.3.1 (issue 32)


def test_demo_end_to_end(tmp_path, capsys):
    out = tmp_path / "demo"
    # the live stage (a local broker, inspect) is tested in tests/cluster/test_demo_live.py
    assert main(["demo", "--out", str(out), "--groups", "150", "--processes", "1",
                 "--no-broker"]) == 0
    printed = capsys.readouterr().out
    report = out / "report.html"
    assert f"report: {report.resolve()}" in printed
    captures = [json.loads(line) for line in (out / "captures.jsonl").read_text().splitlines()]
    assert {c["group_id"] for c in captures} >= {"group-cap-range", "group-cap-sticky",
                                                 "kafka43-share"}
    assert all(c["members"] for c in captures)
    simulations = json.loads((out / "simulations.json").read_text())
    assert {s["scenario"] for s in simulations} >= {"kip49-fair", "rolling-migration", "lag-aware"}
    summary = json.loads((out / "audit" / "summary.json").read_text())
    assert summary["groups"] + summary["malformed"] == 150
    page = report.read_text()
    for section in ("verdict", "attention", "worst", "fleet", "simulations", "captures"):
        assert f'<section id="{section}"' in page
    assert page.split("<main>")[1].startswith('<section id="verdict">')  # the answers first
    steps = out / "report-simulations.html"  # simulations on their own page, linked
    assert '<a href="report-simulations.html">' in page and "rolling-migration" in steps.read_text()
