"""Collect what strategies log while a step plays, so it lands in the step's notes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["captured_warnings"]


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message not in self.messages:
            self.messages.append(message)


@contextmanager
def captured_warnings() -> Iterator[list[str]]:
    """Warnings logged inside the block (deduplicated) instead of printed to stderr."""
    collector = _Collector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        yield collector.messages
    finally:
        root.removeHandler(collector)
