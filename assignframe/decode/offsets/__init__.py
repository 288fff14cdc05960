"""``__consumer_offsets`` records as decode reads them: the records themselves from hex, files
or a broker (:mod:`.records`), a consumer-protocol group's state rebuilt from its records
(:mod:`.group_state`; share and Streams groups: :mod:`.share_streams_state`) and every group with
members as the core's typed snapshot (:mod:`.snapshots`; share and Streams snapshots:
:mod:`.share_streams_snapshots`). It imports the codec, the core model and snapshot, and
:mod:`..payload`.
"""
