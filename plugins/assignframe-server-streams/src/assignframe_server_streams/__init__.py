"""``streams:sticky``: the broker's Streams-group task assignor (KIP-1071), Apache Kafka 4.3.1's
``StickyTaskAssignor`` (group-coordinator ``streams.assignor``), reproduced result for result
(JDK 17 tie-breaks included): active tasks stay with their previous owner while it is under its
quota, then go to previous standby owners, then to the least loaded process; standby tasks
(``num_standby_replicas`` per stateful task, never on the process running the task) likewise.
4.3.1 assigns no warm-up tasks.
"""

from __future__ import annotations

from assignframe import hookimpl

from ._sticky import StickyTaskAssignor, TaskAssignorFailure

__all__ = ["StickyTaskAssignor", "TaskAssignorFailure"]


@hookimpl
def register_strategies(registry):
    registry.add(StickyTaskAssignor)
