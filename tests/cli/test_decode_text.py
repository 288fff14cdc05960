"""The decode text view as a person reads it: who joined, left or vanished in each generation,
the member-id handshake as part of a join (not as errors), member ids whole when piped."""

from __future__ import annotations

import io

from rich.console import Console

from assignframe.cli import main
from assignframe.decode import decode_capture
from assignframe.decode.views.console import render_timelines
from assignframe.testing import shared_path

CAPTURES = shared_path(__file__) / "captures"
MIXED = CAPTURES / "java_mixed_range.pcap"  # Java and kafka-python members joining and leaving


def decoded_text(capsys, *args: str) -> str:
    assert main(["decode", "capture", str(MIXED), *args]) == 0
    return capsys.readouterr().out


def test_joins_and_leaves_per_generation(capsys):
    text = decoded_text(capsys)
    generations = text.split("\ngroup group-java-mixed-range generation ")[1:]
    by_number = {chunk.split(" ", 1)[0]: chunk for chunk in generations}
    assert set(by_number) == {"0", "1", "2", "4"}
    first = by_number["0"]
    for member in ("j0-87727cdf", "j1-3ccea864", "p1-e1afb342"):
        assert f"{member}" in _line(first, "joined: ")
    assert "left: j1-3ccea864-c10b-4e33-9438-c4c7e0dc2a51\n" in by_number["1"]
    joined = "joined: j2-820b3726-f3f8-4443-8572-fd1faeeda3ca (after the member-id handshake)\n"
    assert joined in by_number["2"]
    gone = (
        "left: j0-87727cdf-fb04-4aeb-963f-8b90e6d2013d, p1-e1afb342-065f-42e6-9ae5-1ead10c412c1\n"
    )
    assert gone in by_number["4"]
    assert "vanished" not in text  # every member of this capture said goodbye


def test_the_member_id_handshake_is_no_error(capsys):
    text = decoded_text(capsys)
    assert "MEMBER_ID_REQUIRED" not in text
    assert text.count("(after the member-id handshake)") == 4  # j0, j1, p1, then j2


def test_a_member_gone_without_leavegroup_vanished():
    """The same real capture with its LeaveGroup requests removed from the timeline."""
    timelines = decode_capture(MIXED).timelines
    for snapshot in timelines[0].snapshots:
        snapshot.events = [e for e in snapshot.events if e["type"] != "leave"]
    out = Console(file=io.StringIO(), width=300)
    render_timelines(timelines, out)
    text = out.file.getvalue()
    assert "vanished: j1-3ccea864-c10b-4e33-9438-c4c7e0dc2a51 (no LeaveGroup seen)" in text
    assert "left: " not in text


def test_piped_output_keeps_member_ids_whole(capsys):
    text = decoded_text(capsys)  # capsys is not a terminal: the piped case
    assert "j0-87727cdf-fb04-4aeb-963f-8b90e6d2013d" in text
    assert max(len(line) for line in text.splitlines()) > 120  # not squeezed into 80 columns


def test_width_option_sets_the_width(capsys):
    text = decoded_text(capsys, "--width", "100")
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "joined: j2-820b3726-f3f8-4443-8572-fd1faeeda3ca" in text  # wrapped between words


def _line(text: str, prefix: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(prefix))
