"""Captured consumer-protocol (KIP-848) groups: ConsumerGroupHeartbeat and
ConsumerGroupDescribe traffic into timelines of epochs and typed snapshots (:mod:`.timeline`)
and the partitions nobody consumed while members reconciled (:mod:`.handover`). It imports the
core model, the snapshot, the core's reconciliation (``assignframe.kip848``) and
:mod:`..traffic`; never the classic side.
"""
