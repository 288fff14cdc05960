"""The rebalance machinery: the classic group runner and the consumer bridge, each member's options,
and the consumer-protocol (KIP-848) group with its member reconciliation."""
