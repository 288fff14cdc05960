"""Decode standalone payloads (hex or base64) of any consumer-group wire format, detecting the kind.

Detection is honest: every kind in :data:`DETECTION_ORDER` is tried; a candidate *fits* when it
decodes, re-encodes to exactly the input bytes (so it consumed all of them) and is plausible (see
:func:`implausibility`); it *decodes loosely* when it decodes but the bytes differ on re-encoding
(trailing bytes, non-canonical encodings). Only a fitting kind is accepted: the first in the
documented order is shown and every other fitting kind is listed as ``ambiguous_with``. When none
fits, the error names the closest candidate (the one that got furthest) and where it failed.
``--kind`` forces a kind and shows what it decodes to, fitting or not. Bodies of JoinGroup/SyncGroup
requests and responses do not carry their version: they are only tried with ``--kind`` (all
versions, unless ``--version`` is given). Complete request frames (int32 size + request header)
carry theirs and are detected.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec
from assignframe_codec.registry import RECORD_KINDS, message_codec

from .classic.embedded import read_assignment, read_subscription

__all__ = [
    "BODY_KINDS",
    "DETECTION_ORDER",
    "Miss",
    "PayloadResult",
    "decode_payload",
    "implausibility",
    "parse_payload_text",
]

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
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]*$")


@dataclass(frozen=True)
class Miss:
    """A candidate that was not accepted: how many bytes it got through, and why it stopped.

    :param truncated: the input ended inside a field whose declared size fits the input (a
        truncated payload of this kind would fail so)
    :param implausible: a field declared a size larger than the whole input and than any
        field of these formats usually is: rather another kind's bytes read out of place
    """

    label: str
    reached: int
    reason: str
    truncated: bool = False
    implausible: bool = False


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
    misses: list[Miss] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        """Why nothing was accepted (None when a kind was found): the candidate that got
        furthest (one that read a size larger than the whole input read another kind's bytes
        out of place, and comes last), and, when the input ended inside a field, the kinds a
        truncated payload of would end so."""
        if self.kind is not None:
            return None
        if not self.misses:
            return "no known kind decodes these bytes"
        size = f"no kind fits these {len(self.hex) // 2} bytes exactly"
        sensible = [miss for miss in self.misses if not miss.implausible] or self.misses
        closest = max(sensible, key=lambda miss: miss.reached)  # first of equals: order
        text = f"{size}; closest: {closest.label}, {closest.reason}"
        ended = list(dict.fromkeys(miss.label for miss in self.misses if miss.truncated))
        if closest.truncated:
            text += f"; a truncated {_either(ended[:3])} would end so"
        return text

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
    if encoding in ("auto", "hex") and _HEX.match(compact):
        digits = compact.removeprefix("0x")
        if len(digits) % 2:  # never base64 either: its length is a multiple of 4
            raise ValueError(f"hex with an odd number of digits ({len(digits)})")
        return bytes.fromhex(digits)
    if encoding == "hex":
        raise ValueError(f"not hex: {_first_foreign(compact, _HEX_DIGITS)}")
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        pass
    if encoding == "base64" or len(compact) % 4 == 0:
        raise ValueError(_base64_problem(compact))
    raise ValueError(f"neither hex nor base64: {_first_foreign(compact, _HEX_DIGITS)}, and "
                     f"{len(compact)} characters are not whole base64 (groups of 4)")


_HEX_DIGITS = frozenset("0123456789abcdefABCDEFx")
_BASE64_DIGITS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _first_foreign(text: str, alphabet: frozenset[str]) -> str:
    position = next((i for i, ch in enumerate(text) if ch not in alphabet), None)
    if position is None:
        return "no foreign character"
    return f"{text[position]!r} at character {position + 1}"


def _base64_problem(text: str) -> str:
    foreign = _first_foreign(text, _BASE64_DIGITS)
    if foreign == "no foreign character":
        return "not base64: misplaced padding"
    return f"neither hex nor base64: {foreign}"


def jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _version_of(kind: str, data: bytes) -> int | None:
    if kind in RECORD_KINDS or kind.startswith("ConsumerProtocol"):
        return codec.version_prefix(data) if len(data) >= 2 else None
    return None


def _try(kind: str, data: bytes, version: int | None) -> tuple[Any, bytes | None]:
    """(typed value, its re-encoding or None); raises CodecError when it does not decode."""
    if kind in RECORD_KINDS:
        value = codec.decode_record(kind, data)
        return value, codec.encode_record(kind, value)
    value = codec.decode(kind, data, version)
    try:
        return value, codec.encode(kind, value, version)
    except codec.CodecError:
        return value, None


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


def _decode_as(
    result: PayloadResult, kind: str, data: bytes, version: int | None, forced: bool
) -> bool:
    """Try ``kind`` (every version of a body without ``version``). Detection accepts fits only;
    a forced kind also shows a loose or implausible decode (flagged ``exact=False``)."""
    versions = (
        [version] if version is not None or kind not in BODY_KINDS else list(BODY_KINDS[kind])
    )
    found = False
    for candidate in versions:
        label = kind if candidate is None else f"{kind} v{candidate}"
        try:
            typed, again = _try(kind, data, candidate)
        except codec.CodecError as exc:
            reason = f"{exc.reason} ({_where(exc)})"
            ended = isinstance(exc, codec.TruncatedError)
            too_big = ended and _declared(exc) > max(len(data), _SANE_SIZE)
            result.misses.append(Miss(label, exc.offset or 0, reason, ended and not too_big,
                                      too_big))
            continue
        actual = candidate if candidate is not None else _version_of(kind, data)
        label = kind if actual is None else f"{kind} v{actual}"
        value = jsonable(_value_dict(typed))
        exact = again == data
        doubt = None if not exact else implausibility(value)
        if exact and doubt is None:
            result.fits.append(label)
        else:
            if not exact:
                result.loose.append(label)
            result.misses.append(_miss(label, data, again, doubt))
            if not forced:
                continue
        found = True
        fits = exact and doubt is None
        if result.kind is None or (fits and not result.exact):
            result.kind, result.version, result.exact = kind, actual, fits
            result.value = jsonable(_enrich(kind, _value_dict(typed)))
    return found


#: A size this large, declared by a field of a payload smaller than it, is rather text or other
#: bytes read as a length (the two bytes "ja" read as an int16 are 27,233).
_SANE_SIZE = 4096


def _declared(exc: codec.CodecError) -> int:
    """The size a truncated field declared (bytes or elements), 0 when it says none."""
    found = re.search(r"(?:of|array of) (\d+) (?:byte|element)", exc.reason)
    return int(found.group(1)) if found else 0


def _either(kinds: list[str]) -> str:
    return kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"


def _where(exc: codec.CodecError) -> str:
    return f"byte {exc.offset or 0}" + (f", field {exc.path}" if exc.path else "")


def _miss(label: str, data: bytes, again: bytes | None, doubt: str | None) -> Miss:
    """How far a decode that was not accepted got: all bytes but implausible, a prefix with
    bytes left over, or re-encoding differently from some byte on."""
    if doubt is not None:
        return Miss(label, len(data), f"decodes but is implausible: {doubt}")
    if again is not None and data.startswith(again):
        left = len(data) - len(again)
        return Miss(label, len(again), f"stops at byte {len(again)} with {left} byte(s) left over")
    same = next((i for i, (a, b) in enumerate(zip(data, again or b"", strict=False)) if a != b),
                min(len(data), len(again or b"")))
    return Miss(label, same, f"decodes, but re-encodes differently from byte {same}")


# Plausibility: what real writers produce. Names are printable text (not Kafka's legal topic
# characters: clients write whatever they are given, and Java's own vectors hold such names);
# timestamps are -1 or between 2001 and 2100 (ms).
_TIMESTAMPS = range(1_000_000_000_000, 4_102_444_800_000)


def implausibility(value: Any, key: str = "") -> str | None:
    """Why a decoded value (``to_dict`` form) is not something a real writer produces, or None."""
    if isinstance(value, dict):
        return next((doubt for name, item in value.items()
                     if (doubt := implausibility(item, name)) is not None), None)
    if isinstance(value, list):
        item_key = "topic" if key == "topics" else "partition" if key == "partitions" else key
        return next((doubt for item in value
                     if (doubt := implausibility(item, item_key)) is not None), None)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return _implausible_number(key, value)
    if isinstance(value, str):
        if "\ufffd" in value or not value.isprintable():
            return f"{key} {value!r} is not printable UTF-8"
    return None


def _implausible_number(key: str, value: int) -> str | None:
    if key in ("partition", "partition_index") and value < 0:
        return f"negative partition {value}"
    if key in ("generation", "generation_id", "offset", "leader_epoch") and value < -1:
        return f"{key} {value}"
    if key.endswith("_timestamp") and value != -1 and value not in _TIMESTAMPS:
        return f"{key} {value} is not a time between 2001 and 2100"
    return None


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
        if _decode_as(result, body_kind, body, body_version, forced=kind is not None):
            return result
        result.framed = None
    for candidate in [kind] if kind else DETECTION_ORDER:
        _decode_as(result, candidate, data, version if kind or candidate in BODY_KINDS else None,
                   forced=kind is not None)
    return result


__all__ += ["jsonable"]
