"""JSON in and out.

Out: plain JSON values from the objects strategies and the codec return (for views, never for
round trips): dataclasses and objects with ``to_dict`` become objects, named tuples and other
sequences lists, bytes hex, anything else unknown its ``repr``.

In: :func:`loads` and :func:`load_yaml`, the readers of every document a user gives (scenario,
group and snapshot files, JSON lines). Input nested deeper than the interpreter can follow is
malformed like any other (``json.JSONDecodeError``, ``yaml.YAMLError``), so each reader's own
"line N is not JSON" error names it, never a ``RecursionError`` traceback.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

__all__ = ["json_lines", "json_value", "load_yaml", "loads"]

TOO_DEEP = "nested too deeply to read"


def loads(text: str | bytes) -> Any:
    """``json.loads``; too deep a nesting raises ``json.JSONDecodeError`` (see the docstring)."""
    try:
        return json.loads(text)
    except RecursionError:
        document = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError(TOO_DEEP, document, 0) from None


def json_lines(
    lines: Iterable[str], name: str, error: Callable[[str, str], Exception], start: int = 1
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSON-lines document named ``name``
    (numbered from ``start``); a line that is not JSON raises ``error(where, problem)``, where
    is ``name:line``."""
    for line_number, line in enumerate(lines, start=start):
        if not line.strip():
            continue
        try:
            yield line_number, loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{name}:{line_number}", f"not JSON: {exc.msg}") from exc


def load_yaml(text: str, *, every_document: bool = False) -> Any:
    """``yaml.safe_load`` (or the list of ``safe_load_all``'s non-empty documents); too deep a
    nesting raises ``yaml.YAMLError``."""
    import yaml

    try:
        if every_document:
            return [d for d in yaml.safe_load_all(text) if d is not None]
        return yaml.safe_load(text)
    except RecursionError:
        raise yaml.YAMLError(TOO_DEEP) from None

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
