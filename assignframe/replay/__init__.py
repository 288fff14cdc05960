"""Recorded groups played again: scenario files, group files, and their replays.

What it owns: reading scenario files (rounds of a recorded history, the golden ``assign.jsonl``
format) and checking their shape (:mod:`.scenario`); group files, one group's subscriptions as
people write them for ``assignframe assign`` (:mod:`.groupfile`); replaying a classic scenario
round by round through the group runner (:mod:`.classic`); replaying KIP-848 server-assignor
scenarios, chained as the coordinator chains them (:mod:`.server`); and KIP-848 member
reconciliation cases, the layout of Kafka's own reconciliation steps read, written and replayed
(:mod:`.reconcile`).

What it may import: the root, the plugin machinery, the classic protocol and the rebalance
machinery. The tools (decode, simulate, audit, report) and the CLI sit above it.
"""
