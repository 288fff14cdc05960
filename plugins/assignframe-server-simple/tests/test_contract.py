"""server:simple meets the server-assignor contract (assignframe.testing.server_contract)."""

from __future__ import annotations

from assignframe_server_simple import JavaAssignorFailure

from assignframe.testing.server_contract import ServerAssignorContract


class TestSimpleContract(ServerAssignorContract):
    assignor_name = "server:simple"
    keeps_what_it_holds = (
        "Kafka's SimpleAssignor keeps partitions of topics nobody subscribes to any more "
        "(heterogeneous groups) and uninitialized partitions a member holds"
    )
    fails_where_java_fails = (JavaAssignorFailure,)

