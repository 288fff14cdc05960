"""Captured consumer-protocol (KIP-848), share (KIP-932) and Streams (KIP-1071) groups:
ConsumerGroupHeartbeat and ConsumerGroupDescribe, ShareGroupHeartbeat and ShareGroupDescribe,
StreamsGroupHeartbeat and StreamsGroupDescribe traffic into timelines of epochs and typed
snapshots (:mod:`.timeline`, one mechanism for the three heartbeat APIs), the partitions nobody
consumed while consumer-protocol members reconciled (:mod:`.handover`), what a share group's
epoch is judged by (:mod:`.share`) and a Streams group's tasks, topology and epochs
(:mod:`.streams`, no snapshot). It imports the core model, the snapshot, the core's
reconciliation (``assignframe.kip848``) and :mod:`..traffic`; never the classic side.
"""
