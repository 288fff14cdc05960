"""What every pluggable assigner shares: operator options, declared and checked, and value
semantics (two instances with equal options are equal). The client-side :class:`Strategy` and the
broker-side :class:`ServerAssignor` both build on it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from .errors import UnknownOptionError

__all__ = ["Configurable"]


class Configurable:
    """Holds ``options`` (kept as ``self.options``); subclasses set ``name``.

    :param options: operator-given options (e.g. ``replicas=2``)
    """

    name: ClassVar[str]
    #: The options accepted and their defaults (``{"refine": True}``; ``{}``: none). ``None``
    #: (for classes written before this existed): undeclared, any option passes unchecked.
    option_defaults: ClassVar[Mapping[str, Any] | None] = None

    def __init__(self, **options: Any) -> None:
        self.options: Mapping[str, Any] = dict(options)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Refuse options this class does not accept, before any work is done.

        The default checks names and types against :attr:`option_defaults` (nothing when it is
        None). Override it to check values too (call ``super().check_options(options)`` first
        and raise ``ValueError`` with a sentence).

        :raises UnknownOptionError: an undeclared option or a value of the wrong type; the
            message says which and lists what is accepted
        """
        declared = cls.option_defaults
        if declared is None:
            return
        for key, value in options.items():
            if key not in declared:
                raise UnknownOptionError(
                    f"{cls._kind} {cls.name!r} has no option {key!r}; it accepts "
                    f"{_described(declared)}"
                )
            if not _same_type(value, declared[key]):
                raise UnknownOptionError(
                    f"option {key!r} of {cls._kind} {cls.name!r} expects "
                    f"{type(declared[key]).__name__} (default {json.dumps(declared[key])}), "
                    f"got {json.dumps(value)}"
                )

    #: How messages call it ("strategy", "server assignor").
    _kind: ClassVar[str] = "strategy"

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return f"{type(self).__name__}({options})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items(), key=repr))))


def _described(declared: Mapping[str, Any]) -> str:
    if not declared:
        return "no options"
    return ", ".join(f"{k} (default {json.dumps(v)})" for k, v in sorted(declared.items()))


def _same_type(value: Any, default: Any) -> bool:
    if default is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))
