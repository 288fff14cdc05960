"""The live cluster reader: what ``assignframe inspect`` and ``assignframe watch`` see of a
running Kafka cluster, read strictly without changing it.

It owns the transport glue (kafka-python connects, authenticates and negotiates; every request
and response body is the codec's), the client settings of ``--command-config`` and the masking
of their secrets, the reading of groups through ListGroups, FindCoordinator, DescribeGroups,
ConsumerGroupDescribe, OffsetFetch, ListOffsets and Metadata (and of each classic group's
generation from its record in ``__consumer_offsets``, and of the heartbeat interval and session
timeout its migration prediction assumes through DescribeConfigs), the typed group snapshots
built from what was read, the fleet verdicts (through the audit's functions) and the watch loop
with its history and metrics. It may import the codec, the core model, the snapshot and the
other tools (audit); it never imports an adapter (``assignframe.kafka_python``): kafka-python is
used here only as a transport. Read-only: no request it sends joins, leaves, heartbeats or
commits.
"""
