"""The local engine: streaming, process counts, formats, malformed rows, summary."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from assignframe.audit import AuditOptions, run_audit, write_fleet
from assignframe.audit.rows import COLUMN_NAMES

STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky")


def _rows(out):
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    return sorted(rows, key=lambda r: (r["input_row"], r["strategy"]))


@pytest.fixture(scope="module")
def one_process(small_fleet, tmp_path_factory):
    out = tmp_path_factory.mktemp("one")
    summary = run_audit(small_fleet, out, AuditOptions(STRATEGIES, processes=1, chunk_size=16))
    return out, summary


def test_rows_cover_every_group_and_strategy(one_process):
    out, summary = one_process
    rows = _rows(out)
    consumer = summary["consumer_groups"]  # replayed through the broker's two assignors
    assert 0 < consumer < summary["groups"]
    assert len(rows) == (summary["groups"] - consumer) * len(STRATEGIES) + consumer * 2
    assert set(rows[0]) == set(COLUMN_NAMES)
    per_group = {}
    for row in rows:
        per_group.setdefault(row["input_row"], []).append(row)
    for group_rows in per_group.values():
        assert sum(r["recommended"] for r in group_rows) == (
            group_rows[0]["recommendation"] is not None
        )


def test_parquet_holds_the_same_rows(one_process):
    out, _ = one_process
    parquet = sorted(
        pq.read_table(out / "rows.parquet").to_pylist(),
        key=lambda r: (r["input_row"], r["strategy"]),
    )
    assert parquet == _rows(out)


def test_malformed_rows_are_counted_with_line_numbers(one_process, small_fleet):
    out, summary = one_process
    lines = small_fleet.read_text().splitlines()
    broken = [n for n, line in enumerate(lines, 1) if not line.endswith("}") or '"zz' in line]
    assert summary["malformed"] == len(broken) > 0
    reported = [
        json.loads(line)["input_row"] for line in (out / "malformed.jsonl").read_text().splitlines()
    ]
    assert reported == broken
    assert summary["groups"] + summary["malformed"] == len(lines)


def test_faults_are_found(one_process):
    out, summary = one_process
    invalid = {r["input_row"] for r in _rows(out) if not r["current_valid"]}
    assert summary["current"]["invalid_groups"] == len(invalid) > 0
    assert summary["worst_groups"][0]["problems"]  # worst first: an invalid group


def test_two_processes_and_parquet_input_give_identical_rows(one_process, small_fleet, tmp_path):
    out, summary = one_process
    parquet_input = write_fleet(
        tmp_path / "fleet.parquet",
        120,
        seed=14,
        max_members=8,
        max_partitions=40,
        malformed_rate=0.03,
    )
    two = tmp_path / "two"
    summary_two = run_audit(
        parquet_input, two, AuditOptions(STRATEGIES, processes=2, chunk_size=16)
    )
    assert _rows(two) == _rows(out)
    for key in ("groups", "malformed", "current", "strategies", "worst_groups"):
        assert summary_two[key] == summary[key], key


def test_summary_file_and_cli(small_fleet, tmp_path, capsys):
    from assignframe.cli import main

    html = tmp_path / "audit.html"
    code = main(
        [
            "audit",
            str(small_fleet),
            "--out",
            str(tmp_path / "o"),
            "--strategies",
            "range,sticky",
            "--processes",
            "1",
            "--html",
            str(html),
        ]
    )
    assert code == 1  # done, but small_fleet's malformed rows were skipped (docs/cli.md)
    captured = capsys.readouterr()
    assert "audited" in captured.out and "sticky" in captured.out
    skipped = captured.err.splitlines()  # each malformed row: one line on stderr
    malformed = (tmp_path / "o" / "malformed.jsonl").read_text().splitlines()
    assert len(skipped) == len(malformed) > 0
    first = json.loads(malformed[0])
    assert skipped[0] == (
        f"assignframe: skipped: {first['error']} ({small_fleet} line {first['input_row']})"
    )
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    # the ones asked for, then the broker's assignors its consumer-protocol groups replay
    assert summary["strategy_names"] == ["range", "sticky", "server:uniform", "server:range"]
    assert "data-viz-id" in html.read_text()


def test_unknown_strategy_fails_before_reading(small_fleet, tmp_path, capsys):
    from assignframe.cli import main

    assert main(["audit", str(small_fleet), "--out", str(tmp_path), "--strategies", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def _decode_like_input(path, make_snapshot):
    """Three generations of one group and one of another, as `decode --json` writes them."""
    rows = [
        make_snapshot(generation=2),
        make_snapshot(generation=3),
        make_snapshot(group_id="other", generation=9),
        make_snapshot(generation=1),  # an older line written later (another capture)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_one_group_id_is_one_group_at_its_latest_generation(tmp_path, make_snapshot):
    source = _decode_like_input(tmp_path / "decoded.jsonl", make_snapshot)
    summary = run_audit(source, tmp_path / "out", AuditOptions(("range",), processes=1))
    assert summary["groups"] == 2 and summary["older_generations_skipped"] == 2
    audited = {(row["group_id"], row["generation"]) for row in _rows(tmp_path / "out")}
    assert audited == {("g", 3), ("other", 9)}
    every = run_audit(
        source, tmp_path / "all", AuditOptions(("range",), processes=1, all_generations=True)
    )
    assert every["groups"] == 4 and every["older_generations_skipped"] == 0


def test_no_rate_is_claimed_for_nothing_audited(tmp_path):
    empty = tmp_path / "blank.jsonl"
    empty.write_text("\n\n")
    summary = run_audit(empty, tmp_path / "out", AuditOptions(("range",), processes=1))
    assert summary["groups"] == 0 and summary["groups_per_second"] is None
