"""What Apache Kafka 4.3.1 offers the reader for share and Streams groups, and the version the
reader picks with it (the highest both know): the facts the share and Streams views rely on."""

from __future__ import annotations

import assignframe_codec as codec

from assignframe.cluster.api_support import API_VERSIONS_BOOTSTRAP, ApiSupport
from assignframe.cluster.config import read_client_config
from assignframe.cluster.transport import Transport


def test_share_and_streams_apis_at_the_versions_the_reader_uses(kafka43):
    transport = Transport(kafka43.bootstrap, read_client_config(None), 20)
    try:
        node = transport.any_node()
        request = codec.api_versions_request(API_VERSIONS_BOOTSTRAP,
                                             client_software_name="assignframe-test",
                                             client_software_version="0")
        answer = transport.send(node, "ApiVersionsRequest", request, API_VERSIONS_BOOTSTRAP)
    finally:
        transport.close()
    offered = {k.api_key: (k.min_version, k.max_version) for k in answer.api_keys}
    support = ApiSupport(node, kafka43.bootstrap, offered)
    # the share backlog needs v1 (KIP-1226's lag); Streams describes are v0 only in 4.3.1
    assert offered[codec.api_key("DescribeShareGroupOffsets")] == (0, 1)
    assert support.version("DescribeShareGroupOffsets") == 1
    assert support.version("ShareGroupDescribe") == 1
    assert offered[codec.api_key("StreamsGroupDescribe")] == (0, 0)
    assert support.version("StreamsGroupDescribe") == 0
    features = {f.name: f.max_version_level for f in answer.finalized_features}
    assert features["share.version"] == 1 and features["streams.version"] == 1
