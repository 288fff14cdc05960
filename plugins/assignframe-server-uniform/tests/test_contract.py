"""server:uniform meets the server-assignor contract (assignframe.testing.server_contract)."""

from __future__ import annotations

from assignframe.testing.server_contract import ServerAssignorContract


class TestUniformContract(ServerAssignorContract):
    assignor_name = "server:uniform"

