"""The reader's share-group step: each share-partition's start offset and lag
(DescribeShareGroupOffsets, Kafka 4.0+; the lag from v1, Kafka 4.3), per coordinator in batches.

Share groups commit no offsets (OffsetFetch answers GROUP_ID_NOT_FOUND for them): the broker
keeps a start offset per share-partition instead, below which every record is acknowledged. A
broker without the API is said once (which API, which broker) and the groups' backlog stays
unknown; a group whose answer carries an error keeps no offsets (unknown, never 0).
"""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

from ..model import TopicPartition
from .api_support import GROUPS_PER_REQUEST

__all__ = ["read_share_offsets"]



def read_share_offsets(run: Any, groups: dict[str, Any]) -> None:
    """Set ``share_offsets`` (partition -> (start offset, lag), Kafka's -1 for unknown) of every
    described share group (the reader's ``GroupRead``s, which import this module: hence no type
    names here); ``run`` is the reader's pass (its ``send`` says a missing API)."""
    by_node: dict[int, list[Any]] = {}
    for group in groups.values():
        if group.group_type == "share" and group.described is not None \
                and group.coordinator is not None:
            by_node.setdefault(group.coordinator, []).append(group)
    for node, members in sorted(by_node.items()):
        for start in range(0, len(members), GROUPS_PER_REQUEST):
            _ask(run, node, members[start:start + GROUPS_PER_REQUEST])


def _ask(run: Any, node: int, batch: list[Any]) -> None:
    ids = [g.group_id for g in batch]
    response = run.send(node, "DescribeShareGroupOffsets",
                        lambda v: codec.describe_share_group_offsets_request(ids, v))
    if response is None:
        return
    by_id = {g.group_id: g for g in batch}
    for answered in response.groups:
        group = by_id.get(answered.group_id)
        if group is None:
            continue
        if answered.error_code:
            group.share_offsets_error = codec.error_name(answered.error_code)
            continue
        group.share_offsets = {
            TopicPartition(t.topic_name, p.partition_index): (
                p.start_offset, getattr(p, "lag", -1) if response.version >= 1 else -1)
            for t in answered.topics for p in t.partitions if p.error_code == 0}
