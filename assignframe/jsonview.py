"""Plain JSON values from the objects strategies and the codec return (for views, never for
round trips): dataclasses and objects with ``to_dict`` become objects, named tuples and other
sequences lists, bytes hex, anything else unknown its ``repr``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["json_value"]

_MAX_DEPTH = 32  # user data is data, not a structure to recurse into without end


def json_value(value: Any, _depth: int = 0) -> Any:
    """``value`` as JSON-ready data (see the module docstring)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _depth > _MAX_DEPTH:
        return repr(value)
    deeper = _depth + 1
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, Mapping):
        return {str(k): json_value(v, deeper) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: json_value(getattr(value, f.name), deeper) for f in dataclasses.fields(value)
        }
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return json_value(value.to_dict(), deeper)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [json_value(v, deeper) for v in items]
    return repr(value)
