"""Every kind the facade knows: its declaration, versions and how its version is carried.

Version rules (Java parity):

* generated messages and records decode any version >= the lowest (Java's top-level readers do
  not check; nested structs refuse versions above their own), and encode only known versions;
* the consumer protocol carries its version in an int16 prefix (see :mod:`.consumer`);
* user data has no prefix: sticky layouts are versions 1 (V1) and 0 (V0), recognised when no
  version is given; cooperative-sticky user data is version 0.

Nothing is built at import (issue 34: a command that reads no bytes should not pay for the
codec): ``CODECS`` and ``KINDS`` are made on first use (:func:`codecs`, module ``__getattr__``),
importing the declaration modules then; each generated model is made when its kind is first
used (:class:`.flexible_models.FlexibleFormat`) and each parser compiled when first run
(:class:`.engine.Format`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from . import tables
from .errors import InvalidVersionError, reporting

if TYPE_CHECKING:
    from .engine import Format
    from .types import Message

    CODECS: dict[str, Codec]
    KINDS: tuple[str, ...]

__all__ = [
    "CODECS", "KINDS", "Codec", "MessageCodec", "codecs", "declaration", "message_codec",
]


class Codec(Protocol):
    def decode(self, data: bytes, version: int | None) -> Any: ...

    def encode(self, value: Any, version: int | None) -> bytes: ...


@dataclass(frozen=True)
class MessageCodec:
    """A generated message or record struct: versions ``lowest``..``highest``."""

    fmt: Format
    highest: int
    flexible_from: int | None = None
    lowest: int = 0
    api_key: int | None = None

    @property
    def name(self) -> str:
        return self.fmt.name

    def is_flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from

    def decode(self, data: bytes, version: int | None) -> Message:
        with reporting(self.name, version):
            self._check(version, self.lowest, None)
            assert version is not None
            return self.fmt.decode(data, version=version, flexible=self.is_flexible(version))

    def encode(self, value: Any, version: int | None) -> bytes:
        from .engine import from_value  # here, not at import: engine imports construct

        with reporting(self.name, version):
            message = from_value(self.fmt.model, value, version)
            version = message.version if version is None else version  # type: ignore[attr-defined]
            self._check(version, self.lowest, self.highest)
            return self.fmt.encode(message, version=version, flexible=self.is_flexible(version))

    def _check(self, version: int | None, lowest: int, highest: int | None) -> None:
        if not isinstance(version, int) or isinstance(version, bool):
            raise InvalidVersionError(f"{self.name} needs an explicit version")
        if version < lowest or (highest is not None and version > highest):
            known = f"{self.lowest}-{self.highest}" if self.lowest != self.highest else self.lowest
            raise InvalidVersionError(f"{self.name} has versions {known}, not {version}")


class _Prefixed:
    """Consumer protocol kinds: the version is the int16 prefix of the bytes."""

    def __init__(self, name: str, decoder, encoder) -> None:
        self.name, self._decoder, self._encoder = name, decoder, encoder

    def decode(self, data: bytes, version: int | None) -> Any:
        decoded = self._decoder(data)
        if version is not None and version != decoded.version:
            raise InvalidVersionError(
                f"{self.name} carries its version in its prefix ({decoded.version}),"
                f" not {version}", kind=self.name, version=version)
        return decoded

    def encode(self, value: Any, version: int | None) -> bytes:
        return self._encoder(value, version)


class _UserData:
    def __init__(self, decoder, encoder) -> None:
        self._decoder, self._encoder = decoder, encoder

    def decode(self, data: bytes, version: int | None) -> Any:
        return self._decoder(data, version)

    def encode(self, value: Any, version: int | None) -> bytes:
        return self._encoder(value, version)


def _cooperative_decoder(data: bytes, version: int | None):
    if version not in (None, 0):
        raise InvalidVersionError(f"cooperative-sticky user data has version 0, not {version}",
                                  kind="CooperativeStickyAssignorUserData", version=version)
    from .userdata import decode_cooperative_user_data

    return decode_cooperative_user_data(data)


def _message(name, struct, model, highest, flexible_from=None, lowest=0, api_key=None):
    from .engine import Format

    return MessageCodec(Format(name, struct, model), highest, flexible_from, lowest, api_key)


def _api_key(kind: str) -> int:
    """The api key of a request/response kind (``DescribeGroupsResponse`` -> 15), from
    :mod:`.tables`, whose entry also gives the first flexible version."""
    return tables.api_key(kind.removesuffix("Request").removesuffix("Response"))


def _api(kind: str, struct, model, highest: int, lowest: int = 0) -> MessageCodec:
    """A request/response body with a hand-written model."""
    key = _api_key(kind)
    return _message(kind, struct, model, highest, tables.APIS[key][1], lowest, key)


def _classic_codecs() -> dict[str, Codec]:
    """The kinds with hand-written models (:mod:`.types`, :mod:`.api_types`) and the consumer
    protocol's own; making them binds each model's field versions (:func:`.engine.bind_windows`)."""
    from . import api_types as api
    from . import apis, consumer, group, records, userdata
    from .types import (
        GroupMetadataKey,
        GroupMetadataValue,
        JoinGroupRequest,
        JoinGroupResponse,
        OffsetCommitKey,
        OffsetCommitValue,
        SyncGroupRequest,
        SyncGroupResponse,
    )

    codecs: dict[str, Codec] = {
        "ConsumerProtocolSubscription": _Prefixed(
            "ConsumerProtocolSubscription", consumer.decode_subscription_wire,
            consumer.encode_subscription_value),
        "ConsumerProtocolAssignment": _Prefixed(
            "ConsumerProtocolAssignment", consumer.decode_assignment_wire,
            consumer.encode_assignment_value),
        "StickyAssignorUserData": _UserData(
            userdata.decode_sticky_user_data, userdata.encode_sticky_value),
        "CooperativeStickyAssignorUserData": _UserData(
            _cooperative_decoder, userdata.encode_cooperative_value),
        "JoinGroupRequest": _api("JoinGroupRequest", group.JOIN_GROUP_REQUEST, JoinGroupRequest, 9),
        "JoinGroupResponse": _api(
            "JoinGroupResponse", group.JOIN_GROUP_RESPONSE, JoinGroupResponse, 9),
        "SyncGroupRequest": _api("SyncGroupRequest", group.SYNC_GROUP_REQUEST, SyncGroupRequest, 5),
        "SyncGroupResponse": _api(
            "SyncGroupResponse", group.SYNC_GROUP_RESPONSE, SyncGroupResponse, 5),
        "GroupMetadataKey": _message(
            "GroupMetadataKey", records.GROUP_METADATA_KEY, GroupMetadataKey, 2, lowest=2),
        "GroupMetadataValue": _message(
            "GroupMetadataValue", records.GROUP_METADATA_VALUE, GroupMetadataValue, 4, 4),
        "OffsetCommitKey": _message(
            "OffsetCommitKey", records.OFFSET_COMMIT_KEY, OffsetCommitKey, 1),
        "OffsetCommitValue": _message(
            "OffsetCommitValue", records.OFFSET_COMMIT_VALUE, OffsetCommitValue, 4, 4),
    }

    # the other bodies assignframe.decode reads (apis.py, api_types.py)
    codecs.update({
        "MetadataRequest": _api("MetadataRequest", apis.METADATA_REQUEST, api.MetadataRequest, 13),
        "MetadataResponse": _api(
            "MetadataResponse", apis.METADATA_RESPONSE, api.MetadataResponse, 13),
        "CreateTopicsRequest": _api(
            "CreateTopicsRequest", apis.CREATE_TOPICS_REQUEST, api.CreateTopicsRequest, 7),
        "LeaveGroupRequest": _api(
            "LeaveGroupRequest", apis.LEAVE_GROUP_REQUEST, api.LeaveGroupRequest, 5),
        "LeaveGroupResponse": _api(
            "LeaveGroupResponse", apis.LEAVE_GROUP_RESPONSE, api.LeaveGroupResponse, 5),
        "HeartbeatRequest": _api(
            "HeartbeatRequest", apis.HEARTBEAT_REQUEST, api.HeartbeatRequest, 4),
        "HeartbeatResponse": _api(
            "HeartbeatResponse", apis.HEARTBEAT_RESPONSE, api.HeartbeatResponse, 4),
        "ApiVersionsRequest": _api(
            "ApiVersionsRequest", apis.API_VERSIONS_REQUEST, api.ApiVersionsRequest, 4),
    })
    return codecs


RECORD_KINDS = ("GroupMetadataKey", "GroupMetadataValue", "OffsetCommitKey", "OffsetCommitValue")


def declaration(kind: str, version: int) -> tuple[Format[Any], dict[str, Any], int]:
    """The declaration that carries ``kind`` at ``version``, its context parameters and where
    its struct starts in a payload (2 after a consumer-protocol version prefix).

    For tests and tools that run the interpreted and compiled declarations side by side.
    """
    from . import consumer, userdata

    codec = codecs()[kind]
    if isinstance(codec, MessageCodec):
        return codec.fmt, {"version": version, "flexible": codec.is_flexible(version)}, 0
    params = {"version": min(version, consumer.HIGHEST_VERSION), "flexible": False}
    if kind == "ConsumerProtocolSubscription":
        return consumer.SUBSCRIPTION_FORMAT, params, 2
    if kind == "ConsumerProtocolAssignment":
        return consumer.ASSIGNMENT_FORMAT, params, 2
    return userdata.FORMATS[(kind, version)], {"version": version, "flexible": False}, 0


def message_codec(kind: str) -> MessageCodec | None:
    codec = codecs().get(kind)
    return codec if isinstance(codec, MessageCodec) else None


# --------------------------------------------------------------------------- generated models
# Self-contained: the consumer/share/Streams group APIs (KIP-848, issue 15), the bodies the
# cluster reader needs (admin.py, issue 21) and the coordinator record halves. Their models are
# generated from the declarations, each when its kind is first used.
def _generated_api(kind: str, struct, lowest: int, highest: int) -> MessageCodec:
    """A request/response body with a model generated from its declaration."""
    from .flexible_models import FlexibleFormat

    key = _api_key(kind)
    return MessageCodec(FlexibleFormat(kind, struct), highest, tables.APIS[key][1], lowest, key)


def _generated_codecs() -> dict[str, Codec]:
    from . import admin, coordinator_records, kip848

    codecs: dict[str, Codec] = {
        kind: _generated_api(kind, struct, lowest, highest)
        for declarations in (kip848.DECLARATIONS, admin.DECLARATIONS)
        for kind, (struct, lowest, highest) in declarations.items()
    }
    for record in coordinator_records.RECORD_TYPES.values():
        if record.record_type in (1, 2):  # OffsetCommit*/GroupMetadata*: classic kinds exist
            continue
        codecs[record.key_type] = _RecordHalfCodec(record.key, 0, None, 0)
        codecs[record.value_type] = _RecordHalfCodec(
            record.value, record.highest_value_version, record.flexible_from, 0
        )
    return codecs


class _RecordHalfCodec(MessageCodec):
    """A coordinator record key or value struct (no prefix), under the facade's kind names for
    the halves the classic codec does not already name; a dict value is read in to_dict's
    shape."""

    def encode(self, value: Any, version: int | None) -> bytes:
        from .coordinator_records import encode_half
        from .flexible_models import FlexibleFormat

        with reporting(self.name, version):
            if version is None:
                version = getattr(value, "version", None)
            self._check(version, self.lowest, self.highest)
            assert version is not None
            fmt = self.fmt
            assert isinstance(fmt, FlexibleFormat)
            return encode_half(fmt, value, version, self.is_flexible(version))


# --------------------------------------------------------------------------- made on first use
_MAKING = threading.Lock()


def codecs() -> dict[str, Codec]:
    """Every kind's codec (``CODECS``), made on the first call; later calls return the same
    dict. Making it imports the declaration modules and makes the hand-written formats (a few
    ms); generated models and compiled parsers wait for their kind's first use."""
    made = globals().get("CODECS")
    if made is None:
        with _MAKING:  # two threads' first calls must share one table
            made = globals().get("CODECS")
            if made is None:
                made = {**_classic_codecs(), **_generated_codecs()}
                globals()["KINDS"] = tuple(sorted(made))
                globals()["CODECS"] = made
    return made  # type: ignore[no-any-return]


def __getattr__(name: str) -> Any:
    """``CODECS`` and ``KINDS``, made on first use (PEP 562)."""
    if name in ("CODECS", "KINDS"):
        codecs()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
