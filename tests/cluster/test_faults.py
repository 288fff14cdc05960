"""Faults and bad input of inspect/watch that need no broker: a closed port, bad arguments,
client configs, secrets kept out of every output."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from assignframe.cli import build_parser, main
from assignframe.cluster.config import read_client_config
from assignframe.errors import InputError

SECRET = "s3cr3t-Pa55word"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once the socket is


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assignframe", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize("command", [["inspect"], ["watch"], ["decode", "offsets"]])
def test_unreachable_broker_ends_within_the_timeout(command, capsys):
    build_parser()  # imports done before the clock starts: the bound is on the command's work
    import kafka  # noqa: F401  (decode offsets imports kafka-python only for a live read)

    started = time.monotonic()
    code = main([*command, "--bootstrap-server", f"127.0.0.1:{_closed_port()}",
                 "--timeout", "3"])
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignframe: error: cannot connect to "), err
    assert "connection refused: nothing listens on that port" in lines[0] and out == ""
    assert "Unable to bootstrap" not in lines[0], lines[0]  # what it means, not the client's words
    assert elapsed < 3 + 1, elapsed


def test_secrets_never_appear(tmp_path):
    config = tmp_path / "client.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
        f'username="alice" password="{SECRET}";\nfetch.min.bytes=1\n')
    done = _cli("inspect", "--bootstrap-server", f"127.0.0.1:{_closed_port()}",
                "--command-config", str(config), "--timeout", "2", "--verbose", "--json")
    assert done.returncode == 2
    assert SECRET not in done.stdout + done.stderr
    assert "fetch.min.bytes is not used" in done.stderr  # named, never its value


@pytest.mark.parametrize("text, what", [
    ("security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n", "sasl.mechanism GSSAPI"),
    ("security.protocol=BOGUS\n", "security.protocol BOGUS"),
    ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n",
     "needs a user name and password"),
    ("security.protocol=SSL\nssl.truststore.type=JKS\nssl.truststore.location=/x.jks\n",
     "only PEM files"),
    ("security.protocol=SSL\nssl.ca.location=/nonexistent/ca.pem\n", "does not exist"),
])
def test_bad_client_configs_are_named(tmp_path, text, what):
    config = tmp_path / "client.properties"
    config.write_text(text + f"sasl.password={SECRET}\n")
    with pytest.raises(InputError) as caught:
        read_client_config(str(config))
    assert what in str(caught.value) and SECRET not in str(caught.value)


def test_client_config_reads_kafka_keys(tmp_path):
    config = tmp_path / "client.properties"
    config.write_text(
        "# Kafka tools' format\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n'
        f'  username="bob" password="{SECRET}";\nclient.id=ops\n')
    read = read_client_config(str(config))
    assert read.settings == {"security_protocol": "SASL_PLAINTEXT", "client_id": "ops",
                             "sasl_mechanism": "PLAIN", "sasl_plain_username": "bob",
                             "sasl_plain_password": SECRET}
    assert read.redact(f"password={SECRET}") == "password=****"
    assert SECRET not in str(read.describe())


@pytest.mark.parametrize("args, where", [
    (["--type", "classic,bogus"], "--type"),
    (["--timeout", "0"], "--timeout"),
    (["--group", "("], "--group"),
    (["--command-config", "/nonexistent/client.properties"],
     "cannot read the client config: No such file or directory (/nonexistent/client.properties)"),
])
@pytest.mark.parametrize("command", [["inspect"], ["watch"], ["decode", "offsets"]])
def test_bad_arguments_exit_2_with_one_line(command, args, where):
    if command[0] == "decode" and args[0] in ("--type", "--group"):
        return  # decode offsets reads every group: it has no filters
    done = _cli(*command, "--bootstrap-server", "127.0.0.1:1", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignframe: error:") and where in lines[0]
    assert "Error" not in lines[0], lines[0]  # a reason in words, not an exception's name
