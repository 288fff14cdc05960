"""Captured classic groups: ConsumerProtocol payloads embedded in JoinGroup/SyncGroup
(:mod:`.embedded`), one timeline entry per generation (:mod:`.timeline`), each generation as
the core's typed snapshot (:mod:`.snapshots`), what changed between generations and their
metrics (:mod:`.analysis`) and ``--replay STRATEGY`` (:mod:`.what_if`). It imports the core
model, the snapshot, the plugin manager and :mod:`..traffic`; never the KIP-848 side.
"""
