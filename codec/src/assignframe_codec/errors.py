"""The one exception hierarchy of the codec.

Every failure of ``decode``/``encode`` (and of the convenience functions) is a
:class:`CodecError`; no other exception type escapes the facade::

    ValueError
     └── CodecError                 kind, version, path, offset
          ├── TruncatedError        the input ends before a field (or a declared length) does
          ├── MalformedError        bytes that no writer produces: null in a non-nullable
          │                         field, a varint longer than 5 bytes, a 40 kB string...
          ├── InvalidVersionError   version negative, above what the format knows, or missing
          ├── UnknownKindError      ``kind`` is not one of ``KINDS``
          └── EncodeError           a value that cannot be written at that version

``path`` is construct's field path in dotted form (``owned_partitions[2].partitions``),
``offset`` the byte offset where the failing field starts (``None`` when encoding).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "CodecError",
    "EncodeError",
    "InvalidVersionError",
    "MalformedError",
    "TruncatedError",
    "UnknownKindError",
]


class CodecError(ValueError):
    """A payload could not be decoded or a value could not be encoded."""

    def __init__(
        self,
        reason: str,
        *,
        kind: str | None = None,
        version: int | None = None,
        path: str | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.version = version
        self.path = path
        self.offset = offset

    def fill(
        self,
        *,
        kind: str | None = None,
        version: int | None = None,
        path: str | None = None,
        offset: int | None = None,
    ) -> CodecError:
        """Set the attributes that are still unknown; the innermost raiser knows best."""
        self.kind = self.kind if self.kind is not None else kind
        self.version = self.version if self.version is not None else version
        self.path = self.path if self.path is not None else path
        self.offset = self.offset if self.offset is not None else offset
        return self

    def __str__(self) -> str:
        where = [
            f"kind={self.kind}",
            f"version={self.version}",
            f"path={self.path or '<root>'}",
            f"offset={self.offset}",
        ]
        return f"{self.reason} ({', '.join(where)})"

    def __reduce__(self):  # keep attributes across pickling (Spark, multiprocessing)
        state = {"kind": self.kind, "version": self.version, "path": self.path,
                 "offset": self.offset}
        return (_rebuild, (type(self), self.reason, state))


def _rebuild(cls: type[CodecError], reason: str, state: dict) -> CodecError:
    return cls(reason, **state)


@contextmanager
def reporting(kind: str | None = None, version: int | None = None) -> Iterator[None]:
    """Fill ``kind``/``version`` into escaping CodecErrors; turn anything else into one."""
    try:
        yield
    except CodecError as exc:
        raise exc.fill(kind=kind, version=version) from exc.__cause__
    except Exception as exc:  # noqa: BLE001 - the facade promises CodecError only
        raise CodecError(
            f"internal error: {type(exc).__name__}: {exc}", kind=kind, version=version
        ) from exc


class TruncatedError(CodecError):
    """The input ends before a field, or a declared length/count exceeds the bytes left."""


class MalformedError(CodecError):
    """The bytes are structurally invalid (null where not nullable, overlong varint, ...)."""


class InvalidVersionError(CodecError):
    """The version is negative, above the highest known one, or required but not given."""


class UnknownKindError(CodecError):
    """The kind name is not one of ``KINDS``."""


class EncodeError(CodecError):
    """The value cannot be written (wrong type, out of range, non-default absent field)."""
