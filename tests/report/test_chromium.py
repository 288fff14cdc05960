"""The report as a person sees it: rendered by headless Chromium, scripts run, nothing broken.

Fails (never skips) where ASSIGNFRAME_REQUIRE_CHROMIUM=1 (tox -e report) and Chromium is missing.
"""

from __future__ import annotations

import json
import re

import pytest

from assignframe.audit import AuditOptions, run_audit, snapshot_view, write_fleet
from assignframe.decode import decode_capture, snapshot_dicts
from assignframe.decode.views.jsonl import json_line
from assignframe.report import ReportPage, simulation_page_path, write_report
from assignframe.simulate import load_scenario, shipped_scenarios, simulate
from assignframe.testing import shared_path

#: Java and kafka-python members with long ids ("j0-87727cdf-fb04-4aeb-963f-8b90e6d2013d").
MIXED_CAPTURE = shared_path(__file__) / "captures" / "java_mixed_range.pcap"

pytestmark = pytest.mark.chromium


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    fleet = write_fleet(
        tmp / "fleet.jsonl", 40, seed=2, max_members=6, max_partitions=30, malformed_rate=0.05
    )
    summary = run_audit(
        fleet, tmp / "audit", AuditOptions(("range", "sticky", "fair"), processes=1, worst=3)
    )
    simulations = [
        simulate(load_scenario(p), ["range", "cooperative-sticky"])
        for p in shipped_scenarios()
        if p.stem
        in ("kip54-example-1", "rolling-migration", "cooperative-sticky-to-consumer-range")
    ]
    # Every installed strategy at once: the chart that must stay readable with many lines.
    simulations += [
        simulate(load_scenario(p)) for p in shipped_scenarios() if p.stem == "lag-aware"
    ]
    captures = [
        snapshot_view(snapshot, MIXED_CAPTURE.name)
        for snapshot in map(
            json.loads, map(json_line, snapshot_dicts(decode_capture(MIXED_CAPTURE).timelines))
        )
    ] + [
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
    # A strategy that failed on every group: summary.json gives it no means (null), as
    # summary_document does when no replay succeeded. The page must not draw those as 0.
    summary["strategy_names"] = [*summary["strategy_names"], "failing"]
    summary["strategies"]["failing"] = {
        **{key: 0 for key in summary["strategies"]["range"]},
        "groups": summary["groups"],
        "errors": summary["groups"],
        "mean_balance_score": None,
        "mean_spread": None,
        "mean_rounds": None,
    }
    return write_report(
        tmp / "report.html", audit_summary=summary, simulations=simulations, captures=captures
    )


@pytest.fixture(scope="module")
def pages(report):
    """The report's two pages: the main one (audit, captures) and its simulations beside it."""
    return {"main": report, "simulations": simulation_page_path(report)}


def _owned_cells(report):
    """How many cells the first view of every heatmap must draw, from the embedded data."""
    data = json.loads(report.read_text().split('id="report-data">')[1].split("</script>")[0])
    heatmaps = [v for v in data["visuals"].values() if v["type"] == "heatmap"]
    return sum(len(owned) for v in heatmaps for owned in v["views"][0]["assignment"].values())


def _count(pattern, text):
    return len(re.findall(pattern, text))


def test_scripts_render_heatmaps_and_charts(browser, pages):
    doms = {name: browser.dom(page) for name, page in pages.items()}
    for name, dom in doms.items():
        assert 'data-render="ok"' in dom, f"the {name} page's script did not finish"
        assert '<div id="render-error"' not in dom
        placeholders = _count(r'data-viz-id="v\d+"', dom)
        assert f'data-viz-count="{placeholders}"' in dom
        assert _count(r'<rect[^>]*class="cell"', dom) == _owned_cells(
            pages[name]
        )  # every owned partition drawn
    main, simulations = doms["main"], doms["simulations"]
    assert _count(r'<svg[^>]*class="heatmap"', main) >= 3 + 1  # worst groups, the captured one
    assert _count(r'<svg[^>]*class="heatmap"', simulations) >= 2  # simulation runs
    assert _count(r'<svg[^>]*class="chart bars"', main) >= 4
    assert _count(r'<svg[^>]*class="chart lines"', simulations) >= 2
    assert _count(r'<rect[^>]*class="bar"', main) > 10 and "<polyline" in simulations
    assert _count(r'class="heatmap-select"', main) >= 3  # strategy / step pickers built by JS


def test_the_main_page_links_its_simulations(pages):
    main = pages["main"].read_text()
    assert f'<a href="{pages["simulations"].name}">' in main
    assert '<section id="simulations"' in pages["simulations"].read_text()
    assert len(main) < len(pages["simulations"].read_text()) * 3  # the steps are not on it


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


# -- the pictures as a person reads them (issue 17): checked in the rendered DOM --------------


@pytest.fixture(scope="module")
def checks(chromium, pages, tmp_path_factory):
    """What :data:`conftest.PAGE_CHECKS` measured in each rendered page, every <details> open."""
    from .conftest import Browser

    browser = Browser(chromium, tmp_path_factory.mktemp("profile"))
    return {name: browser.measure(page) for name, page in pages.items()}


def _embedded(report):
    return json.loads(report.read_text().split('id="report-data">')[1].split("</script>")[0])


def test_count_axes_tick_whole_numbers(checks, pages):
    for name, page in pages.items():
        specs = [v for v in _embedded(page)["visuals"].values() if v.get("counts")]
        assert specs, f"the {name} page has count charts"
        ticks = checks[name]["count_ticks"]
        assert len(ticks) >= 3 * len([s for s in specs if max(_values(s)) > 0])
        assert all(float(t.replace(",", "")).is_integer() for t in ticks), ticks


def test_charts_are_as_wide_as_the_page(checks):
    assert checks["main"]["charts"] >= 4 and checks["simulations"]["charts"] >= 4
    for measured in checks.values():
        narrow = [c for c in measured["chart_widths"] if c["width"] < 0.9 * c["holder"]]
        assert not narrow


def test_every_colour_has_a_legend_entry(checks):
    assert sum(c["coloured_visuals"] for c in checks.values()) >= 10
    assert [c["legend_missing"] for c in checks.values()] == [[], []]


def test_member_labels_keep_the_start_of_the_id(checks):
    labels = checks["main"]["member_labels"] + checks["simulations"]["member_labels"]
    long_ids = [(member, text) for member, text in labels if len(member) > 28]
    assert long_ids, "the captured Java members have long ids"
    for member, text in labels:
        if len(member) <= 28:
            assert text == member
        else:
            assert text.startswith(member[:19]) and "…" in text and member.endswith(text[-8:])


def test_all_zero_charts_are_a_sentence(checks, pages):
    found = 0
    for name, page in pages.items():
        zero = {
            viz_id: v["when_all_zero"]
            for viz_id, v in _embedded(page)["visuals"].items()
            if v["type"] != "heatmap" and max(_values(v)) == 0
        }
        found += len(zero)
        assert dict(checks[name]["all_zero"]) == zero
        assert not set(checks[name]["drawn_charts"]) & set(zero)
    assert found, "the fixture has a chart with nothing to show"


def test_many_runs_become_small_multiples(checks, pages):
    many = [
        v
        for v in _embedded(pages["simulations"])["visuals"].values()
        if v["type"] == "lines" and len(v["series"]) > 4 and max(_values(v)) > 0
    ]
    assert many, "the lag-aware scenario runs every installed strategy"
    assert checks["simulations"]["panels"] == sum(len(v["series"]) for v in many)


def test_a_zero_bar_says_0_and_a_missing_value_says_so(checks):
    """A bar of nothing beside bars of something reads as missing data unless it says 0; a
    value that does not exist (a strategy that failed everywhere) is "–", never 0."""
    main = checks["main"]
    assert main["zero_bars"] > 0  # the fixture report has strategies that move nothing
    assert main["zero_labels"] == main["zero_bars"]
    assert main["no_value_bars"] > 0  # the failing strategy's means
    assert main["no_value_labels"] == main["no_value_bars"]


def test_no_label_is_clipped(checks):
    assert sum(c["texts"] for c in checks.values()) > 300  # labels were measured
    assert [c["clipped"] for c in checks.values()] == [[], []]


@pytest.fixture(scope="module")
def simulation_page(tmp_path_factory):
    """The simulation page alone (`assignframe simulate --html`): every installed strategy."""
    results = [
        simulate(load_scenario(p)) for p in shipped_scenarios() if p.stem == "rolling-restart"
    ]
    return write_report(tmp_path_factory.mktemp("sim") / "simulation.html", simulations=results)


def test_screenshots_to_look_at(browser, report, simulation_page, tmp_path):
    """The report's top and the simulation page, kept for a person to look at (paths printed
    with ``pytest -s``); each a real picture, not a blank page."""
    for page in (report, simulation_page_path(report), simulation_page):
        shot = browser.screenshot(page, tmp_path / f"{page.stem}.png", height=1800)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 100_000
        print(f"screenshot: {shot}")


def test_the_simulation_page_passes_the_same_checks(chromium, simulation_page, tmp_path):
    from .conftest import Browser

    checks = Browser(chromium, tmp_path / "profile").measure(simulation_page)
    assert checks["panels"] >= 8 * 2  # balance and movement, one panel per strategy
    assert checks["clipped"] == [] and checks["legend_missing"] == []
    assert all(float(t.replace(",", "")).is_integer() for t in checks["count_ticks"])


def _values(spec):
    return [v for series in spec["series"] for v in series["values"] if v is not None] or [0]
