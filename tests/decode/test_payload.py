"""Standalone payloads: golden bytes are detected as their kind (or the ambiguity is reported)."""

from __future__ import annotations

import base64
import io
import json

import assignframe_codec as codec
import pytest

from assignframe.cli import main
from assignframe.decode import DETECTION_ORDER, decode_payload, parse_payload_text

from .conftest import golden_lines

DETECTABLE = (
    "ConsumerProtocolSubscription",
    "ConsumerProtocolAssignment",
    "StickyAssignorUserData",
    "CooperativeStickyAssignorUserData",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "OffsetCommitKey",
    "OffsetCommitValue",
)


def _bytes_of(line):
    text = line.get("hex_version_prefixed") or line.get("hex")
    return None if text is None else bytes.fromhex(text)


@pytest.mark.parametrize(
    "line",
    [g for g in golden_lines(*DETECTABLE) if _bytes_of(g) is not None],
    ids=lambda g: f"{g['type']}-v{g.get('version')}-{g.get('case')}",
)
def test_golden_payload_is_detected_or_listed_as_ambiguous(line):
    result = decode_payload(_bytes_of(line), "golden")
    assert result.kind is not None
    fits = [label.split(" v")[0] for label in result.fits]
    assert line["type"] in fits  # the golden kind always fits exactly
    if result.kind != line["type"]:
        # detection picked an earlier kind in the documented order and reports the ambiguity
        assert DETECTION_ORDER.index(result.kind) < DETECTION_ORDER.index(line["type"])
        assert any(label.startswith(line["type"]) for label in result.ambiguous_with)


@pytest.mark.parametrize(
    "line",
    golden_lines("GroupMetadataValue", "OffsetCommitValue", "OffsetCommitKey", "GroupMetadataKey"),
    ids=lambda g: f"{g['type']}-v{g['version']}",
)
def test_forced_record_kind_gives_the_golden_value(line):
    result = decode_payload(_bytes_of(line), "golden", kind=line["type"])
    expected = json.loads(json.dumps(line["value"]))
    ours = {k: v for k, v in result.value.items() if k in expected}
    for member in ours.get("members", []):
        for key in [k for k in member if k.endswith("_decoded")]:
            del member[key]
    assert ours == expected


@pytest.mark.parametrize(
    "line",
    golden_lines("JoinGroupRequest", "SyncGroupRequest"),
    ids=lambda g: f"{g['type']}-v{g['version']}-{g['case']}",
)
def test_request_frames_are_detected_with_the_version_from_their_header(line):
    result = decode_payload(bytes.fromhex(line["framed"]["hex"]), "frame")
    assert (result.kind, result.version) == (line["type"], line["version"])
    assert result.framed["header"]["correlation_id"] == line["framed"]["header"]["correlation_id"]
    assert result.value["group_id"] == line["value"]["group_id"]


@pytest.mark.parametrize(
    "line",
    golden_lines("JoinGroupResponse", "SyncGroupResponse"),
    ids=lambda g: f"{g['type']}-v{g['version']}-{g['case']}",
)
def test_bodies_and_response_frames_need_kind_and_version(line):
    body = bytes.fromhex(line["hex"])
    result = decode_payload(body, "body", kind=line["type"], version=line["version"])
    assert (result.kind, result.version, result.exact) == (line["type"], line["version"], True)
    framed = decode_payload(
        bytes.fromhex(line["framed"]["hex"]), "frame", kind=line["type"], version=line["version"]
    )
    assert framed.framed is not None and framed.value == result.value
    tried = decode_payload(
        body, "body", kind=line["type"]
    )  # every version tried: the real one fits
    assert f"{line['type']} v{line['version']}" in tried.fits


def test_nested_consumer_protocol_bytes_are_decoded():
    line = next(g for g in golden_lines("JoinGroupResponse") if g["value"]["members"])
    result = decode_payload(
        bytes.fromhex(line["hex"]), "body", kind="JoinGroupResponse", version=line["version"]
    )
    for member in result.value["members"]:
        assert "topics" in member["metadata_decoded"] or "error" in member["metadata_decoded"]


def test_encodings_and_garbage():
    data = bytes.fromhex("0000000000010001740000000000")
    assert parse_payload_text("0x" + data.hex()) == data
    assert parse_payload_text(" ".join(f"{b:02x}" for b in data)) == data
    assert parse_payload_text(base64.b64encode(data).decode()) == data
    with pytest.raises(ValueError):
        parse_payload_text("not a payload!")
    result = decode_payload(b"\xff\xff\xff", "junk")
    assert result.kind is None and result.error


def test_cli_reads_arguments_files_and_stdin(tmp_path, capsys, monkeypatch):
    subscription = next(
        g for g in golden_lines("ConsumerProtocolSubscription") if g["version"] == 3
    )["hex"]
    assignment = next(
        g
        for g in golden_lines("ConsumerProtocolAssignment")
        if g["version"] == 3 and g["case"] != "empty"
    )["hex"]
    payloads = tmp_path / "payloads.txt"
    payloads.write_text(f"# one per line\n{subscription}\n\n{assignment}\n")
    monkeypatch.setattr(
        "sys.stdin", io.StringIO(base64.b64encode(bytes.fromhex(assignment)).decode() + "\n")
    )
    assert main(["decode", "payload", subscription, "-", "--file", str(payloads), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(g["source"], g["kind"]) for g in lines] == [
        ("argument 1", "ConsumerProtocolSubscription"),
        (f"{payloads} line 2", "ConsumerProtocolSubscription"),
        (f"{payloads} line 4", "ConsumerProtocolAssignment"),
        ("stdin line 1", "ConsumerProtocolAssignment"),
    ]
    assert main(["decode", "payload", "zz-not-hex", subscription]) == 1
    captured = capsys.readouterr()
    assert (
        "argument 1 @ byte 0" in captured.err and "ConsumerProtocolSubscription v3" in captured.out
    )


# --------------------------------------------------------------------------- detection (issue 17)
def _golden_subscriptions_v3():
    return [bytes.fromhex(g["hex"]) for g in golden_lines("ConsumerProtocolSubscription")
            if g["version"] == 3]


@pytest.mark.parametrize("cut", [1, 2])
def test_a_subscription_cut_short_is_not_passed_off_as_another_kind(cut):
    for data in _golden_subscriptions_v3():
        result = decode_payload(data[:-cut], "cut")
        assert result.kind is None, result.label
        assert result.loose or result.misses  # it was tried, and refused
        assert "closest: ConsumerProtocolSubscription" in result.error
        assert ", field " in result.error  # where it failed, by the declaration's field path
        assert "\n" not in result.error and result.error.count("closest") == 1  # one line


def test_the_closest_kind_is_the_one_that_got_furthest():
    data = _golden_subscriptions_v3()[0]
    result = decode_payload(data[:-1], "cut")
    closest = max(result.misses, key=lambda miss: miss.reached)
    assert closest.label.startswith("ConsumerProtocolSubscription")
    assert closest.reached > 4  # past the 4 bytes cooperative user data would have read


def test_trailing_bytes_are_loose_not_a_decode():
    data = _golden_subscriptions_v3()[0] + b"\x00"
    result = decode_payload(data, "tail")
    assert result.kind is None and any(k.startswith("ConsumerProtocolSubscription")
                                       for k in result.loose)
    assert "1 byte(s) left over" in result.error


def test_implausible_values_are_not_detected_but_a_forced_kind_still_shows_them():
    value = {"offset": 5, "metadata": "", "commit_timestamp": 42, "expire_timestamp": -1}
    data = codec.encode_record("OffsetCommitValue", value, 1)
    detected = decode_payload(data, "odd")
    assert detected.kind is None and "commit_timestamp 42" in detected.error
    forced = decode_payload(data, "odd", kind="OffsetCommitValue")
    assert forced.kind == "OffsetCommitValue" and not forced.exact
    plausible = codec.encode_record("OffsetCommitValue", {**value, "commit_timestamp":
                                                          1_700_000_000_000}, 1)
    assert decode_payload(plausible, "ok").kind == "OffsetCommitValue"


def test_odd_hex_is_a_hex_error_not_base64():
    with pytest.raises(ValueError, match="hex with an odd number of digits"):
        parse_payload_text("0003000")
    with pytest.raises(ValueError, match="base64"):
        parse_payload_text("zz-not-hex")


def test_ambiguity_is_listed_and_exits_1(capsys):
    sticky = next(g for g in golden_lines("StickyAssignorUserData")
                  if g["version"] == 1 and g["hex"])
    assert main(["decode", "payload", sticky["hex"]]) == 1
    err = capsys.readouterr().err
    assert "ambiguous: shown as StickyAssignorUserData" in err
    assert "CooperativeStickyAssignorUserData" in err


def test_a_cut_java_subscription_is_not_guessed_as_another_kind_read_out_of_place():
    """Issue 22: a truncated Subscription was guessed 'closest: OffsetCommitValue, string of
    27233 byte(s)' (its topic name's "ja" read as a length): a size larger than the whole
    input is another kind's bytes read out of place, never the closest."""
    data = codec.encode_subscription(["topic-java-sticky"], version=3)
    for cut in range(8, len(data)):
        error = decode_payload(data[:cut], "cut").error
        closest = error.split("closest: ")[1].split(";")[0]
        assert "27233" not in closest, (cut, error)
        assert "ConsumerProtocolSubscription" in error, (cut, error)  # closest, or ends so
    error = decode_payload(data[:20], "cut").error
    assert error.startswith("no kind fits these 20 bytes exactly; closest: "
                            "ConsumerProtocolSubscription, string of 17 byte(s) but only")
    assert error.endswith("would end so") and "a truncated ConsumerProtocolSubscription" in error
