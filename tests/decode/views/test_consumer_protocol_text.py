"""The text a person reads for a consumer-protocol capture (issue 22): times, client names, time
order, the assignor named, metrics per epoch, reconciliation told apart from a real problem."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from assignframe.cli import main
from assignframe.cli.demo import shipped_captures

SHIPPED = {path.name: path for path in shipped_captures()}
CAPTURE = SHIPPED["kafka_group_consumer_protocol.pcap"]  # a, c (killed), b (late)


def _text(capsys) -> str:
    assert main(["decode", "capture", str(CAPTURE)]) == 0
    return capsys.readouterr().out


def _events(capsys) -> list[dict]:
    assert main(["decode", "capture", str(CAPTURE), "--json"]) == 0
    return json.loads(capsys.readouterr().out.splitlines()[-1])["events"]


def _clock(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def test_events_are_in_time_order_with_times_and_client_names(capsys):
    text = _text(capsys)
    lines = text.split("events, in time order:\n")[1].split("\n\n")[0].splitlines()
    clocks = [line.split()[0] for line in lines]
    assert clocks == sorted(clocks) and len(clocks) == 14
    assert "EG4mGAS2Q9ebuoYI/EKmNw" not in "".join(lines)  # members by client name, not id
    assert "members: a = EG4mGAS2Q9ebuoYI/EKmNw, c = qD6MqoEmSgWtUY9xkyOtbA, " in text
    vanished = next(line for line in lines if "vanished" in line)
    assert vanished.split("  ", 2)[2].startswith("c vanished: its last heartbeat")


def test_the_assignor_is_named_and_epochs_are_epochs(capsys):
    text = _text(capsys)
    assert "assignor: uniform (the broker's default: no member names one; " in text
    assert "broker default)" not in text and "generation" not in text
    assert re.findall(r"group epoch (\d+):", text) == ["2", "3", "4", "5", "6"]


def test_the_unconsumed_partition_is_a_problem_and_reconciliation_is_not(capsys):
    events = _events(capsys)
    vanished = next(e["timestamp"] for e in events if e["event"] == "vanished")
    everything = next(e["timestamp"] for e in events
                      if e["event"] == "assignment" and len(e["partitions"]) == 4 and
                      e["epoch"] == 6)
    text = _text(capsys)
    epoch_4 = text.split("group epoch 4:")[1].split("group epoch 5:")[0]
    assert "NOT valid: unowned: orders-2" in epoch_4
    unowned = f"unowned orders-2 unconsumed {everything - vanished:.1f} s: c vanished without"
    assert unowned in epoch_4 and "(a problem: nobody consumed it meanwhile)" in epoch_4
    assert everything - vanished > 30  # the session timeout, not a heartbeat or two
    epoch_2 = text.split("group epoch 2:")[1].split("group epoch 3:")[0]
    assert "in flight orders-2 unconsumed 1.1 s: revoked by a at +6.00 s, c received it" in epoch_2
    assert "(normal reconciliation)" in epoch_2 and "unowned" not in epoch_2
    start = min(e["timestamp"] for e in events)
    assert f"group epoch 2: {_clock(start)} (+0.00 s)" in text  # times are the capture's


def test_the_json_says_the_same_per_epoch(capsys):
    assert main(["decode", "capture", str(CAPTURE), "--json"]) == 0
    epochs = {s["generation"]: s for s in map(json.loads, capsys.readouterr().out.splitlines())}
    problems = [h for h in epochs[4]["handovers"] if not h["normal"]]
    assert [(h["partition"], h["how"]) for h in problems] == [(["orders", 2], "vanished")]
    assert all(h["normal"] for h in epochs[2]["handovers"])
    times = [e["timestamp"] for e in epochs[6]["events"]]
    assert times == sorted(times)


def test_a_classic_group_is_not_headed_consumer(capsys):
    path = SHIPPED["kafka_group_cooperative_sticky.pcap"]
    assert main(["decode", "capture", str(path)]) == 0
    text = capsys.readouterr().out
    assert "(classic protocol, strategy cooperative-sticky)" in text
    assert "(consumer)" not in text
