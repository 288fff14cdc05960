"""The report as a person sees it: rendered by headless Chromium, scripts run, nothing broken.

Fails (never skips) where ASSIGNFRAME_REQUIRE_CHROMIUM=1 (tox -e report) and Chromium is missing.
"""

from __future__ import annotations

import json
import re

import pytest

from assignframe.audit import AuditOptions, run_audit, snapshot_view, write_fleet
from assignframe.report import ReportPage, write_report
from assignframe.simulate import load_scenario, shipped_scenarios, simulate

pytestmark = pytest.mark.chromium


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    fleet = write_fleet(
        tmp / "fleet.jsonl", 40, seed=5, max_members=6, max_partitions=30, malformed_rate=0.05
    )
    summary = run_audit(
        fleet, tmp / "audit", AuditOptions(("range", "sticky", "fair"), processes=1, worst=3)
    )
    simulations = [
        simulate(load_scenario(p), ["range", "cooperative-sticky"])
        for p in shipped_scenarios()
        if p.stem in ("kip54-example-1", "rolling-migration")
    ]
    captures = [
        snapshot_view(
            {
                "group_id": "cg",
                "generation": 1,
                "members": [
                    {
                        "member_id": "a",
                        "subscription": {"topics": ["t"]},
                        "assignment": {"partitions": [["t", 0]]},
                    }
                ],
                "topic_partitions": {"t": 1},
            },
            "sample.pcap",
        )
    ]
    return write_report(
        tmp / "report.html", audit_summary=summary, simulations=simulations, captures=captures
    )


def _owned_cells(report):
    """How many cells the first view of every heatmap must draw, from the embedded data."""
    data = json.loads(report.read_text().split('id="report-data">')[1].split("</script>")[0])
    heatmaps = [v for v in data["visuals"].values() if v["type"] == "heatmap"]
    return sum(len(owned) for v in heatmaps for owned in v["views"][0]["assignment"].values())


def _count(pattern, text):
    return len(re.findall(pattern, text))


def test_scripts_render_heatmaps_and_charts(browser, report):
    dom = browser.dom(report)
    assert 'data-render="ok"' in dom, "the page's script did not finish"
    assert '<div id="render-error"' not in dom
    placeholders = _count(r'data-viz-id="v\d+"', dom)
    assert f'data-viz-count="{placeholders}"' in dom
    heatmaps = _count(r'<svg[^>]*class="heatmap"', dom)
    assert heatmaps >= 3 + 2 + 1  # worst groups, simulation runs, the captured group
    assert _count(r'<rect[^>]*class="cell"', dom) == _owned_cells(
        report
    )  # every owned partition drawn
    assert _count(r'<svg[^>]*class="chart bars"', dom) >= 4
    assert _count(r'<svg[^>]*class="chart lines"', dom) >= 2
    assert _count(r'<rect[^>]*class="bar"', dom) > 10 and "<polyline" in dom
    assert _count(r'class="heatmap-select"', dom) >= 3  # strategy / step pickers built by JS


def test_screenshot_is_a_real_picture(browser, report, tmp_path):
    shot = browser.screenshot(report, tmp_path / "report.png")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 50_000  # a blank 1400x2000 page compresses to a few kB


def test_a_broken_visual_shows_the_error_marker(browser, tmp_path):
    page = ReportPage("broken")
    page.add_section("s", "s", page.visual({"type": "no-such-visual"}))
    path = tmp_path / "broken.html"
    path.write_text(page.render())
    dom = browser.dom(path)
    assert 'data-render="error"' in dom and '<div id="render-error"' in dom
