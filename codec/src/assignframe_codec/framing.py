"""Wire frames: int32 size, request/response header, body.

Kafka picks the header version from the body's: request header v1 for non-flexible bodies and
v2 (v1 + tagged fields) for flexible ones; response header v0 or v1 likewise. Request header v2
still writes ``client_id`` as a classic int16-length nullable string.

A request frame names its body (api key, api version), a response frame does not: decoding a
response needs ``kind`` and ``version``.

Stream readers (``assignframe.decode``) cut frames before they know what is in them:
:func:`peek_request_head` / :func:`peek_response_head` read the fixed-width start of a frame with
one ``struct`` call (the format is derived from the header declarations below, so it cannot drift
from them), and :func:`decode_request_header` / :func:`decode_response_header` read a whole header
and say where the body starts.
"""

from __future__ import annotations

import struct
from typing import Any

from construct import Renamed, Struct

from . import tables
from .engine import Format, as_bytes, from_value
from .errors import (
    CodecError,
    EncodeError,
    MalformedError,
    TruncatedError,
    UnknownKindError,
    reporting,
)
from .primitives import ClassicNullableString, Int, Int16, Int32, KafkaString, Since, TaggedFields
from .registry import CODECS, MessageCodec
from .types import Frame, RequestHeader, ResponseHeader

__all__ = [
    "REQUEST_HEADER",
    "RESPONSE_HEADER",
    "decode_frame",
    "decode_request_header",
    "decode_response_header",
    "encode_frame",
    "frame_size",
    "peek_request_head",
    "peek_response_head",
]

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


# --------------------------------------------------------------------------- fixed-width heads
def _head_format(header: Struct) -> str:
    """``struct`` format of a frame's fixed-width start: the int32 size, the header's leading
    integer fields and, when a classic string follows (``client_id``), its int16 length."""
    codes = [">i"]
    for subcon in header.subcons:
        inner = subcon.subcon if isinstance(subcon, Renamed) else subcon
        if isinstance(inner, Int):
            codes.append(inner.fmtstr[1:])
            continue
        if isinstance(inner, Since) and isinstance(inner.subcon, KafkaString) \
                and inner.subcon.compact is False:
            codes.append("h")
        break
    return "".join(codes)


_REQUEST_HEAD = struct.Struct(_head_format(REQUEST_HEADER))  # size, key, version, id, len
_RESPONSE_HEAD = struct.Struct(_head_format(RESPONSE_HEADER))  # size, correlation id
#: bytes needed by peek_request_head / peek_response_head
REQUEST_HEAD_SIZE = _REQUEST_HEAD.size
RESPONSE_HEAD_SIZE = _RESPONSE_HEAD.size
_API_HEAD = struct.Struct(">" + _REQUEST_HEAD.format[2:4])  # api key, api version


def frame_size(data: bytes | bytearray, offset: int = 0) -> int:
    """The int32 size at ``offset`` (the bytes that follow it make one frame)."""
    if len(data) - offset < 4:
        raise TruncatedError("frame size needs 4 bytes", offset=offset)
    return int(_INT32.unpack_from(data, offset)[0])


def peek_request_head(data: bytes | bytearray, offset: int = 0) -> tuple[int, int, int, int, int]:
    """(size, api key, api version, correlation id, client_id length) of the request frame at
    ``offset``, without judging them; needs :data:`REQUEST_HEAD_SIZE` bytes."""
    if len(data) - offset < _REQUEST_HEAD.size:
        raise TruncatedError(f"request head needs {_REQUEST_HEAD.size} bytes", offset=offset)
    return _REQUEST_HEAD.unpack_from(data, offset)  # type: ignore[return-value]


def peek_response_head(data: bytes | bytearray, offset: int = 0) -> tuple[int, int]:
    """(size, correlation id) of the response frame at ``offset``."""
    if len(data) - offset < _RESPONSE_HEAD.size:
        raise TruncatedError(f"response head needs {_RESPONSE_HEAD.size} bytes", offset=offset)
    return _RESPONSE_HEAD.unpack_from(data, offset)  # type: ignore[return-value]


def decode_request_header(frame: bytes, start: int = 4) -> tuple[RequestHeader, int]:
    """The request header at ``start`` (after the size) and the offset where the body starts.

    The header version follows the body's (:func:`tables.request_header_version`); any api key
    is read, known to this codec or not. Errors carry offsets into ``frame``.
    """
    with reporting("RequestHeader"):
        frame = as_bytes(frame)
        if len(frame) - start < 4:
            raise TruncatedError("request header needs api key and version", offset=start)
        api_key, api_version = _API_HEAD.unpack_from(frame, start)
        header_v = tables.request_header_version(api_key, api_version)
        container, end = _REQUEST_HEADER.parse(frame, version=header_v, flexible=header_v >= 2,
                                               start=start)
        return RequestHeader(version=header_v, **_header_fields(container)), end


def decode_response_header(frame: bytes, api_key: int, api_version: int,
                           start: int = 4) -> tuple[ResponseHeader, int]:
    """The response header at ``start`` for a body of ``api_key`` at ``api_version`` (taken
    from the matching request), and the offset where the body starts."""
    with reporting("ResponseHeader"):
        header_v = tables.response_header_version(api_key, api_version)
        container, end = _RESPONSE_HEADER.parse(as_bytes(frame), version=header_v,
                                                flexible=header_v >= 1, start=start)
        return ResponseHeader(version=header_v, **_header_fields(container)), end


# --------------------------------------------------------------------------- whole frames
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
    api_key = _framed_codec(kind).api_key
    assert api_key is not None  # _framed_codec refuses kinds without one
    if kind.endswith("Request"):
        return tables.request_header_version(api_key, version)
    return tables.response_header_version(api_key, version)


def _frame_body(data: bytes) -> bytes:
    size = frame_size(data)
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
