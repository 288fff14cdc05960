"""A group member speaking a heartbeat API through ``assignframe_codec``, for what real clients
never do on purpose in a test (choose their member id, keep what they were asked to give up).

:class:`RawMember` finds the group's coordinator (node 1 of a one-node test broker), beats once,
then heartbeats on its own thread every ``interval`` seconds until :meth:`RawMember.leave`,
which sends the leave heartbeat (epoch -1). An exception on the thread is kept in ``errors`` for
the test to read. A subclass says which request it sends (:attr:`RawMember.REQUEST`), builds
its body and reads the answer (:meth:`RawMember._beat`).
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

from ..cluster.config import read_client_config
from ..cluster.transport import Transport

__all__ = ["RawMember"]


class RawMember:
    """The heartbeat loop; subclasses set the request and build the body."""

    #: the heartbeat request's codec name (``ConsumerGroupHeartbeatRequest``, ...)
    REQUEST: ClassVar[str]
    #: its version
    VERSION: ClassVar[int] = 0

    def __init__(self, bootstrap: str, group: str, member_id: str, interval: float) -> None:
        self.group, self.member_id, self.interval = group, member_id, interval
        self.epoch = 0
        self.errors: list[str] = []
        self._transport = Transport(bootstrap, read_client_config(None), 10)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"raw-member-{member_id}")

    def start(self) -> None:
        """Find the coordinator, beat once, then keep beating on the thread."""
        self._find_coordinator()
        self._beat()
        self._thread.start()

    def send(self, body: dict[str, Any]) -> Any:
        """One heartbeat to node 1; the decoded answer."""
        return self._transport.send(1, self.REQUEST, body, self.VERSION)

    def _beat(self) -> None:
        raise NotImplementedError

    def _leave_body(self) -> dict[str, Any]:
        raise NotImplementedError

    def _find_coordinator(self, seconds: float = 60) -> None:
        """FindCoordinator until node 1 says it coordinates the group (the first lookup on a
        fresh broker creates __consumer_offsets; before that every heartbeat is refused
        NOT_COORDINATOR)."""
        import assignframe_codec as codec

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = self._transport.send(
                1, "FindCoordinatorRequest", codec.find_coordinator_request([self.group], 4), 4)
            found = codec.coordinators(answer, [self.group])
            if found and found[0].error_code == 0:
                return
            time.sleep(0.5)
        raise AssertionError(f"no coordinator for {self.group} within {seconds} s")

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._beat()
            except Exception as exc:  # the test reads it
                self.errors.append(repr(exc))

    def leave(self, seconds: float = 30) -> None:
        """Stop heartbeating and leave the group (epoch -1)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(seconds)
        try:
            self.epoch = -1
            self.send(self._leave_body())
        finally:
            self._transport.close()
