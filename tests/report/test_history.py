"""``assignframe report --history``: a watch history as a timeline per group."""

from __future__ import annotations

import json

from assignframe.cli import main
from assignframe.report import render_report
from assignframe.report.timeline import ROWS_PER_GROUP

T0 = 1_790_000_000.0


def event(at: float, group: str, kind: str, **fields) -> dict:
    return {"time": T0 + at, "group_id": group, "event": kind, **fields,
            "after": {"state": "Stable"}}


HISTORY = [
    event(0, "calm", "seen", generation=3, state="Stable"),
    event(0, "orders<b>", "seen", generation=7, state="Stable"),
    event(5, "orders<b>", "left", member_id="c-2"),
    event(5, "orders<b>", "epoch", **{"from": 7, "to": 8}),
    event(5, "orders<b>", "moved", partitions=[["orders-0", "c-2", "c-1"],
                                               ["orders-1", "c-2", None]]),
    event(9, "orders<b>", "stuck", state="PreparingRebalance", reconciling=0, seconds=300),
    event(12, "orders<b>", "settled", seconds=7.25),
]


def write(path, events, tail=""):
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + tail)
    return path


def test_the_troubled_group_comes_first_with_its_counts_and_events(tmp_path, capsys):
    history = write(tmp_path / "h.jsonl", HISTORY)
    page = tmp_path / "page.html"
    assert main(["report", "--history", str(history), "--out", str(page)]) == 0
    text = page.read_text()
    assert "7 events of 2 group(s) in h.jsonl" in text
    assert "1 group(s) were stuck or unreadable" in text
    summary = text.split('<table class="history">')[1].split("</table>")[0]
    assert summary.index("orders&lt;b&gt;") < summary.index("calm")  # trouble first
    # orders: 1 rebalance, 0 joined, 1 left, 1 moved (orders-1 went to nobody: not a move),
    # settled after 7.25 s at most, 1 stuck
    assert ('<td class="name">orders&lt;b&gt;</td><td>1</td><td>0</td><td>1</td><td>1</td>'
            '<td>7.25</td><td>1</td><td>0</td>') in summary
    assert "orders-1 c-2 → nobody" in text and "PreparingRebalance for 300 s" in text
    assert "<b>" not in text.split("<main>")[1]  # the group id is escaped everywhere
    assert text.count("<rect ") == len(HISTORY)


def test_hand_overs_are_counted_and_added_and_revoked_partitions_are_shown(tmp_path):
    """Today's history: ``moved`` holds hand-overs only, ``added`` and ``revoked`` the rest."""
    history = write(tmp_path / "h.jsonl", [
        event(0, "g", "seen", generation=1, state="Stable"),
        event(3, "g", "moved", partitions=[["t-0", "a", "b"], ["t-1", "a", "c"]]),
        event(3, "g", "added", partitions=[["t-4", "b"]]),
        event(3, "g", "revoked", partitions=[["t-3", "a"]]),
    ])
    page = tmp_path / "page.html"
    assert main(["report", "--history", str(history), "--out", str(page)]) == 0
    text = page.read_text()
    summary = text.split('<table class="history">')[1].split("</table>")[0]
    assert '<td class="name">g</td><td>0</td><td>0</td><td>0</td><td>2</td>' in summary
    assert "2 partition(s) moved" in text
    assert "t-4 nobody → b" in text and "t-3 a → nobody" in text and "t-1 a → c" in text


def test_a_torn_last_line_is_skipped_and_said(tmp_path, capsys):
    history = write(tmp_path / "h.jsonl", HISTORY, tail='{"time": 1790000013, "group')
    before = history.read_bytes()
    page = tmp_path / "page.html"
    assert main(["report", "--history", str(history), "--out", str(page)]) == 1
    err = capsys.readouterr().err
    assert err == f"assignframe: skipped: the last line is torn; skipped ({history} line 8)\n"
    assert history.read_bytes() == before  # the user's file is not touched
    assert "7 events of 2 group(s)" in page.read_text()


def test_a_bad_line_inside_is_one_error_naming_it(tmp_path, capsys):
    history = write(tmp_path / "h.jsonl", HISTORY[:2] + [{"group_id": "x"}] + HISTORY[2:])
    assert main(["report", "--history", str(history), "--out", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert err == ("assignframe: error: not a watch history event: expected an object with "
                   f"time, group_id and event ({history} line 3)\n")


def test_an_empty_history_is_unusable(tmp_path, capsys):
    history = tmp_path / "h.jsonl"
    history.write_text("\n")
    assert main(["report", "--history", str(history), "--out", str(tmp_path / "p.html")]) == 2
    assert "no watch history event in the file" in capsys.readouterr().err


def test_a_long_history_shows_the_newest_events_and_says_how_many_more():
    events = [event(i, "busy", "epoch", **{"from": i, "to": i + 1})
              for i in range(ROWS_PER_GROUP + 30)]
    text = render_report(history=events)
    assert "and 30 earlier event(s) in the history file" in text
    assert f"{ROWS_PER_GROUP + 29} → {ROWS_PER_GROUP + 30}" in text  # the newest is shown
    assert "0 → 1</td>" not in text  # the oldest is not


def test_rebalances_are_counted_from_generations():
    """A watch that saw a group's generation jump from 7 to 9 between two polls saw two
    rebalances (issue 31: the report said one); an outage's events are drawn and named."""
    events = [event(0, "g", "seen", generation=7, state="Stable"),
              event(5, "g", "epoch", **{"from": 7, "to": 9, "rebalances": 2}),
              event(6, "g", "unreadable", why="cluster unreachable: KafkaTimeoutError"),
              event(9, "g", "readable", seconds=3.0),
              event(12, "g", "epoch", **{"from": 9, "to": 10, "rebalances": 1})]
    page = render_report(history=events)
    assert "3 rebalance(s)" in page
    assert "read again after 3 s" in page
