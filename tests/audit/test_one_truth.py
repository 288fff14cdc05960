"""Decode, the audit and the report show one set of numbers for one generation.

The disagreement this guards against: a cooperative round that withholds a revoked partition
was valid in ``decode`` (withheld) and invalid in the audit rows and the report (unowned),
because the audit never applied the cooperative rule. All three now read the core's one
snapshot and its one metrics record.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

import assignframe_codec as codec
import pytest

from assignframe.audit import audit_group, snapshot_view
from assignframe.decode import decode_capture, snapshot_dicts
from assignframe.report import write_report
from assignframe.snapshot import read_snapshot, snapshot_metrics
from assignframe.testing.paths import shared_path

CAPTURES = sorted((shared_path(__file__) / "captures").glob("*.pcap"))
COMPARED = ("valid", "problems", "balance_score", "spread", "idle_members")


def _withholding_round() -> dict:
    """Member a claimed t-0 and t-1 and was given only t-0: t-1 waits for the follow-up."""
    claim = codec.encode_subscription(
        ["t"], owned_partitions=[("t", 0), ("t", 1)], generation_id=3, version=3
    )
    plain = codec.encode_subscription(["t"], generation_id=3, version=3)
    return {
        "group_id": "g",
        "generation": 4,
        "protocol": "cooperative-sticky",
        "topic_partitions": {"t": 2},
        "members": [
            {
                "member_id": "a",
                "subscription": {"hex": claim.hex()},
                "assignment": {"hex": codec.encode_assignment([("t", 0)], version=3).hex()},
            },
            {
                "member_id": "b",
                "subscription": {"hex": plain.hex()},
                "assignment": {"hex": codec.encode_assignment([], version=3).hex()},
            },
        ],
    }


def test_a_withheld_partition_is_valid_in_the_audit_and_the_report(context):
    row = _withholding_round()
    rows, _ = audit_group(1, json.dumps(row), context)
    assert {r["current_valid"] for r in rows} == {True}
    assert {r["current_problems"] for r in rows} == {""}
    view = snapshot_view(row)
    assert view["metrics"]["valid"] is True and view["metrics"]["withheld"] == 1
    assert view["problems"] == []


class _GenerationRows(HTMLParser):
    """The cells of every ``table.generations`` row of the report, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_table = self._in_cell = False

    def handle_starttag(self, tag, attrs):
        if tag == "table" and "generations" in (dict(attrs).get("class") or ""):
            self._in_table = True
        elif self._in_table and tag == "tr":
            self.rows.append([])
        elif self._in_table and tag == "td":
            self._in_cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_table = False
        elif tag == "td":
            self._in_cell = False

    def handle_data(self, data):
        if self._in_cell:
            self.rows[-1][-1] += data.strip()


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_decode_audit_and_report_agree_on_every_captured_generation(capture, context, tmp_path):
    result = decode_capture(capture)
    lines = [json.loads(json.dumps(s)) for s in snapshot_dicts(result.timelines, capture.name)]
    typed = [s.typed for t in result.timelines for s in t.snapshots]
    assert lines and len(lines) == len(typed)
    views = []
    for line, snapshot in zip(lines, typed, strict=True):
        if not line["members"]:
            continue
        decoded = line["metrics"]
        rows, _ = audit_group(1, json.dumps(line), context)
        read_back = snapshot_metrics(read_snapshot(line)).as_dict()
        view = snapshot_view(snapshot, capture.name)
        views.append(view)
        for key in COMPARED:
            assert decoded[key] == read_back[key] == view["metrics"][key], (line["generation"], key)
            assert {r[f"current_{key}"] for r in rows} == {decoded[key]}, (line["generation"], key)
    page = write_report(tmp_path / "report.html", captures=views)
    parser = _GenerationRows()
    parser.feed(page.read_text(encoding="utf-8"))
    shown = {row[0]: row for row in parser.rows if row}
    for view in views:
        row = shown[str(view["generation"])]
        # generation, protocol, leader, members, then valid, balance score, max-min, idle members
        assert row[4:8] == [
            _shown(view["metrics"][k]) for k in ("valid", "balance_score", "spread", "idle_members")
        ]


def _shown(value) -> str:
    """How a report table writes a value (booleans as yes/no)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
