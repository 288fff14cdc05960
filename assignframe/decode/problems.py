"""What the decoder skipped, and where: every report names the input and a byte offset.

Nothing in :mod:`assignframe.decode` raises on bad input bytes; it records a :class:`Problem` and
carries on. The CLI prints them on stderr and turns "anything skipped" into its exit status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = ["Problem", "Problems"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One skipped piece of input.

    :param where: the input: a file, ``src:port->dst:port`` for a TCP stream, ``line 3`` ...
    :param offset: byte offset inside ``where`` (stream offset for TCP, file offset for files)
    :param message: what was wrong and what was skipped
    """

    where: str
    offset: int
    message: str

    def __str__(self) -> str:
        return f"{self.where} @ byte {self.offset}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {"where": self.where, "offset": self.offset, "message": self.message}


@dataclass
class Problems:
    """An ordered collection of problems, optionally echoed to a callback as they happen."""

    on_problem: Callable[[Problem], None] | None = None
    items: list[Problem] = field(default_factory=list)

    def add(self, where: str, offset: int, message: str) -> Problem:
        problem = Problem(where, offset, message)
        self.items.append(problem)
        if self.on_problem is not None:
            self.on_problem(problem)
        return problem

    def __iter__(self) -> Iterator[Problem]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)
