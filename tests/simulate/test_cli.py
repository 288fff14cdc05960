"""``assignframe simulate`` is a thin CLI over the library."""

from __future__ import annotations

import json

from assignframe.cli import main
from assignframe.simulate import shipped_scenarios


def _path(name):
    return str(next(p for p in shipped_scenarios() if p.stem == name))


def test_json_output(capsys):
    assert (
        main(["simulate", _path("kip54-example-1"), "--strategies", "range,sticky", "--json"]) == 0
    )
    (result,) = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in result["runs"]] == ["range", "sticky"]


def test_tables_and_html(tmp_path, capsys):
    html = tmp_path / "sim.html"
    out = tmp_path / "sim.json"
    code = main(
        [
            "simulate",
            _path("unbalanced-group"),
            "--strategies",
            "range,roundrobin",
            "--html",
            str(html),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "unbalanced-group" in printed and "totals" in printed
    assert "data-viz-id" in html.read_text()
    assert json.loads(out.read_text())[0]["scenario"] == "unbalanced-group"


def test_broken_scenario_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("topics: {t: 1}\nsteps: [{events: [{leave: x}]}]\n")
    assert main(["simulate", str(path)]) == 2
    assert "steps[0].events[0].leave: member 'x' is not in the group (" in capsys.readouterr().err


def test_shipped_skips_consumer_scenarios_without_server_assignors(monkeypatch, capsys):
    import assignframe.cli.simulate as cli_simulate
    from assignframe.plugins import PluginManager

    monkeypatch.setenv("ASSIGNFRAME_DISABLE_PLUGINS", "assignframe-server-range")
    monkeypatch.setattr(cli_simulate, "get_plugin_manager", PluginManager)
    assert main(["simulate", "--shipped", "--strategies", "range", "--json"]) == 0
    captured = capsys.readouterr()
    played = {r["scenario"] for r in json.loads(captured.out)}
    assert "skipped cooperative-sticky-to-consumer-range: needs server:range" in captured.err
    assert "cooperative-sticky-to-consumer-range" not in played
    assert "cooperative-sticky-to-consumer-uniform" in played  # its assignor is installed
