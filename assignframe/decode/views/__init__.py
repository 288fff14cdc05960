"""What decode writes: the rich text a person reads (:mod:`.console` for classic timelines,
payloads, records and rebuilt states; :mod:`.kip848_text` for consumer-protocol groups) and
the JSON lines other tools read back (:mod:`.jsonl`, the core snapshot's serialization plus
what decode saw). Views compute no metric; they import the protocol and offsets packages above.
"""
