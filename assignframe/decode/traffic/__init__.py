"""Captured network traffic to Kafka messages: pcap/pcapng files into TCP segments
(:mod:`.pcap`), segments into in-order streams (:mod:`.tcp`), streams into Kafka frames matched
by correlation id (:mod:`.frames`) and frames into the field dicts of the group APIs the
timelines read (:mod:`.messages`). It knows no group protocol; it imports the codec and
:mod:`..problems` only.
"""
