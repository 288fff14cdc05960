"""Field validators shared by the scenario and event parsers; errors name file and field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ScenarioError
from ..model import count_error


class Where:
    """Builds ScenarioError messages that name the file and the field path."""

    def __init__(self, path: str) -> None:
        self.path = path

    def error(self, field_path: str, message: str) -> ScenarioError:
        return ScenarioError(f"{self.path}: {field_path}: {message}")


def reject_unknown(where: Where, field_path: str, mapping: Mapping[str, Any], known: set) -> None:
    unknown = sorted(set(mapping) - known)
    if unknown:
        raise where.error(field_path, f"unknown key(s) {unknown}; expected some of {sorted(known)}")


def mapping(where: Where, field_path: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise where.error(field_path, f"expected a mapping, got {type(value).__name__}")
    return dict(value)


def names_list(where: Where, field_path: str, value: Any) -> tuple[str, ...]:
    """A list of non-empty strings (topics, strategy names)."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise where.error(field_path, "expected a list of non-empty strings")
    return tuple(value)


def optional_names(where: Where, field_path: str, value: Any) -> tuple[str, ...] | None:
    return None if value is None else names_list(where, field_path, value)


def name(where: Where, field_path: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise where.error(field_path, f"expected a non-empty string, got {value!r}")
    return value


def optional_name(where: Where, field_path: str, value: Any) -> str | None:
    return None if value is None else name(where, field_path, value)


def partition_count(where: Where, field_path: str, value: Any) -> int:
    problem = count_error(value)
    if problem:
        raise where.error(field_path, problem)
    return value


def parse_racks(
    where: Where, field_path: str, value: Any, count: int
) -> tuple[tuple[str, ...], ...] | None:
    """Replica racks: one list of rack names per partition."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != count:
        raise where.error(field_path, f"expected one list of racks per partition ({count})")
    return tuple(names_list(where, f"{field_path}[{i}]", racks) for i, racks in enumerate(value))


def parse_lags(where: Where, field_path: str, value: Any, count: int) -> tuple[int, ...] | None:
    """Lag per partition: a list of integers >= 0, one per partition."""
    if value is None:
        return None
    valid = isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    )
    if not valid or len(value) != count:
        raise where.error(field_path, f"expected {count} lag values (integers >= 0)")
    return tuple(value)
