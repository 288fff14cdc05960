"""The consumer protocol (KIP-848), in one place: what the broker's group coordinator does.

What it owns: the group's target assignment, the coordinator's call of its server assignor and
the online upgrade rules (:mod:`.group`), the chaining of targets through the coordinator's
records (:mod:`.chain`), whether a server assignor's result is valid (:mod:`.validity`), each
member's reconciliation at a heartbeat as Kafka's ``CurrentAssignmentBuilder`` does it
(:mod:`.reconcile`), a group converging on a target heartbeat by heartbeat
(:mod:`.convergence`), and the heartbeat interval and session timeout a group runs with, with
Kafka's defaults (:mod:`.timing`). The classic protocol's rules are :mod:`assignframe.classic`; the
classic group runner is :mod:`assignframe.rebalance`.

What it may import: the root's model, metrics and server-assignor interface, and the plugin
machinery (to find a server assignor by name). Nothing above it: replay, the simulator, decode
and the audit use it; it uses none of them, nor the classic runner.
"""

__all__: list[str] = []
