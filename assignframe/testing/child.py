"""Child processes a test waits on, with deadlines that fire.

A :class:`Child` wraps a ``subprocess.Popen`` whose stdout and stderr are pipes: one reader
thread per pipe keeps every line, so a wait never blocks on ``readline()``. Waiting for a line
(:meth:`Child.wait_for_line`) ends at its deadline, or as soon as the child exits without
printing it, and fails with :class:`ChildTimeout` whose message says which child, what it was
waiting for, how it ended (or that it still runs), the end of its stderr and stdout (member
scripts print their state there as JSON lines), the stack it dumps on ``stack_signal`` (member
scripts register :mod:`faulthandler` on ``SIGUSR1``), and the end of the logs it names (the
broker's).

Every child still running is listed by :func:`running_children`: the project's pytest plugin
reports and kills them when a test runs out of time (see ``pytest_plugin``), so a hung test
fails alone and leaves nothing spinning behind it.

Only the standard library is imported: tests, their member scripts and ``assignframe demo``'s
brokers may use this without pytest.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .broker_base import tail

__all__ = ["Child", "ChildTimeout", "running_children"]

#: How many lines of a child's stderr (and stdout) a failure message shows.
TAIL_LINES = 40

#: How long a child may take to dump its stack on ``stack_signal`` before the message is built.
STACK_SECONDS = 2.0

_CHILDREN: weakref.WeakSet[Child] = weakref.WeakSet()

Wanted = str | re.Pattern[str] | Callable[[str], bool]


class ChildTimeout(AssertionError):
    """A child did not print what a test waited for in time, or exited first; the message says
    what it printed, how it ended, and where to look."""


class _Pipe:
    """The lines of one pipe, read by a daemon thread until end of file."""

    def __init__(self, stream: Any, changed: threading.Condition) -> None:
        self.lines: list[str] = []
        self.closed = False
        self._changed = changed
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        try:
            for line in stream:
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the child is gone
        finally:
            with self._changed:
                self.closed = True
                self._changed.notify_all()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


def _matcher(wanted: Wanted) -> Callable[[str], bool]:
    if isinstance(wanted, str):
        return lambda line: line.strip() == wanted
    if isinstance(wanted, re.Pattern):
        return lambda line: wanted.search(line) is not None
    return wanted


def _describe_wanted(wanted: Wanted) -> str:
    if isinstance(wanted, str):
        return repr(wanted)
    if isinstance(wanted, re.Pattern):
        return f"a line matching {wanted.pattern!r}"
    return f"a line satisfying {getattr(wanted, '__name__', 'the condition')}"


class Child:
    """A child process with its stdout and stderr read line by line in the background.

    :param process: started with ``stdout=PIPE, stderr=PIPE, text=True``
    :param name: what failure messages call it (e.g. ``member range-g/1``)
    :param logs: files whose end a failure message shows (the broker's log)
    :param stack_signal: a signal the child answers by printing its stack to stderr (member
        scripts: ``faulthandler.register(signal.SIGUSR1)``); None when it has no such handler
    """

    def __init__(
        self,
        process: subprocess.Popen[str],
        name: str,
        *,
        logs: Sequence[Path | None] = (),
        stack_signal: int | None = None,
    ) -> None:
        if process.stdout is None or process.stderr is None:
            raise ValueError(f"{name}: a Child needs stdout and stderr pipes")
        self.process, self.name = process, name
        self.logs = [path for path in logs if path is not None]
        self.stack_signal = stack_signal
        self._changed = threading.Condition()
        self._stdout = _Pipe(process.stdout, self._changed)
        self._stderr = _Pipe(process.stderr, self._changed)
        _CHILDREN.add(self)

    @classmethod
    def start(
        cls,
        command: Sequence[str],
        name: str | None = None,
        *,
        logs: Sequence[Path | None] = (),
        stack_signal: int | None = None,
        env: dict[str, str] | None = None,
        **popen: Any,
    ) -> Child:
        """Start ``command`` with piped, unbuffered, line-decoded output and watch it."""
        process = subprocess.Popen(
            list(command),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env={**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"},
            **popen,
        )
        return cls(process, name or " ".join(command[-4:]), logs=logs, stack_signal=stack_signal)

    # -- what it printed ------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def poll(self) -> int | None:
        return self.process.poll()

    def stdout_lines(self) -> list[str]:
        with self._changed:
            return list(self._stdout.lines)

    def stderr_lines(self) -> list[str]:
        with self._changed:
            return list(self._stderr.lines)

    def wait_for_line(
        self, wanted: Wanted, timeout: float, *, stream: str = "stdout", since: int = 0
    ) -> str:
        """The first line of ``stream`` (from its line ``since`` on) that is ``wanted`` (a
        string: the line stripped equals it; a compiled pattern: it matches; or a predicate).

        :raises ChildTimeout: ``timeout`` seconds passed, or the pipe closed (the child exited)
            before such a line came
        """
        pipe = self._stdout if stream == "stdout" else self._stderr
        matches = _matcher(wanted)
        deadline = time.monotonic() + timeout
        seen, found = since, None
        with self._changed:
            while found is None:
                found = next((line for line in pipe.lines[seen:] if matches(line)), None)
                seen = max(seen, len(pipe.lines))
                remaining = deadline - time.monotonic()
                if found is not None or pipe.closed or remaining <= 0:
                    break
                self._changed.wait(min(remaining, 1.0))
        if found is not None:
            return found
        if pipe.closed:  # it is exiting: let the message say how it ended
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        why = "its " + stream + " closed" if pipe.closed else f"{timeout:.0f} s passed"
        raise ChildTimeout(
            f"{self.name} never printed {_describe_wanted(wanted)} on {stream} ({why})\n"
            + self.describe()
        )

    def wait(self, timeout: float) -> int:
        """Its exit code once it exited.

        :raises ChildTimeout: it still runs after ``timeout`` seconds (it is left running)
        """
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ChildTimeout(
                f"{self.name} did not exit within {timeout:.0f} s\n" + self.describe()
            ) from None

    def communicate(self, timeout: float) -> tuple[str, str]:
        """Wait until it exits (see :meth:`wait`), then all it printed: (stdout, stderr)."""
        self.wait(timeout)
        self._join_readers()
        return "\n".join(self.stdout_lines()), "\n".join(self.stderr_lines())

    # -- stopping -------------------------------------------------------------------------

    def send_signal(self, signum: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL (no clean-up in the child: a member leaves no LeaveGroup)."""
        if self.process.poll() is None:
            self.process.kill()

    def stop(self, timeout: float = 30.0) -> None:
        """Kill it if it still runs and reap it; its output stays readable."""
        self.kill()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass  # stuck in the kernel: describe() will say it still runs
        self._join_readers()

    def _join_readers(self) -> None:
        self._stdout.join(5)
        self._stderr.join(5)
        for pipe, stream in ((self._stdout, self.process.stdout),
                             (self._stderr, self.process.stderr)):
            if pipe.closed and stream is not None:  # else a grandchild still holds it open
                stream.close()

    # -- failure messages -----------------------------------------------------------------

    def dump_stack(self) -> None:
        """Ask a running child for its stack (on stderr) and give it :data:`STACK_SECONDS`."""
        if self.stack_signal is None or self.process.poll() is not None:
            return
        with self._changed:
            before = len(self._stderr.lines)
        self.process.send_signal(self.stack_signal)
        deadline = time.monotonic() + STACK_SECONDS
        with self._changed:
            while time.monotonic() < deadline and not self._stderr.closed:
                if any("most recent call first" in line for line in self._stderr.lines[before:]):
                    self._changed.wait(0.2)  # the rest of the dump follows at once
                    break
                self._changed.wait(0.1)

    def describe(self, lines: int = TAIL_LINES) -> str:
        """Who it is, whether it runs, its stack if it can dump one, the end of its stderr and
        stdout, and the end of each of its logs."""
        code = self.process.poll()
        if code is None:
            self.dump_stack()
            state = "still running"
        else:
            state = f"exited with code {code}"
        command = " ".join(str(arg) for arg in self.process.args)  # type: ignore[union-attr]
        parts = [f"--- {self.name} (pid {self.pid}, {state}): {command}"]
        for label, text in (("stderr", self.stderr_lines()), ("stdout", self.stdout_lines())):
            shown = text[-lines:]
            cut = f", last {len(shown)} of {len(text)} lines" if len(text) > len(shown) else ""
            body = "\n" + "\n".join(shown) if shown else " (empty)"
            parts.append(f"--- its {label}{cut}:{body}")
        for log in self.logs:
            parts.append(f"--- end of {log}:\n{tail(log, lines)}")
        return "\n".join(parts)


def running_children() -> list[Child]:
    """Every :class:`Child` of this process that still runs."""
    return [child for child in list(_CHILDREN) if child.process.poll() is None]

