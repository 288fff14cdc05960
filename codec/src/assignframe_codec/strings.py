"""Java's string order, without the wire formats (a light module: sorting needs no construct)."""

from __future__ import annotations

__all__ = ["java_string_key"]


def java_string_key(text: str) -> bytes:
    """``String.compareTo`` order: UTF-16 code units, not code points."""
    return text.encode("utf-16-be", "surrogatepass")
