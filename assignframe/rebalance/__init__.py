"""The rebalance machinery: groups of members playing rebalances as real clients and brokers do.

What it owns: the classic group runner (:mod:`.runner`, with what its rounds are made of and
produce in :mod:`.rounds`), the client-independent half of the consumer adapters (:mod:`.bridge`),
each member's own options read back from its user data (:mod:`.preferences`), and the
consumer-protocol (KIP-848) group: target assignment and the online upgrade rules
(:mod:`.consumer_group`), with the coordinator's chaining of targets through its records
(:mod:`.server_chain`), each member's reconciliation at a heartbeat exactly as Kafka's
coordinator does it (:mod:`.reconcile`) and the group converging on a target heartbeat by
heartbeat (:mod:`.convergence`).

What it may import: the root's model and metrics, the plugin machinery and the classic protocol.
Nothing above it: replay and the tools use it; it uses none of them.
"""
