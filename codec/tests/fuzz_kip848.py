"""Mutation fuzzing of the KIP-848 decoders, seeded from golden/kip848/codec.jsonl.

    python codec/tests/fuzz_kip848.py --iterations 100000 [--seed 7]

Each iteration mutates a golden API body, frame or stored record (see ``fuzz.mutate``) and
decodes it as its own kind and version, through the framing and through
``decode_coordinator_record``. Anything but a CodecError, an "internal error" CodecError, a
compiled parser that disagrees with the interpreted one, or a decoded value that does not
re-encode is a failure; so is a decode that allocates more than
``MEMORY_LIMIT`` bytes (a declared length must not allocate before its bytes exist).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import assignframe_codec as codec  # noqa: E402
from assignframe_codec.coordinator_records import (  # noqa: E402
    RECORD_TYPES,
    decode_coordinator_record,
    encode_coordinator_record,
)
from assignframe_codec.registry import declaration  # noqa: E402
from fuzz import mutate  # noqa: E402
from java_views import kip848_golden  # noqa: E402

MEMORY_LIMIT = 1 << 20  # the largest golden payload is a few kB


def seeds() -> list[tuple[str, int | None, str, bytes, bytes | None]]:
    """(kind, version, entry, payload, value bytes for records)."""
    found = []
    for row in kip848_golden():
        if row["kind"] == "api":
            found.append((row["type"], row["version"], "decode", bytes.fromhex(row["hex"]), None))
            if "framed_hex" in row:
                found.append((row["type"], row["version"], "frame",
                              bytes.fromhex(row["framed_hex"]), None))
        else:
            value = None if row["value_hex"] is None else bytes.fromhex(row["value_hex"])
            found.append((row["type"], row["version"], "record-key",
                          bytes.fromhex(row["key_hex"]), value))
            if value is not None:
                found.append((row["type"], row["version"], "record-value", value,
                              bytes.fromhex(row["key_hex"])))
    return found


def entry_points(kind: str, version: int | None, entry: str, data: bytes,
                 other: bytes | None) -> list[Callable]:
    if entry == "decode":
        return [lambda: codec.decode(kind, data, version)]
    if entry == "frame":
        return [lambda: codec.decode_frame(data, kind, version), lambda: codec.decode_frame(data)]
    if entry == "record-key":
        return [lambda: decode_coordinator_record(data, other)]
    return [lambda: decode_coordinator_record(other, data)]  # type: ignore[arg-type]


def _reencode(kind: str, version: int | None, entry: str, decoded) -> None:
    if entry == "decode":
        codec.encode(kind, decoded, version)
    elif entry.startswith("record"):
        encode_coordinator_record(decoded.record_type, decoded.key, decoded.value,
                                  decoded.value_version)


def _parsers_agree(kind: str, version: int, data: bytes) -> str | None:
    """The compiled parser must accept and reject exactly what the interpreted one does."""
    fmt, params, _ = declaration(kind, version)
    results = []
    for parser in (fmt.struct, fmt.compiled):
        try:
            results.append(parser.parse(data, **params))
        except Exception:  # noqa: BLE001 - only the outcome matters here
            results.append(None)
    return None if results[0] == results[1] else "compiled and interpreted parsers disagree"


def check_one(kind, version, entry, data, other, outcomes: Counter) -> str | None:
    if entry == "decode":
        problem = _parsers_agree(kind, version, data)
        if problem:
            return problem
    for call in entry_points(kind, version, entry, data, other):
        tracemalloc.start()
        try:
            decoded = call()
            outcomes["decoded"] += 1
        except codec.CodecError as error:
            outcomes[type(error).__name__] += 1
            if error.reason.startswith("internal error"):
                return f"internal error: {error!r}"
            continue
        except Exception as error:  # noqa: BLE001 - this is what we hunt
            return f"{type(error).__name__}: {error}"
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if peak > MEMORY_LIMIT:
            return f"decoding {len(data)} bytes allocated {peak} bytes"
        try:
            _reencode(kind, version, entry, decoded)
        except codec.CodecError as error:
            if error.reason.startswith("internal error"):
                return f"re-encode internal error: {error!r}"
        except Exception as error:  # noqa: BLE001
            return f"re-encode raised {type(error).__name__}: {error}"
    return None


def _compile_everything() -> None:
    """Compile the declarations up front, so the memory check measures decoding only."""
    for row in kip848_golden("api"):
        declaration(row["type"], row["version"])[0].compiled  # noqa: B018 - cached property
    for record in RECORD_TYPES.values():
        record.key.compiled  # noqa: B018
        record.value.compiled  # noqa: B018


def run(iterations: int, seed: int = 0) -> tuple[list[str], Counter]:
    _compile_everything()
    rng = random.Random(seed)
    pool = seeds()
    failures: list[str] = []
    outcomes: Counter = Counter()
    for index in range(iterations):
        kind, version, entry, payload, other = rng.choice(pool)
        data = mutate(payload, rng)
        problem = check_one(kind, version, entry, data, other, outcomes)
        if problem:
            failures.append(f"#{index} {kind} v{version} {entry} {data.hex()}: {problem}")
    return failures, outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    failures, outcomes = run(args.iterations, args.seed)
    elapsed = time.perf_counter() - started
    for failure in failures[:20]:
        print(failure)
    print(f"{args.iterations} mutated payloads in {elapsed:.1f}s, {len(failures)} failure(s)")
    print("outcomes:", ", ".join(f"{name}={count}" for name, count in outcomes.most_common()))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
