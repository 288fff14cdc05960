"""The report's "Every group read" section: every group of an ``inspect --out`` verdicts.json,
of every type, counted and listed in the order inspect gives (the audit judges only those with
a snapshot). The document here has the shape ``GroupVerdict.as_dict`` writes; the Kafka 4.3.1
share test (tests/kafka43/test_share_live.py) checks the page from a real ``inspect``."""

from __future__ import annotations

import json

from assignframe.cli import main
from assignframe.report import render_report

VERDICTS = {
    "bootstrap": "127.0.0.1:9092",
    "observed_at": 1_790_000_000.0,
    "groups": [
        {"group_id": "gone<x>", "group_type": "consumer", "state": None, "members": 0,
         "partitions": None, "spread": None, "lag": None, "problems": [],
         "unreadable": "group gone<x>: ConsumerGroupDescribe: COORDINATOR_NOT_AVAILABLE"},
        {"group_id": "orders", "group_type": "consumer", "state": "Stable", "members": 3,
         "partitions": 6, "spread": 1, "lag": 40, "problems": ["1 idle member(s)"],
         "unreadable": None},
        {"group_id": "queue-a", "group_type": "share", "state": "Stable", "members": 2,
         "partitions": 4, "spread": 0, "lag": None, "problems": [], "unreadable": None,
         "detail": {"group_type": "share", "backlog": 12}},
        {"group_id": "wordcount", "group_type": "streams", "state": "Stable", "members": 2,
         "partitions": 6, "spread": 0, "lag": 0, "problems": [], "unreadable": None,
         "detail": {"group_type": "streams"}},
        {"group_id": "old-batch", "group_type": "classic", "state": "Empty", "members": 0,
         "partitions": 0, "spread": None, "lag": 7,
         "problems": ["no members; lag 7 on 2 committed partition(s)"], "unreadable": None},
    ],
}


def _live(text: str) -> str:
    return text.split('<section id="live">')[1].split("</section>")[0]


def test_every_group_is_counted_and_listed_in_inspects_order():
    live = _live(render_report(live=VERDICTS))
    assert "Every group read (5)" in live
    assert "1 classic, 2 consumer, 1 share, 1 streams" in live
    for label, count in (("groups read", 5), ("with members", 3), ("with problems", 2),
                         ("unreadable", 1), ("without members", 1)):
        assert f"<b>{count}</b><span>{label}</span>" in live
    names = ["gone&lt;x&gt;", "orders", "queue-a", "wordcount", "old-batch"]
    positions = [live.index(f'<td class="name">{n}</td>') for n in names]
    assert positions == sorted(positions)  # the order inspect gave
    assert "<x>" not in live  # escaped
    assert "unreadable: group gone&lt;x&gt;: ConsumerGroupDescribe" in live
    # a share group's backlog stands where a consumer group's lag does
    assert ('<td class="name">queue-a</td><td class="name">share</td><td class="name">Stable'
            '</td><td>2</td><td>4</td><td>0</td><td>12</td>') in live


def test_no_verdicts_no_section():
    assert '<section id="live">' not in render_report(history=[
        {"time": 1.0, "group_id": "g", "event": "seen", "generation": 1, "state": "Stable"}])


def test_the_report_command_reads_an_inspect_out_folder(tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "verdicts.json").write_text(json.dumps(VERDICTS))
    page = tmp_path / "page.html"
    assert main(["report", "--verdicts", str(folder), "--out", str(page)]) == 0
    assert "Every group read (5)" in page.read_text()


def test_a_file_that_is_not_verdicts_is_one_error(tmp_path, capsys):
    bad = tmp_path / "verdicts.json"
    bad.write_text(json.dumps({"groups": [{"id": "x"}]}))
    assert main(["report", "--verdicts", str(bad), "--out", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert err == (f"assignframe: error: not an inspect verdicts.json: expected an object whose "
                   f"groups are objects with a group_id ({bad})\n")
    assert not (tmp_path / "p.html").exists()
