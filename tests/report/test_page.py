"""The report page as text: self-contained, escaped, every section present."""

from __future__ import annotations

import html
import json
import re

from assignframe.report import render_report
from assignframe.simulate import load_scenario, shipped_scenarios, simulate


def _simulation():
    path = next(p for p in shipped_scenarios() if p.stem == "kip54-example-3")
    return simulate(load_scenario(path), ["range", "sticky"])


GROUP = {
    "group_id": "g<script>",
    "generation": 3,
    "protocol": "range",
    "problems": ["double-owned: t-0"],
    "members": ["a", "b"],
    "partitions": [["t", 0], ["t", 1]],
    "current": {
        "assignment": {"a": [["t", 0]], "b": [["t", 0], ["t", 1]]},
        "metrics": {"valid": False, "spread": 1, "idle_members": 0},
    },
    "strategies": [
        {
            "strategy": "range",
            "assignment": {"a": [["t", 0]], "b": [["t", 1]]},
            "metrics": {"valid": True, "spread": 0, "idle_members": 0, "partitions_moved": 1},
            "error": None,
        }
    ],
    "recommendation": {"strategy": "range", "reason": "max-min 0 (now 1)"},
}
SUMMARY = {
    "groups": 1,
    "malformed": 0,
    "engine": "local",
    "input": "x.jsonl",
    "strategy_names": ["range"],
    "current": {"invalid_groups": 1},
    "strategies": {"range": {"groups": 1, "recommended": 1}},
    "worst_groups": [GROUP],
}


def test_page_is_self_contained():
    page = render_report(SUMMARY, [_simulation()])
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page


def test_user_text_is_escaped_and_data_is_embedded_safely():
    page = render_report(SUMMARY)
    assert "g<script>" not in page.split('<script type="application/json"')[0]
    data = page.split('id="report-data">')[1].split("</script>")[0]
    visuals = json.loads(data)["visuals"]
    assert {v["type"] for v in visuals.values()} == {"heatmap", "bars"}
    assert len(re.findall(r"data-viz-id=", page)) == len(visuals)


def test_sections_in_order():
    page = render_report(
        SUMMARY,
        [_simulation()],
        [
            {
                "source": "c.pcap",
                "group_id": "cg",
                "generation": 1,
                "members": ["a"],
                "assignment": {"a": [["t", 0]]},
            }
        ],
    )
    order = [
        page.index(f'<section id="{s}"')
        for s in ("verdict", "worst", "fleet", "simulations", "captures")
    ]
    assert order == sorted(order)


def test_empty_report_says_so():
    assert "Nothing to report" in render_report()


def test_what_a_replay_could_not_know_is_shown_under_the_groups_table():
    note = "redundant: the members' own replicas are unknown (their user data is range's) <b>"
    group = {**GROUP, "strategies": [*GROUP["strategies"], {**GROUP["strategies"][0]}]}
    group["strategies"][1] = {**group["strategies"][1], "strategy": "redundant", "note": note}
    page = render_report({**SUMMARY, "worst_groups": [group]})
    notes = page.split('<ul class="replay-notes">')[1].split("</ul>")[0]
    assert notes == f"<li>{html.escape(note)}</li>"
    assert '<ul class="replay-notes">' not in render_report(SUMMARY)  # none: no list
