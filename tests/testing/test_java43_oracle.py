"""The Kafka 4.3.1 oracle: compiled from our source against broker-4.3's jars, loud failures."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from assignframe.testing import java43_oracle
from assignframe.testing.java43_oracle import (
    CACHE_ENV,
    Kafka43Oracle,
    compiled_oracle,
    kafka43_classpath,
)
from assignframe.testing.java_oracle import JavaOracleError, OracleRequestError, find_java


def test_the_session_oracle_is_kafka_4_3_1_on_jdk_17(assignframe_java43_oracle):
    info = assignframe_java43_oracle.info
    assert info["kafka_version"] == "4.3.1"
    assert info["kafka_commit"].startswith("26b251a451")
    assert info["java_version"].startswith("17")
    assert set(info["ops"]) == {"info", "share_assign", "streams_assign", "message"}


def test_a_malformed_request_is_refused_and_the_oracle_carries_on(assignframe_java43_oracle):
    with pytest.raises(OracleRequestError) as refused:
        assignframe_java43_oracle.streams_assign({"subtopologies": {}, "members": "x"})
    assert refused.value.java_class == "Kafka43Oracle$BadRequest"
    assert "members: expected a list" in refused.value.java_message
    answer = assignframe_java43_oracle.streams_assign(
        {
            "subtopologies": {"0": {"partitions": 1}},
            "members": [{"member_id": "m", "process_id": "p"}],
        }  # fmt: skip
    )
    assert answer == {"result": {"m": {"active": [["0", 0]], "standby": [], "warmup": []}}}


def test_only_the_share_assignor_is_asked_through_assign(assignframe_java43_oracle):
    with pytest.raises(JavaOracleError, match="share assignor only"):
        assignframe_java43_oracle.assign("uniform", {"topics": {}, "members": {}})


def test_a_shared_directory_without_broker_4_3_fails_naming_it(tmp_path):
    (tmp_path / "golden").mkdir()
    with pytest.raises(JavaOracleError, match="broker-4.3"):
        kafka43_classpath(tmp_path)
    with pytest.raises(JavaOracleError, match="broker-4.3"):
        Kafka43Oracle(tmp_path)


def test_no_javac_fails_saying_what_to_install(tmp_path, monkeypatch):
    java = tmp_path / "bin" / "java"  # a java with no javac beside it, and none on PATH
    java.parent.mkdir()
    java.write_text(f'#!/bin/sh\nexec {find_java()} "$@"\n')
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(java.parent))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))  # nothing compiled yet
    with pytest.raises(JavaOracleError, match="no javac"):
        compiled_oracle(kafka43_classpath(), str(java))


def test_compiled_once_into_the_cache_never_into_shared(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    classes = compiled_oracle(kafka43_classpath())
    assert (classes / "Kafka43Oracle.class").is_file()
    assert classes.parent == tmp_path and compiled_oracle(kafka43_classpath()) == classes
    assert java43_oracle.ORACLE_SOURCE.is_file() and os.access(java43_oracle.ORACLE_SOURCE, os.R_OK)
    assert not list(Path(tmp_path).glob("building-*"))  # no half-built directory left
