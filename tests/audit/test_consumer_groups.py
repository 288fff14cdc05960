"""Consumer-protocol groups in every view of the audit (issue 22: the README's own snapshots
said "audited 3 groups"; the fourth, a consumer-protocol group, was only in rows.jsonl)."""

from __future__ import annotations

import json

import pytest

from assignframe.cli import main
from assignframe.cli.demo import shipped_captures


@pytest.fixture
def readme_snapshots(tmp_path, capsys):
    """The README's `assignframe decode capture assignframe/data/captures/*.pcap
    assignframe/data/captures/*/*.pcap --json > snapshots.jsonl`"""
    path = tmp_path / "snapshots.jsonl"
    assert main(["decode", "capture", *map(str, shipped_captures()), "--json"]) == 0
    path.write_text(capsys.readouterr().out)
    return path


def test_every_view_counts_the_consumer_group(readme_snapshots, tmp_path, capsys):
    out, html = tmp_path / "audit-out", tmp_path / "audit.html"
    code = main(["audit", str(readme_snapshots), "--out", str(out), "--html", str(html),
                 "--processes", "1"])
    assert code == 0
    printed = capsys.readouterr().out
    # the captures: range, sticky, cooperative-sticky (classic); the mock cluster's kip848-demo
    # and Kafka 4.1's kafka41-uniform and kafka41-range (consumer protocol); Kafka 4.3.1's
    # kafka43-share and kafka43-streams
    assert "audited 8 groups (3 classic, 3 consumer-protocol, 1 share, 1 Streams)" in printed
    groups = {g["group_id"]: g for g in map(json.loads, _lines(out / "groups.jsonl"))}
    consumer = groups["kip848-demo"]
    assert consumer["group_type"] == "consumer" and consumer["generation"] == 6
    assert consumer["current_strategy"] == "server:uniform"  # the broker's default, named
    assert consumer["recommendation"] == "server:uniform"
    assert consumer["migration_verdict"] is None  # already on the consumer protocol
    rows = [json.loads(line) for line in _lines(out / "rows.jsonl")]
    assert {r["strategy"] for r in rows if r["group_id"] == "kip848-demo"} == {
        "server:uniform", "server:range"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["groups"] == 8 and summary["consumer_groups"] == 3
    assert (summary["share_groups"], summary["streams_groups"]) == (1, 1)
    page = html.read_text()
    assert "8 groups (3 classic, 3 consumer-protocol, 1 share, 1 Streams)" in page
    assert "<b>3</b><span>consumer-protocol groups</span>" in page


def _lines(path):
    return path.read_text().splitlines()
