"""The Java oracle client: Kafka's coordinator answers over one pipe, failures are loud."""

from __future__ import annotations

import itertools
import json
import stat
from pathlib import Path

import pytest

from assignframe.testing import server_golden
from assignframe.testing.java_oracle import (
    JavaOracle,
    JavaOracleError,
    OracleRequestError,
    find_java,
    oracle_script,
)
from assignframe.testing.paths import shared_path

TOPIC = {"t": {"id": "kzI7A9hkT_uj9I0EGzCSHA", "partitions": 3}}


def member(*topics: str) -> dict:
    return {"instance_id": None, "rack": None, "topics": list(topics), "current": []}


def test_the_session_oracle_is_kafkas_coordinator_on_jdk_17(assignframe_java_oracle):
    info = assignframe_java_oracle.info
    assert info["kafka_commit"] == "d79bd502ec7fa49335afa422f442af80ed0ab8f6"
    assert info["java_version"].startswith("17")
    assert set(info["assignors"]) == {"uniform", "range", "simple"}


def test_assign_answers_the_readmes_example(assignframe_java_oracle):
    answer = assignframe_java_oracle.assign("range", {"topics": TOPIC, "members": {
        "a": member("t"), "b": member("t")}})  # fmt: skip
    assert answer == {"result": {"a": [["t", 0], ["t", 1]], "b": [["t", 2]]}}


def test_assign_gives_the_recorded_result_of_golden_rounds(assignframe_java_oracle):
    checked = 0
    small = [s for s in server_golden.scenarios(start=__file__) if "large" not in s["category"]]
    for scenario in small[::20]:
        topics = scenario["topics"]
        for round_ in scenario["rounds"]:
            topics = round_.get("topics", topics)
            request = {**round_, "topics": topics, "group_type": scenario["group_type"]}
            answer = assignframe_java_oracle.assign(scenario["assignor"], request)
            assert answer["result"] == round_["result"], f"{scenario['id']} {round_['round']}"
            checked += 1
    assert checked > 30


def test_reconcile_gives_the_recorded_output_of_golden_steps(assignframe_java_oracle):
    path = shared_path(__file__) / "golden" / "kip848" / "reconcile.jsonl"
    with path.open(encoding="utf-8") as lines:
        cases = [json.loads(line) for line in itertools.islice(lines, 0, None, 10)]
    steps = [step for case in cases for step in case["steps"]]
    for step in steps:
        assert assignframe_java_oracle.reconcile(step["input"]) == step["output"]
    assert len(steps) > 50


def test_a_bad_request_names_the_field_and_the_oracle_carries_on(assignframe_java_oracle):
    with pytest.raises(OracleRequestError, match="topics") as raised:
        assignframe_java_oracle.assign("range", {"members": {}})
    assert raised.value.java_class == "KafkaGroupOracle$BadRequest"
    with pytest.raises(OracleRequestError, match="assignor"):
        assignframe_java_oracle.assign("sticky", {"topics": TOPIC, "members": {}})
    assert assignframe_java_oracle.assign("range", {"topics": TOPIC, "members": {}}) == {
        "result": {}
    }


def test_non_ascii_ids_cross_the_pipe_as_javas_utf16(assignframe_java_oracle):
    # "😀" (two UTF-16 units, D83D DE00) sorts before "Ａ" (FF21) in Java: range gives it the
    # first range.
    answer = assignframe_java_oracle.assign("range", {"topics": TOPIC, "members": {
        "\uff21": member("t"), "\U0001f600": member("t")}})  # fmt: skip
    assert answer["result"] == {"\U0001f600": [["t", 0], ["t", 1]], "\uff21": [["t", 2]]}


def test_close_stops_the_jvm_and_a_closed_oracle_refuses_requests():
    oracle = JavaOracle(oracle_script(shared_path(__file__))).start()
    process = oracle._process
    assert oracle.running and process is not None
    oracle.close()
    assert not oracle.running and process.poll() is not None
    with pytest.raises(JavaOracleError, match="not running"):
        oracle.request({"op": "info"})


def test_missing_shared_java_is_named(tmp_path):
    (tmp_path / "golden").mkdir()
    with pytest.raises(JavaOracleError, match=r"java is missing.*shared/java/README.md"):
        oracle_script(tmp_path)


def test_missing_java_is_named(monkeypatch, tmp_path):
    monkeypatch.delenv("ORACLE_JAVA", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaOracleError, match="no Java runtime.*JDK 17"):
        find_java()
    monkeypatch.setenv("ORACLE_JAVA", str(tmp_path / "java"))
    with pytest.raises(JavaOracleError, match="ORACLE_JAVA=.* is not an executable"):
        find_java()


def fake_java(tmp_path: Path, body: str) -> Path:
    """An executable run-oracle.sh will start instead of Java (it ignores the JVM arguments)."""
    script = tmp_path / "java"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_a_java_other_than_17_is_refused(monkeypatch, tmp_path):
    answer = '{"id": 1, "result": {"java_version": "21.0.2+13"}}'
    monkeypatch.setenv("ORACLE_JAVA", str(fake_java(tmp_path, f"read line; echo '{answer}'\n")))
    with pytest.raises(JavaOracleError, match="runs on Java 21.0.2.*JDK 17"):
        JavaOracle(oracle_script(shared_path(__file__))).start()


def test_a_dying_jvm_is_reported_with_its_stderr(monkeypatch, tmp_path):
    body = "echo 'Error: could not reserve enough space' >&2; exit 3\n"
    monkeypatch.setenv("ORACLE_JAVA", str(fake_java(tmp_path, body)))
    with pytest.raises(JavaOracleError, match=r"(?s)exit code 3.*could not reserve"):
        JavaOracle(oracle_script(shared_path(__file__))).start()


def test_a_hung_jvm_times_out_and_is_stopped(monkeypatch, tmp_path):
    monkeypatch.setenv("ORACLE_JAVA", str(fake_java(tmp_path, "exec sleep 600\n")))
    oracle = JavaOracle(oracle_script(shared_path(__file__)), timeout=1.0)
    with pytest.raises(JavaOracleError, match="no answer within 1 s"):
        oracle.start()
    assert not oracle.running
