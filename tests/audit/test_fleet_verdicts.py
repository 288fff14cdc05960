"""A migration verdict for every classic group, in every output, and the fleet's roll-up."""

from __future__ import annotations

import csv
import json

import pytest

from assignframe.audit import AuditOptions, run_audit
from assignframe.cli import main


@pytest.fixture(scope="module")
def audited(small_fleet, tmp_path_factory):
    out = tmp_path_factory.mktemp("verdicts")
    summary = run_audit(small_fleet, out, AuditOptions(("range", "sticky"), processes=1))
    groups = [json.loads(line) for line in (out / "groups.jsonl").read_text().splitlines()]
    with (out / "migration.csv").open(newline="") as handle:
        migration = list(csv.DictReader(handle))
    return summary, groups, migration


def test_every_classic_group_has_a_verdict_in_groups_and_migration_csv(audited):
    summary, groups, migration = audited
    classic = [g for g in groups if g["group_type"] == "classic"]
    assert len(groups) == summary["groups"] and len(classic) == len(migration) > 0
    assert {g["migration_verdict"] for g in classic} == {"allowed", "refused"}
    assert all(g["migration_verdict"] is None for g in groups if g["group_type"] == "consumer")
    by_id = {line["group_id"]: line for line in migration}
    for group in classic:
        line = by_id[group["group_id"]]
        assert line["verdict"] == group["migration_verdict"]
        if group["upgrade_refused"]:
            assert line["why"] == group["upgrade_refusal"]
            assert line["prediction"] == "once the refusal is fixed"
        for prefix in ("uniform", "range"):
            if line[f"{prefix}_valid"] != "yes":  # an invalid target: never "0 moved"
                assert line[f"{prefix}_moved"] == "" and line[f"{prefix}_max_unowned_s"] == ""


def test_the_roll_up_counts_what_the_groups_say(audited):
    summary, groups, _ = audited
    classic = [g for g in groups if g["group_type"] == "classic"]
    allowed = [g for g in classic if g["migration_verdict"] == "allowed"]
    migration = summary["migration"]
    assert migration["classic_groups"] == len(classic)
    assert migration["allowed"] == len(allowed)
    assert migration["refused"] == len(classic) - len(allowed) > 0
    for kind, figures in migration["refused_for"].items():
        assert figures["groups"] == sum(bool(g[f"refused_{kind}"]) for g in classic)
    uniform = migration["predicted"]["server:uniform"]
    assert uniform["partitions_moved"] == sum(g["uniform_moved"] or 0 for g in allowed)
    assert uniform["max_unowned_ms"] == max(g["uniform_max_unowned_ms"] or 0 for g in allowed)
    attention = summary["attention"]
    assert attention["groups"] == sum(bool(g["attention"]) for g in groups)
    refused = attention["problems"]["upgrade_refused"]
    assert refused["groups"] == migration["refused"]
    assert [g["group_id"] for g in refused["named"]] == [
        g["group_id"] for g in groups if "upgrade_refused" in g["attention"].split(",")
    ]


def test_worst_groups_all_need_attention(audited):
    summary, groups, _ = audited
    needing = {g["group_id"] for g in groups if g["attention"]}
    assert summary["worst_groups"] and {w["group_id"] for w in summary["worst_groups"]} <= needing


def test_the_console_says_the_verdict_and_json_gives_each_group(small_fleet, tmp_path, capsys):
    out = tmp_path / "o"
    args = ["audit", str(small_fleet), "--out", str(out), "--strategies", "range", "--processes",
            "1"]
    assert main(args) == 1  # its malformed rows were skipped
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    migration = summary["migration"]
    assert (
        f"upgrade to the consumer protocol ({migration['classic_groups']:,} classic groups): "
        f"{migration['allowed']:,} allowed, {migration['refused']:,} refused"
    ) in printed
    assert f"{summary['attention']['groups']:,} group(s) need attention" in printed
    assert main([*args, "--json"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["summary"]["migration"] == migration
    assert [g["group_id"] for g in lines[:-1]] == [
        json.loads(line)["group_id"] for line in (out / "groups.jsonl").read_text().splitlines()
    ]
