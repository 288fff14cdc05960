"""Captured consumer-protocol (KIP-848) and share (KIP-932) groups: ConsumerGroupHeartbeat and
ConsumerGroupDescribe, ShareGroupHeartbeat and ShareGroupDescribe traffic into timelines of epochs
and typed snapshots (:mod:`.timeline`, one mechanism for both heartbeat APIs), the partitions
nobody consumed while consumer-protocol members reconciled (:mod:`.handover`) and what a share
group's epoch is judged by (:mod:`.share`). It imports the core model, the snapshot, the core's
reconciliation (``assignframe.kip848``) and :mod:`..traffic`; never the classic side.
"""
