"""The report's first screen answers an operator (issue 22): which groups need attention (by
problem, each linked), what to switch to, whether the upgrade to the consumer protocol is safe."""

from __future__ import annotations

import re

import pytest

from assignframe.audit import AuditOptions, run_audit, write_fleet
from assignframe.report import render_report


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("verdict")
    fleet = write_fleet(tmp / "fleet.jsonl", 80, seed=5, max_members=6, max_partitions=30)
    return run_audit(fleet, tmp / "out", AuditOptions(("range", "sticky"), processes=1, worst=4))


def _section(page: str, anchor: str) -> str:
    return page.split(f'<section id="{anchor}">')[1].split("</section>")[0]


def test_the_verdict_comes_first_and_answers_three_questions(audited):
    page = render_report(audited)
    first = page.split("<main>")[1].split("<section")[1]
    assert first.startswith(' id="verdict">')
    verdict = _section(page, "verdict")
    for question in ("Which groups need attention", "What to switch to",
                     "Is the upgrade to the consumer protocol safe?"):
        assert question in verdict
    attention, migration = audited["attention"], audited["migration"]
    assert f"{attention['groups']:,} of {audited['groups']:,} groups" in verdict
    assert (f"Allowed for {migration['allowed']:,} of {migration['classic_groups']:,} classic "
            "groups") in verdict
    assert page.index('id="verdict"') < page.index('id="worst"') < page.index('id="fleet"')


def test_every_problem_links_to_its_groups_and_they_to_their_cards(audited):
    page = render_report(audited)
    verdict = _section(page, "verdict")
    problems = [k for k, p in audited["attention"]["problems"].items() if p["groups"]]
    assert problems and set(re.findall(r'href="#attention-(\w+)"', verdict)) == set(problems)
    for key in problems:
        assert f'id="attention-{key}"' in page
    cards = set(re.findall(r'href="#(group-[^"]+)"', _section(page, "attention")))
    detailed = {f"group-{g['group_id']}" for g in audited["worst_groups"]}
    assert cards and cards <= detailed
    for anchor in cards:
        assert f'id="{anchor}"' in page


def test_switches_are_what_the_groups_would_change_to(audited):
    verdict = _section(render_report(audited), "verdict")
    for switch in audited["switches"][:6]:
        row = (f'<td class="name">{switch["from"]}</td><td class="name">{switch["to"]}</td>'
               f"<td>{switch['groups']:,}</td>")
        assert row in verdict


def test_a_healthy_fleet_says_so():
    summary = {"groups": 3, "attention": {"groups": 0, "problems": {}}, "migration": {},
               "current": {}, "strategies": {}, "worst_groups": []}
    page = render_report(summary)
    assert "None of the 3 groups needs attention." in page
    assert '<section id="worst"' not in page  # no group with a problem: no "worst" list


def test_allowed_is_not_all_clear_while_clients_are_unknown():
    """'Allowed for 5 of 5' in green, with 4 of the members kafka-python running the adapter
    under a client id of their own (issue 31): allowed holds only for the clients identified, so
    the headline says how many groups have unidentified members and is not green."""
    from assignframe.report.verdict import _upgrade

    summary = {"migration": {"classic_groups": 5, "allowed": 5, "refused": 0,
                             "groups_with_unknown_clients": 4, "predicted": {}}}
    shown = _upgrade(summary)
    assert '<p class="headline warn">Allowed for 5 of 5 classic groups; 4 group(s) with ' \
           "members whose client is not identified</p>" in shown
    assert 'class="headline ok"' not in shown
    summary["migration"]["groups_with_unknown_clients"] = 0
    assert '<p class="headline ok">Allowed for 5 of 5 classic groups</p>' in _upgrade(summary)
