"""Wire frames: int32 size, request/response header, body.

Kafka picks the header version from the body's: request header v1 for non-flexible bodies and
v2 (v1 + tagged fields) for flexible ones; response header v0 or v1 likewise. Request header v2
still writes ``client_id`` as a classic int16-length nullable string.

A request frame names its body (api key, api version), a response frame does not: decoding a
response needs ``kind`` and ``version``.
"""

from __future__ import annotations

import struct
from typing import Any

from construct import Struct

from .engine import Format, as_bytes, from_value
from .errors import (
    CodecError,
    EncodeError,
    MalformedError,
    TruncatedError,
    UnknownKindError,
    reporting,
)
from .primitives import ClassicNullableString, Int16, Int32, Since, TaggedFields
from .registry import CODECS, MessageCodec
from .types import Frame, RequestHeader, ResponseHeader

__all__ = ["REQUEST_HEADER", "RESPONSE_HEADER", "decode_frame", "encode_frame"]

REQUEST_HEADER = Struct(
    "request_api_key" / Int16,                                          # 0+
    "request_api_version" / Int16,                                      # 0+
    "correlation_id" / Int32,                                           # 0+
    "client_id" / Since(1, ClassicNullableString),                      # 1+, classic even in v2
    "tagged_fields" / TaggedFields,                                     # 2+
)
REQUEST_HEADER.__doc__ = """RequestHeader v0-2, flexible 2+.

Follows clients/src/main/resources/common/message/RequestHeader.json.
"""

RESPONSE_HEADER = Struct(
    "correlation_id" / Int32,                                           # 0+
    "tagged_fields" / TaggedFields,                                     # 1+
)
RESPONSE_HEADER.__doc__ = """ResponseHeader v0-1, flexible 1+.

Follows clients/src/main/resources/common/message/ResponseHeader.json.
"""

_REQUEST_HEADER = Format("RequestHeader", REQUEST_HEADER, RequestHeader)
_RESPONSE_HEADER = Format("ResponseHeader", RESPONSE_HEADER, ResponseHeader)
_INT32 = struct.Struct(">i")
_API_HEAD = struct.Struct(">hh")


def _framed_codec(kind: str) -> MessageCodec:
    codec = CODECS.get(kind)
    if not isinstance(codec, MessageCodec) or codec.api_key is None:
        raise UnknownKindError(f"{kind!r} is not a request or response body with an api key")
    return codec


def _kind_for_api_key(api_key: int) -> str:
    for kind, codec in CODECS.items():
        if isinstance(codec, MessageCodec) and codec.api_key == api_key and \
                kind.endswith("Request"):
            return kind
    raise UnknownKindError(f"no request kind for api key {api_key}")


def header_version(kind: str, version: int) -> int:
    flexible = _framed_codec(kind).is_flexible(version)
    if kind.endswith("Request"):
        return 2 if flexible else 1
    return 1 if flexible else 0


def _frame_body(data: bytes) -> bytes:
    if len(data) < 4:
        raise TruncatedError("frame size needs 4 bytes", offset=0)
    (size,) = _INT32.unpack_from(data)
    if size < 0:
        raise MalformedError(f"negative frame size {size}", offset=0)
    if len(data) - 4 < size:
        raise TruncatedError(f"frame of {size} byte(s) but only {len(data) - 4} left", offset=4)
    if len(data) - 4 > size:
        raise MalformedError(f"{len(data) - 4 - size} byte(s) after the frame", offset=4 + size)
    return data[4:]


def decode_frame(data: bytes, kind: str | None = None, version: int | None = None) -> Frame:
    """Decode one whole frame. Requests need nothing more; responses need kind and version."""
    with reporting(kind, version):
        frame = _frame_body(as_bytes(data))
        if kind is None or kind.endswith("Request"):
            return _decode_request(frame, kind, version)
        if version is None:
            raise CodecError("a response frame does not say its version: pass version=")
        return _decode_response(frame, kind, version)


def _decode_request(frame: bytes, kind: str | None, version: int | None) -> Frame:
    if len(frame) < 4:
        raise TruncatedError("request header needs api key and version", offset=4)
    api_key, api_version = _API_HEAD.unpack_from(frame)
    found = _kind_for_api_key(api_key)
    if kind not in (None, found) or version not in (None, api_version):
        raise MalformedError(f"frame holds {found} v{api_version}, not {kind} v{version}")
    header_v = header_version(found, api_version)
    container, end = _REQUEST_HEADER.parse(frame, version=header_v, flexible=header_v >= 2)
    header = RequestHeader(version=header_v, **_header_fields(container))
    body = _framed_codec(found).decode(frame[end:], api_version)
    return Frame(found, api_version, header, body)


def _decode_response(frame: bytes, kind: str, version: int) -> Frame:
    header_v = header_version(kind, version)
    container, end = _RESPONSE_HEADER.parse(frame, version=header_v, flexible=header_v >= 1)
    header = ResponseHeader(version=header_v, **_header_fields(container))
    return Frame(kind, version, header, _framed_codec(kind).decode(frame[end:], version))


def _header_fields(container: Any) -> dict[str, Any]:
    fields = {key: value for key, value in container.items() if not key.startswith("_")}
    fields["unknown_tagged_fields"] = tuple(fields.pop("tagged_fields"))
    return fields


def encode_frame(kind: str, header: Any, body: Any, version: int | None = None) -> bytes:
    """Size + header (version chosen from the body's) + body. A request header given as a dict
    may leave out ``request_api_key``/``request_api_version``; they come from kind/version."""
    with reporting(kind, version):
        codec = _framed_codec(kind)
        if version is None:
            version = getattr(body, "version", None)
        body_bytes = codec.encode(body, version)
        assert version is not None  # encode() refused a missing version
        header_bytes = _encode_header(kind, codec, header, version)
        return _INT32.pack(len(header_bytes) + len(body_bytes)) + header_bytes + body_bytes


def _encode_header(kind: str, codec: MessageCodec, header: Any, version: int) -> bytes:
    header_v = header_version(kind, version)
    if kind.endswith("Response"):
        response = from_value(ResponseHeader, header, header_v)
        return _RESPONSE_HEADER.encode(response, version=header_v, flexible=header_v >= 1)
    if isinstance(header, dict):
        header = {"request_api_key": codec.api_key, "request_api_version": version, **header}
    request = from_value(RequestHeader, header, header_v)
    if (request.request_api_key, request.request_api_version) != (codec.api_key, version):
        raise EncodeError(f"header names api {request.request_api_key} "
                          f"v{request.request_api_version}, body is {kind} v{version}")
    return _REQUEST_HEADER.encode(request, version=header_v, flexible=header_v >= 2)
