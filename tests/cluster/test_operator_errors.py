"""Errors that send the operator the right way (issue 31, item 6), with no broker: each way a
connection fails told apart in one line (a closed port, a name that does not resolve, an HTTP
port, a listener that never answers), invalid ports, a metrics port in use, an output that
cannot be written, a JKS store given as PEM, secrets masked by field, and Ctrl-C (a real SIGINT)
ending any command with 130 and no traceback. The broker's side (SASL against a PLAINTEXT
listener, a wrong password, TLS against plain text) is in test_security.py."""

from __future__ import annotations

import http.server
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from assignframe.cluster.config import ClientConfig, read_client_config
from assignframe.errors import InputError


def _cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assignframe", *args], capture_output=True,
                          text=True, timeout=timeout)


def _one_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignframe: error: "), done.stderr
    assert "Traceback" not in done.stderr and "Unable to bootstrap" not in lines[0]
    return lines[0]


@pytest.fixture
def silent_listener():
    """A port that accepts connections and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(10)
    for conn in accepted:
        conn.close()
    server.close()


@pytest.fixture
def http_port():
    """A real HTTP server (the standard library's), as a REST or metrics port would be."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(10)


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("command", [["inspect"], ["decode", "offsets"]])
def test_each_connection_failure_says_what_it_is(command, silent_listener, http_port):
    said = {}
    for name, address in (("refused", _closed_port()), ("dns", "no-such-host.invalid:9092"),
                          ("http", http_port), ("silent", silent_listener)):
        said[name] = _one_error(_cli(*command, "--bootstrap-server", address, "--timeout", "4"))
    assert "connection refused: nothing listens on that port" in said["refused"]
    assert "cannot resolve host name 'no-such-host.invalid'" in said["dns"]
    assert "an HTTP server answered, not Kafka" in said["http"]
    assert "accepted the connection but answered nothing" in said["silent"]
    assert len(set(said.values())) == 4  # told apart
    for line in said.values():
        assert line.endswith("(--bootstrap-server)")


_BAD_BOOTSTRAP = [
    (["--bootstrap-server", "host:51709x"], "port '51709x' of host:51709x is not a number"),
    (["--bootstrap-server", "host:70000"], "port '70000' of host:70000 is not a number"),
    (["--bootstrap-server", "host"], "expected HOST:PORT, got 'host'"),
]
_BAD_METRICS_PORT = [  # watch's option only
    (["--bootstrap-server", "127.0.0.1:1", "--metrics-port", "70000"],
     "expected a port number 0-65535, got '70000'"),
    (["--bootstrap-server", "127.0.0.1:1", "--metrics-port", "x1"], "expected a port number"),
]


@pytest.mark.parametrize("command, args, what", [
    *[(command, args, what) for command in ("inspect", "watch") for args, what in _BAD_BOOTSTRAP],
    *[("watch", args, what) for args, what in _BAD_METRICS_PORT],
])
def test_invalid_ports_are_one_line(command, args, what):
    line = _one_error(_cli(command, *args))
    assert what in line, line


def test_a_metrics_port_in_use_names_the_option_and_the_port():
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = _one_error(_cli("watch", "--bootstrap-server", _closed_port(), "--metrics-port",
                               str(port), "--duration", "1"))
    assert f"cannot serve metrics on port {port}: Address already in use (--metrics-port)" in line


def test_an_unwritable_output_says_cannot_write(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    line = _one_error(_cli("inspect", "--bootstrap-server", _closed_port(), "--timeout", "30",
                           "--out", str(blocker / "out")))
    assert "cannot write: " in line and "cannot read" not in line, line
    assert "connection refused" not in line  # said before the cluster is tried
    line = _one_error(_cli("simulate", "--shipped", "--out", str(blocker / "sim.jsonl")))
    assert "cannot write: " in line, line


def test_a_jks_store_is_refused_by_its_content(tmp_path):
    store = tmp_path / "truststore.jks"
    store.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02" + bytes(64))  # JKS magic, version 2
    config = tmp_path / "client.properties"
    config.write_text(f"security.protocol=SSL\nssl.truststore.location={store}\n")
    with pytest.raises(InputError) as caught:
        read_client_config(str(config))
    assert "ssl.truststore.location is a JKS store, not PEM" in str(caught.value)
    assert "keytool -exportcert -rfc" in str(caught.value)
    line = _one_error(_cli("inspect", "--bootstrap-server", _closed_port(), "--command-config",
                           str(config)))
    assert "is a JKS store, not PEM" in line and str(config) in line


def test_secrets_are_masked_by_field_not_by_text(tmp_path):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                      "sasl.username=u\nsasl.password=p\n")
    read = read_client_config(str(config))
    text = "Unable to bootstrap from 127.0.0.1 password=p {'sasl_plain_password': 'p'}"
    assert read.redact(text) == ("Unable to bootstrap from 127.0.0.1 password=**** "
                                 "{'sasl_plain_password': '****'}")
    long = ClientConfig(secrets=("s3cr3t-Pa55word",))
    assert long.redact("got s3cr3t-Pa55word back") == "got **** back"  # a long one anywhere
    line = _one_error(_cli("inspect", "--bootstrap-server", _closed_port(), "--command-config",
                           str(config), "--timeout", "3"))
    assert "connection refused: nothing listens on that port" in line and "****" not in line


def _interrupted(args: list[str], started_when: str | None, **popen) -> subprocess.CompletedProcess:
    """Run ``assignframe ARGS`` through ``assignframe.cli.main`` (what the console script
    calls) and send it a real SIGINT once it runs the command: after it said ``started_when``
    on stderr, else 1 s after its imports are done."""
    code = ("import sys; import assignframe.cli as cli; print('imported', file=sys.stderr, "
            "flush=True); sys.exit(cli.main(sys.argv[1:]))")
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **popen)
    seen: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in process.stderr:
            seen.append(line)
            if (started_when or "imported") in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(120), "".join(seen)
        if started_when is None:
            time.sleep(1.0)
        assert process.poll() is None, "".join(seen)  # still working: the signal interrupts it
        process.send_signal(signal.SIGINT)
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    reader.join(30)
    stdout = process.stdout.read()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    return subprocess.CompletedProcess(args, process.returncode, stdout,
                                       "".join(seen).replace("imported\n", "", 1))


@pytest.mark.parametrize("command, started_when", [
    (["inspect", "--timeout", "120", "-v"], "probing 127.0.0.1"),
    (["watch", "--timeout", "120", "-v"], "probing 127.0.0.1"),
    (["decode", "offsets", "--timeout", "120"], None),
])
def test_ctrl_c_exits_130_without_a_traceback(command, started_when, silent_listener):
    done = _interrupted([*command, "--bootstrap-server", silent_listener], started_when)
    assert done.returncode == 130, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "assignframe: interrupted"


def test_ctrl_c_while_a_command_waits_for_stdin_exits_130():
    done = _interrupted(["replay", "-"], None, stdin=subprocess.PIPE)
    assert done.returncode == 130, done.stderr[-3000:]
    assert done.stderr.strip() == "assignframe: interrupted"


@pytest.mark.parametrize("first", ["silent", "refused"])
def test_a_dead_first_address_leaves_the_next_its_time(kafka, silent_listener, first, tmp_path):
    """``--bootstrap-server DEAD,BROKER``: the first address gets its share of ``--timeout``,
    not all of it, and kafka-python connects through the broker that answered (issue 31 review:
    a silent first address used to fail the whole command). The group's commit is read, and its
    classic generation reader goes through the same broker (no notice, exit 0)."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.structs import OffsetAndMetadata

    admin = KafkaAdminClient(bootstrap_servers=kafka)
    try:
        admin.create_topics([NewTopic(f"two-addresses-{first}", 1, 1)])
    finally:
        admin.close()
    committer = KafkaConsumer(bootstrap_servers=kafka, group_id=f"two-addresses-{first}",
                              enable_auto_commit=False)
    try:
        committer.commit({TopicPartition(f"two-addresses-{first}", 0):
                          OffsetAndMetadata(0, "", -1)})
    finally:
        committer.close()
    dead = silent_listener if first == "silent" else _closed_port()
    done = _cli("inspect", "--bootstrap-server", f"{dead},{kafka}", "--group",
                f"two-addresses-{first}", "--timeout", "8", "--format", "tsv")
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0][0] == "group" and [r[0] for r in rows[1:]] == [f"two-addresses-{first}"], rows
