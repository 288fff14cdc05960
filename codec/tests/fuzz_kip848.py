"""Mutation fuzzing of the KIP-848 decoders, seeded from golden/kip848/codec.jsonl.

    python codec/tests/fuzz_kip848.py --iterations 100000 [--seed 7]

Each iteration mutates a golden API body, frame or stored record (see ``fuzzing.mutate``) and
decodes it as its own kind and version, through the framing and through
``decode_coordinator_record``; the checks every input must pass are ``fuzzing``'s. Exit status
1 on failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzzing  # noqa: E402
from assignframe_codec.coordinator_records import (  # noqa: E402
    RECORD_TYPES,
    decode_coordinator_record,
    encode_coordinator_record,
)
from fuzzing import Seed  # noqa: E402
from java_views import kip848_golden  # noqa: E402


class Kip848Driver:
    def seeds(self) -> list[Seed]:
        """API bodies and frames; each stored record as its key (value alongside) and as its
        value (key alongside)."""
        found = []
        for row in kip848_golden():
            if row["kind"] == "api":
                found += fuzzing.api_seeds([row])
                continue
            key = bytes.fromhex(row["key_hex"])
            value = None if row["value_hex"] is None else bytes.fromhex(row["value_hex"])
            found.append(Seed(row["type"], row["version"], "record-key", key, value))
            if value is not None:
                found.append(Seed(row["type"], row["version"], "record-value", value, key))
        return found

    def entry_points(self, seed: Seed, data: bytes) -> list[Callable[[], Any]]:
        if seed.entry == "record-key":
            return [lambda: decode_coordinator_record(data, seed.other)]
        if seed.entry == "record-value":
            return [lambda: decode_coordinator_record(seed.other, data)]  # type: ignore[arg-type]
        return fuzzing.api_entry_points(seed, data)

    def reencode(self, seed: Seed, decoded: Any) -> None:
        if seed.entry.startswith("record"):
            encode_coordinator_record(decoded.record_type, decoded.key, decoded.value,
                                      decoded.value_version)
        else:
            fuzzing.reencode_body(seed, decoded)

    def check(self, seed: Seed, data: bytes) -> str | None:
        return None


def _compile_records() -> None:
    """Record halves are no facade kinds (types 1 and 2): compile them up front too."""
    for record in RECORD_TYPES.values():
        record.key.compiled  # noqa: B018 - a cached property
        record.value.compiled  # noqa: B018


DRIVER = Kip848Driver()


def run(iterations: int, seed: int = 0):
    _compile_records()
    return fuzzing.run(DRIVER, iterations, seed)


if __name__ == "__main__":
    _compile_records()
    raise SystemExit(fuzzing.main(DRIVER, __doc__.splitlines()[0]))
