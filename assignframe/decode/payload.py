"""Decode standalone payloads (hex or base64) of any consumer-group wire format, detecting the kind.

Detection is honest: every kind in :data:`DETECTION_ORDER` is tried; a candidate *fits* when it
decodes and re-encodes to exactly the input bytes, and *decodes loosely* when it decodes but the
bytes differ on re-encoding (trailing bytes, non-canonical encodings). The first fitting kind in
the documented order is shown; every other fitting kind is listed as ``ambiguous_with``. Bodies of
JoinGroup/SyncGroup requests and responses do not carry their version: they are only tried with
``--kind`` (all versions, unless ``--version`` is given). Complete request frames (int32 size +
request header) carry theirs and are detected.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec
from assignframe_codec.registry import message_codec

from .consumer import hex_or_none, read_assignment, read_subscription

__all__ = ["BODY_KINDS", "DETECTION_ORDER", "PayloadResult", "decode_payload", "parse_payload_text"]

#: kinds tried without --kind, in this order (version-prefixed formats first, then bare user data)
DETECTION_ORDER = (
    "ConsumerProtocolSubscription",
    "ConsumerProtocolAssignment",
    "OffsetCommitKey",
    "GroupMetadataKey",
    "OffsetCommitValue",
    "GroupMetadataValue",
    "StickyAssignorUserData",
    "CooperativeStickyAssignorUserData",
)
#: message bodies: need --kind; version from --version or every version the codec knows
BODY_KINDS = {
    kind: range(body.lowest, body.highest + 1)
    for kind in ("JoinGroupRequest", "JoinGroupResponse", "SyncGroupRequest", "SyncGroupResponse")
    if (body := message_codec(kind)) is not None
}
_RECORD_KINDS = {"OffsetCommitKey", "GroupMetadataKey", "OffsetCommitValue", "GroupMetadataValue"}
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]*$")


@dataclass
class PayloadResult:
    """What one payload decoded to. ``value`` is JSON-ready (bytes as hex)."""

    source: str
    hex: str
    kind: str | None = None
    version: int | None = None
    framed: dict[str, Any] | None = None
    value: Any = None
    fits: list[str] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    exact: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        """Why nothing decoded (None when a kind was found)."""
        if self.kind is not None:
            return None
        return "; ".join(self.errors) or "no known kind decodes these bytes"

    @property
    def ambiguous_with(self) -> list[str]:
        return [k for k in self.fits if k != self.label]

    @property
    def label(self) -> str | None:
        return (
            None
            if self.kind is None
            else f"{self.kind} v{self.version}"
            if self.version is not None
            else self.kind
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "hex": self.hex,
            "kind": self.kind,
            "version": self.version,
            "exact": self.exact,
            "framed": self.framed,
            "value": self.value,
            "ambiguous_with": self.ambiguous_with,
            "decodes_loosely_as": self.loose,
            "error": self.error,
        }


def parse_payload_text(text: str, encoding: str = "auto") -> bytes:
    """Hex (``0x`` prefix, spaces and colons allowed) or base64; ``auto`` prefers hex.

    :raises ValueError: neither encoding fits
    """
    compact = re.sub(r"[\s:]", "", text.strip())
    if (
        encoding in ("auto", "hex")
        and _HEX.match(compact)
        and len(compact.removeprefix("0x")) % 2 == 0
    ):
        return bytes.fromhex(compact.removeprefix("0x"))
    if encoding == "hex":
        raise ValueError("not hex (odd length or a non-hex character)")
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"neither hex nor base64: {exc}") from None


def jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _version_of(kind: str, data: bytes) -> int | None:
    if kind in _RECORD_KINDS or kind.startswith("ConsumerProtocol"):
        return codec.version_prefix(data) if len(data) >= 2 else None
    return None


def _try(kind: str, data: bytes, version: int | None) -> tuple[Any, bool]:
    """(typed value, round-trips exactly); raises CodecError when it does not decode."""
    if kind in _RECORD_KINDS:
        value = codec.decode_record(kind, data)
        return value, codec.encode_record(kind, value) == data
    value = codec.decode(kind, data, version)
    try:
        again = codec.encode(kind, value, version)
    except (codec.CodecError, TypeError, ValueError):
        return value, False
    return value, again == data


def _enrich(kind: str, value: dict[str, Any]) -> dict[str, Any]:
    """Decode the ConsumerProtocol bytes nested inside envelopes and group metadata."""
    protocol = value.get("protocol_name") or value.get("protocol")
    for entry in value.get("protocols") or ():
        entry["metadata_decoded"] = read_subscription(entry.get("metadata"), entry.get("name"))
    for entry in value.get("members") or ():
        if "metadata" in entry:
            entry["metadata_decoded"] = read_subscription(entry["metadata"], protocol)
        if "subscription" in entry:
            entry["subscription_decoded"] = read_subscription(entry["subscription"], protocol)
            entry["assignment_decoded"] = read_assignment(entry.get("assignment"))
    for entry in value.get("assignments") or ():
        entry["assignment_decoded"] = read_assignment(entry.get("assignment"))
    if kind == "SyncGroupResponse" and value.get("assignment") is not None:
        value["assignment_decoded"] = read_assignment(value["assignment"])
    return value


def _value_dict(typed: Any) -> Any:
    return typed.to_dict() if hasattr(typed, "to_dict") else typed


def _decode_as(result: PayloadResult, kind: str, data: bytes, version: int | None) -> bool:
    """Try ``kind`` (every version of a body without ``version``); keep the best fit."""
    versions = (
        [version] if version is not None or kind not in BODY_KINDS else list(BODY_KINDS[kind])
    )
    found = False
    for candidate in versions:
        try:
            typed, exact = _try(kind, data, candidate)
        except (codec.CodecError, ValueError, TypeError) as exc:
            result.errors.append(f"{kind}{'' if candidate is None else f' v{candidate}'}: {exc}")
            continue
        actual = candidate if candidate is not None else _version_of(kind, data)
        (result.fits if exact else result.loose).append(
            kind if actual is None else f"{kind} v{actual}"
        )
        found = True
        if result.kind is None or (exact and not result.exact):
            result.kind, result.version, result.exact = kind, actual, exact
            result.value = jsonable(_enrich(kind, _value_dict(typed)))
    return found


def _unframe(
    data: bytes, kind: str | None, version: int | None
) -> tuple[str, int, dict[str, Any], bytes] | None:
    """A complete frame (int32 size == rest): (body kind, version, header, body), else None."""
    if len(data) < 8 or codec.frame_size(data) != len(data) - 4:
        return None
    try:
        if kind in ("JoinGroupResponse", "SyncGroupResponse"):
            if version is None:
                return None
            body = message_codec(kind)
            assert body is not None and body.api_key is not None
            response, start = codec.decode_response_header(data, body.api_key, version)
            return kind, version, {"correlation_id": response.correlation_id}, data[start:]
        request, start = codec.decode_request_header(data)
    except codec.CodecError:
        return None
    body_kind = f"{codec.api_name(request.request_api_key)}Request"
    if body_kind not in BODY_KINDS or (kind is not None and kind != body_kind):
        return None
    header = request.to_dict()
    header.pop("unknown_tagged_fields", None)
    return body_kind, request.request_api_version, header, data[start:]


def decode_payload(
    data: bytes, source: str, kind: str | None = None, version: int | None = None
) -> PayloadResult:
    """Decode one payload, as ``kind`` when given, else by trying :data:`DETECTION_ORDER`."""
    result = PayloadResult(source, data.hex())
    framed = _unframe(data, kind, version)
    if framed is not None:
        body_kind, body_version, header, body = framed
        result.framed = {"header": header, "body_hex": body.hex()}
        if _decode_as(result, body_kind, body, body_version):
            return result
        result.framed = None
    for candidate in [kind] if kind else DETECTION_ORDER:
        _decode_as(result, candidate, data, version if kind or candidate in BODY_KINDS else None)
    return result


__all__ += ["hex_or_none", "jsonable"]
