"""The report's consumer-protocol parts: a classic group's migration section, hand-over times."""

from __future__ import annotations

import re

import assignframe_codec as codec
from audit_snapshots import snapshot_row

from assignframe.audit.group import audit_group
from assignframe.audit.rerun import AuditContext
from assignframe.report import render_report
from assignframe.report.groups import group_card
from assignframe.report.page import ReportPage
from assignframe.simulate import load_scenario, shipped_scenarios, simulate


def _detail(user_data):
    row = snapshot_row()
    row["members"][0]["assignment"]["hex"] = codec.encode_assignment(
        [("t", 0), ("t", 1)], user_data=user_data, version=3
    ).hex()
    _, detail = audit_group(0, row, AuditContext.create(("range",)), detail=True)
    return detail


def _card(detail):
    page = ReportPage("t")
    return group_card(page, detail), page


def test_a_refused_upgrade_is_said_with_its_reason():
    html, _ = _card(_detail(b"\x01"))
    assert "Migration to the consumer protocol" in html
    assert "refused: the Assignment of a carries user data (KAFKA-18134)" in html


def test_an_allowed_upgrade_names_the_assignor_and_predicts_both():
    html, _ = _card(_detail(None))
    assert "would choose <b>server:uniform</b>" in html
    section = html[html.index("Migration to the consumer protocol") :]
    first_cells = re.findall(r"<tr[^>]*><td[^>]*>([^<]*)</td>", section)
    assert first_cells == ["now (range)", "server:uniform", "server:range"]


def test_a_consumer_protocol_simulation_shows_hand_over_times():
    path = next(p for p in shipped_scenarios() if p.stem == "cooperative-sticky-to-consumer-range")
    result = simulate(load_scenario(path))
    page = render_report(simulations=[result])
    assert "unowned (longest)" in page
    assert "Hand-over: longest time a partition had no owner (s)" in page
    # the conversion step: server range recomputes; hand-overs as docs/simulate.md derives them
    assert "8 (max 3.75 s)" in page


def test_a_refused_upgrade_never_shows_its_prediction_as_if_it_happened():
    html, _ = _card(_detail(b"\x01"))
    section = html[html.index("Migration to the consumer protocol") :]
    assert "Not what happens now (the upgrade does not happen)" in section
    assert section.index("KAFKA-18134") < section.index("Not what happens now")


def test_an_invalid_prediction_is_shown_invalid_never_0_moved():
    detail = _detail(None)
    predicted = detail["migration"]["predicted"][0]
    predicted["valid"] = False
    predicted["metrics"] = {**predicted["metrics"], "valid": False, "partitions_moved": 0,
                            "problems": "double-owned: t-0; unowned: t-2"}
    html, page = _card(detail)
    row = re.search(r"<tr[^>]*><td[^>]*>server:uniform</td>(.*?)</tr>", html).group(1)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert "invalid: double-owned: t-0; unowned: t-2" in cells
    assert cells[-1] == "–"  # no wait is predicted for a target that cannot be
    bars = [v for v in page.visuals.values() if v["type"] == "bars" and "migrating" in v["title"]]
    assert bars[0]["series"][0]["values"][0] is None  # drawn "–", not a bar of 0
