"""One group at one generation: the snapshot every tool shares.

``decode`` builds it from captured traffic, the fleet generator from the runner, the audit
replays it, the report draws it. Its JSON-lines form (schema ``assignframe.snapshot/1``, documented
in docs/decode.md) is :func:`snapshot_to_dict`, read back by :func:`read_snapshot` alone; decode
adds its own keys beside it (rounds, events, changes), which the reader ignores.

Beside the assignment, a snapshot holds what an operator asks of a group: its state as the
coordinator reports it, who each member is (:class:`MemberInfo`: client id and host, the client
software, the strategies it offered, its epoch and, in a mixed consumer-protocol group, whether it
is a classic or a consumer member), a consumer-protocol group's *target* assignment beside what
members own now (the difference is reconciliation in progress), the server assignor the
coordinator runs, and when it was observed. ``decode`` and the live cluster reader fill what they
see; every field they do not know is None.

:data:`SNAPSHOT_FIELDS` is the one description of the serialized form: the JSON keys, their types,
and the Parquet schema derived from them (:mod:`assignframe.audit.parquet_input`).

A snapshot keeps the bytes it was read from (``wire``): the JSON form writes them as hex, so
nothing a member sent is lost or re-encoded differently, and the decoded fields beside them for
people. Where no bytes were seen the hex is null and the reader takes the decoded fields: nothing
is made up.

:func:`snapshot_metrics` is the one place a snapshot's validity and metrics come from: the core's
:func:`~assignframe.metrics.round_metrics` with the cooperative rule (a partition a member still
claims in its subscription and is not given is *withheld*, not unowned: the follow-up round
assigns it; eager members claim nothing, so the rule changes nothing for them).

The package: :mod:`.schema` (the serialized form's field table and the readers of its values,
light: the group-file reader in ``replay/`` imports it, below this package's layer),
:mod:`.group_snapshot` (the types and their metrics), :mod:`.from_wire` (built from captured
bytes) and :mod:`.jsonform` (written and read back as JSON lines). The schema's names load with
the package; the rest on first use (module ``__getattr__``), so reading a group file does not
load the classic wire mapping and the codec. It imports the model, the metrics, the errors and
the classic wire mapping; no tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .schema import MEMBER_FIELDS, MEMBER_TYPES, SNAPSHOT_FIELDS, SNAPSHOT_SCHEMA

if TYPE_CHECKING:
    from ..errors import MalformedSnapshot
    from .from_wire import CapturedMember, snapshot_from_wire
    from .group_snapshot import GroupSnapshot, MemberInfo, MemberWire, snapshot_metrics
    from .jsonform import read_snapshot, snapshot_to_dict

__all__ = [
    "CapturedMember", "GroupSnapshot", "MEMBER_FIELDS", "MEMBER_TYPES",
    "MalformedSnapshot", "MemberInfo", "MemberWire", "SNAPSHOT_FIELDS", "SNAPSHOT_SCHEMA",
    "read_snapshot", "snapshot_from_wire", "snapshot_metrics", "snapshot_to_dict",
]  # fmt: skip

#: name -> the module that defines it, loaded on first use
_LAZY = {
    "MalformedSnapshot": "..errors",
    "CapturedMember": ".from_wire", "snapshot_from_wire": ".from_wire",
    "GroupSnapshot": ".group_snapshot", "MemberInfo": ".group_snapshot",
    "MemberWire": ".group_snapshot", "snapshot_metrics": ".group_snapshot",
    "read_snapshot": ".jsonform", "snapshot_to_dict": ".jsonform",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
