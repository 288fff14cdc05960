"""Apache Kafka's group coordinator as a differential oracle (``shared/java/coordinator``).

``run-oracle.sh`` starts ``KafkaGroupOracle``: Kafka's own server assignors (``uniform``,
``range``, ``simple``) and member reconciliation (``CurrentAssignmentBuilder``) behind a JSON-lines
pipe, one response line per request line (``shared/java/README.md``, section ``coordinator/``).
A JVM takes most of a second to start and then answers in well under a millisecond for small
groups, so one process serves a whole test session: the pytest plugin's session fixture
``assignframe_java_oracle`` holds it, or by hand::

    with running_oracle() as oracle:
        oracle.assign("range", {"topics": {...}, "members": {...}})["result"]
        oracle.reconcile(step["input"])          # a step input of golden/kip848/reconcile.jsonl

Nothing here skips: a missing ``shared/java``, a missing Java or a Java other than 17 (the JDK
whose ``HashMap`` sizing Kafka's results, and ours, follow) raises :class:`JavaOracleError`
naming the missing piece. A request that gets no answer within ``timeout`` seconds, or a JVM that
dies, raises too (with the JVM's last stderr lines); the JVM is always stopped on close.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from .paths import shared_path

__all__ = [
    "JAVA_FEATURE_RELEASE",
    "TIMEOUT_ENV",
    "JavaOracle",
    "JavaOracleError",
    "OracleRequestError",
    "find_java",
    "oracle_script",
    "running_oracle",
]

#: The JDK whose results the oracle must give (JDK 19+ sizes ``new HashSet<>(c)`` differently).
JAVA_FEATURE_RELEASE = 17
#: Seconds one request may take before the oracle counts as hung (default 120).
TIMEOUT_ENV = "ASSIGNFRAME_ORACLE_TIMEOUT"
_STDERR_LINES_KEPT = 40
_EOF = None


class JavaOracleError(RuntimeError):
    """The oracle cannot run (names the missing piece), died, or stopped answering."""


class OracleRequestError(JavaOracleError):
    """The oracle answered a request with ``{"error": {"class", "message"}}``.

    :param java_class: the Java exception class (``KafkaGroupOracle$BadRequest`` for a malformed
        request, the assignor's own exception otherwise)
    """

    def __init__(self, java_class: str, message: str) -> None:
        super().__init__(f"{java_class}: {message}")
        self.java_class = java_class
        self.java_message = message


def oracle_script(shared: Path | None = None) -> Path:
    """``shared/java/coordinator/run-oracle.sh`` (``shared`` found as :func:`shared_path` does).

    :raises JavaOracleError: the shared directory, ``java/`` or the script is missing
    """
    try:
        root = shared or shared_path(Path(__file__))
    except FileNotFoundError as exc:
        raise JavaOracleError(f"the Java oracle needs the shared directory: {exc}") from None
    script = root / "java" / "coordinator" / "run-oracle.sh"
    jar = script.parent / "lib" / "kafka-group-oracle.jar"
    for needed in (root / "java", script, jar):
        if not needed.exists():
            raise JavaOracleError(
                f"{needed} is missing: the Java oracle is shared/java/coordinator "
                "(see shared/java/README.md); without it the differential tests cannot run"
            )
    return script


def find_java() -> str:
    """The ``java`` run-oracle.sh will use: ``$ORACLE_JAVA``, ``$JAVA_HOME/bin/java``, ``java``.

    :raises JavaOracleError: none exists (says what to install or set)
    """
    configured = os.environ.get("ORACLE_JAVA")
    if configured:
        if not os.access(configured, os.X_OK):
            raise JavaOracleError(f"ORACLE_JAVA={configured} is not an executable")
        return configured
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / "java", os.X_OK):
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise JavaOracleError(
            "no Java runtime: the Java oracle needs JDK 17 (Debian: apt-get install "
            "openjdk-17-jdk-headless), or ORACLE_JAVA / JAVA_HOME pointing at one"
        )
    return found


class JavaOracle:
    """One running ``KafkaGroupOracle`` JVM; requests go one at a time, in order.

    :param script: ``run-oracle.sh`` (:func:`oracle_script` when None)
    :param timeout: seconds a request may take (``$ASSIGNFRAME_ORACLE_TIMEOUT``, default 120)
    """

    def __init__(self, script: Path | None = None, timeout: float | None = None) -> None:
        self.script = script or oracle_script()
        self.timeout = timeout or float(os.environ.get(TIMEOUT_ENV, "120"))
        self.info: dict[str, Any] = {}
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES_KEPT)
        self._threads: list[threading.Thread] = []
        self._next_id = 0

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> JavaOracle:
        """Start the JVM and check it is Kafka's oracle on JDK 17.

        :raises JavaOracleError: no Java, the JVM did not answer, or it is not JDK 17
        """
        environment = dict(os.environ, ORACLE_JAVA=find_java())
        self._process = subprocess.Popen(
            self.command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
            text=True,
            encoding="utf-8",
        )
        assert self._process.stdout is not None and self._process.stderr is not None
        self._drain(self._process.stdout, self._lines.put, at_end=self._lines.put)
        self._drain(self._process.stderr, self._stderr.append)
        try:
            self.info = self.request({"op": "info"})["result"]
            self._check_java_version(str(self.info.get("java_version", "")))
        except BaseException:
            self.close()
            raise
        return self

    def command(self) -> list[str]:
        """The process to start (another JSON-lines oracle overrides it)."""
        return ["sh", str(self.script)]

    def close(self, grace: float = 10.0) -> None:
        """Stop the JVM (end of input; after ``grace`` seconds SIGTERM, then SIGKILL) and close
        its pipes."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.close()  # the oracle exits at the end of its input
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(30)  # SIGKILL cannot be refused: a deadline all the same
        for thread in self._threads:
            thread.join(5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> JavaOracle:
        return self if self._process is not None else self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # -- requests -------------------------------------------------------------------------------

    def request(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request object, return its response (without the echoed ``id``).

        :raises OracleRequestError: the oracle answered with an error object
        :raises JavaOracleError: it is not running, died, or did not answer in time
        """
        process = self._process
        if process is None or process.stdin is None:
            raise JavaOracleError("the Java oracle is not running (start() it first)")
        self._next_id += 1
        request_id = self._next_id
        # ensure_ascii: non-ASCII goes as \\uXXXX escapes, i.e. exactly Java's UTF-16 units
        line = json.dumps({"id": request_id, **payload}, ensure_ascii=True)
        try:
            process.stdin.write(line + "\n")
            process.stdin.flush()
        except OSError as exc:
            raise self._died(f"could not send a request ({exc})") from None
        response = self._read_response()
        if response.pop("id", None) != request_id:
            raise JavaOracleError(f"the oracle answered out of order: {response!r:.200}")
        error = response.get("error")
        if isinstance(error, dict):
            raise OracleRequestError(str(error.get("class")), str(error.get("message")))
        return response

    def assign(self, assignor: str, round_: Mapping[str, Any]) -> dict[str, Any]:
        """Java's answer for one assignor call.

        :param assignor: ``uniform``, ``range`` or ``simple``
        :param round_: a round of ``golden/kip848/assign.jsonl`` with its complete ``topics``
            (``members``, and ``unassignable`` / ``group_type`` / ``java_order`` when wanted)
        :returns: ``{"result": {member: [[topic, p], ...]}, "result_missing"?: [...]}``
        """
        return self.request({**round_, "op": "assign", "assignor": assignor})

    def reconcile(self, step_input: Mapping[str, Any]) -> dict[str, Any]:
        """``CurrentAssignmentBuilder.build()`` on one step input of
        ``golden/kip848/reconcile.jsonl``: the step's ``output`` object (with ``error`` when
        Java's builder threw, as in the file)."""
        output = self.request({"op": "reconcile", "input": step_input}).get("output")
        if not isinstance(output, dict):
            raise JavaOracleError(f"a reconcile response without an output object: {output!r}")
        return output

    # -- internals ------------------------------------------------------------------------------

    def _drain(self, stream: IO[str], sink: Any, at_end: Any = None) -> None:
        """Copy ``stream``'s lines to ``sink`` on a thread (a full pipe would block the JVM);
        ``at_end(None)`` marks the end of the stream."""

        def pump() -> None:
            with contextlib.suppress(ValueError, OSError):  # the stream closed under us
                for line in stream:
                    sink(line.rstrip("\n"))
            if at_end is not None:
                at_end(_EOF)

        thread = threading.Thread(target=pump, name="java-oracle-pipe", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _read_response(self) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close(grace=0)  # it is not reading its input: no point waiting
            raise JavaOracleError(
                f"the Java oracle gave no answer within {self.timeout:.0f} s "
                f"(stopped; set {TIMEOUT_ENV} to wait longer)"
            ) from None
        if line is _EOF:
            raise self._died("it exited")
        try:
            response = json.loads(line)
        except json.JSONDecodeError:
            raise JavaOracleError(
                f"the Java oracle wrote a line that is not JSON: {line!r:.200}"
            ) from None
        if not isinstance(response, dict):
            raise JavaOracleError(f"the Java oracle wrote a non-object: {line!r:.200}")
        return response

    def _died(self, what: str) -> JavaOracleError:
        process = self._process
        code = None
        if process is not None:
            try:  # its output ended: the JVM is exiting, and its exit code says why
                code = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        self.close()
        tail = "\n".join(self._stderr) or "(nothing on stderr)"
        return JavaOracleError(
            f"the Java oracle failed: {what} (exit code {code}); stderr:\n{tail}"
        )

    def _check_java_version(self, version: str) -> None:
        feature = version.split(".", 1)[0].split("+", 1)[0].split("-", 1)[0]
        if feature != str(JAVA_FEATURE_RELEASE):
            raise JavaOracleError(
                f"the Java oracle runs on Java {version or '?'}, but Kafka's results that "
                f"assignframe reproduces are JDK {JAVA_FEATURE_RELEASE}'s (HashSet sizing changed "
                f"in JDK 19): point ORACLE_JAVA or JAVA_HOME at a JDK {JAVA_FEATURE_RELEASE}"
            )


@contextlib.contextmanager
def running_oracle(
    shared: Path | None = None, timeout: float | None = None
) -> Iterator[JavaOracle]:
    """A started :class:`JavaOracle` for the ``with`` block; its JVM is stopped at the end."""
    oracle = JavaOracle(oracle_script(shared), timeout).start()
    try:
        yield oracle
    finally:
        oracle.close()
