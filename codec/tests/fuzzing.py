"""What the codec's mutation fuzzers share: how a golden payload is mutated, what every mutated
input must satisfy, the run loop and the command line. Each driver (``fuzz.py`` for the classic
golden set, ``fuzz_kip848.py`` for the KIP-848 set, ``fuzz_admin.py`` for the cluster reader's)
only says which payloads it starts from, which entry points read them and how a decoded value is
written back.

Per mutated input, a failure is: anything but a CodecError escaping an entry point, an
"internal error" CodecError, a decode that allocates more than ``MEMORY_LIMIT`` bytes (a
declared length must not allocate before its bytes exist), a decoded value that cannot be
re-encoded without an internal error, a compiled parser that accepts or rejects other bytes than
the interpreted one (or parses them differently), and whatever the driver's own check reports.
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import assignframe_codec as codec
from assignframe_codec import framing
from assignframe_codec.registry import declaration, message_codec

MEMORY_LIMIT = 1 << 20  # the largest golden payload is a few kB
_STAMPS = (b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x80\x00", b"\xff\xff", b"\x80" * 6)


@dataclass(frozen=True)
class Seed:
    """One golden payload and how it is read: ``entry`` names the entry point family
    (``decode``, ``frame``, ``record`` or the driver's own); ``other`` is a companion payload
    (a stored record's other half)."""

    kind: str
    version: int | None
    entry: str
    data: bytes
    other: bytes | None = None


class Driver(Protocol):
    def seeds(self) -> list[Seed]: ...

    def entry_points(self, seed: Seed, data: bytes) -> list[Callable[[], Any]]: ...

    def reencode(self, seed: Seed, decoded: Any) -> None: ...

    def check(self, seed: Seed, data: bytes) -> str | None: ...


def mutate(data: bytes, rng: random.Random) -> bytes:
    """1-4 edits: byte flips, insertions, deletions, truncation, 0x7fffffff/0xffffffff/0x80
    stamped over a length, random runs inserted."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(6)
        position = rng.randrange(len(out) + 1)
        if choice == 0 and out:
            out[min(position, len(out) - 1)] = rng.randrange(256)
        elif choice == 1:
            out.insert(position, rng.randrange(256))
        elif choice == 2 and out:
            del out[min(position, len(out) - 1)]
        elif choice == 3:
            del out[position:]
        elif choice == 4:
            stamp = rng.choice(_STAMPS)
            out[position:position + len(stamp)] = stamp
        else:
            out[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(out)


# --------------------------------------------------------------------------- golden API bodies
def api_seeds(rows: Sequence[dict]) -> list[Seed]:
    """A body seed per golden API line (``hex`` at ``version``) and a frame seed where the line
    has one (``framed_hex``, or the classic set's ``framed.hex``)."""
    found = []
    for row in rows:
        if row.get("hex") is None:
            continue
        found.append(Seed(row["type"], row["version"], "decode", bytes.fromhex(row["hex"])))
        framed = row.get("framed_hex") or (row.get("framed") or {}).get("hex")
        if framed:
            found.append(Seed(row["type"], row["version"], "frame", bytes.fromhex(framed)))
    return found


def api_entry_points(seed: Seed, data: bytes) -> list[Callable[[], Any]]:
    """A body through ``decode``; a frame through ``decode_frame`` with and (requests) without
    its kind and version."""
    if seed.entry == "frame":
        return [lambda: codec.decode_frame(data, seed.kind, seed.version),
                lambda: codec.decode_frame(data)]
    return [lambda: codec.decode(seed.kind, data, seed.version)]


def reencode_body(seed: Seed, decoded: Any) -> None:
    if seed.entry == "decode":
        codec.encode(seed.kind, decoded, seed.version)


def parsers_agree(kind: str, version: int | None, data: bytes) -> str | None:
    """The compiled parser must accept and reject exactly what the interpreted one does, and
    parse what it accepts to the same container."""
    if message_codec(kind) is None or version is None:
        return None
    fmt, params, _ = declaration(kind, version)
    results = []
    for parser in (fmt.struct, fmt.compiled):
        try:
            results.append(parser.parse(data, **params))
        except Exception:  # noqa: BLE001 - only the outcome matters here
            results.append(None)
    return None if results[0] == results[1] else "compiled and interpreted parsers disagree"


def compile_all() -> None:
    """Compile every declaration up front, so the memory check measures decoding only: a
    mutated frame's api key can lead to any registered kind, not only the seeds' kinds."""
    for kind in codec.KINDS:
        found = message_codec(kind)
        if found is not None:
            found.fmt.compiled  # noqa: B018 - a cached property
    for header in (framing._REQUEST_HEADER, framing._RESPONSE_HEADER):
        header.compiled  # noqa: B018


# --------------------------------------------------------------------------- the checks
def _bounded_call(call: Callable[[], Any], size: int) -> Any:
    tracemalloc.start()
    try:
        return call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if peak > MEMORY_LIMIT:
            raise _Overspent(f"decoding {size} bytes allocated {peak} bytes")


class _Overspent(Exception):
    pass


def check_one(driver: Driver, seed: Seed, data: bytes, outcomes: Counter) -> str | None:
    """None when every entry point behaved on ``data``, else what went wrong."""
    if seed.entry == "decode":
        problem = parsers_agree(seed.kind, seed.version, data)
        if problem:
            return problem
    for call in driver.entry_points(seed, data):
        try:
            decoded = _bounded_call(call, len(data))
            outcomes["decoded"] += 1
        except _Overspent as overspent:
            return str(overspent)
        except codec.CodecError as error:
            outcomes[type(error).__name__] += 1
            if error.reason.startswith("internal error"):
                return f"internal error: {error!r}"
            continue
        except Exception as error:  # noqa: BLE001 - this is what we hunt
            return f"{type(error).__name__}: {error}"
        problem = _reencodes(driver, seed, decoded)
        if problem:
            return problem
    return driver.check(seed, data)


def _reencodes(driver: Driver, seed: Seed, decoded: Any) -> str | None:
    try:
        driver.reencode(seed, decoded)
    except codec.CodecError as error:
        if error.reason.startswith("internal error"):
            return f"re-encode internal error: {error!r}"
    except Exception as error:  # noqa: BLE001
        return f"re-encode raised {type(error).__name__}: {error}"
    return None


def run(driver: Driver, iterations: int, seed: int = 0) -> tuple[list[str], Counter]:
    """Failures found, and how the decoders answered (decoded / each error class)."""
    rng = random.Random(seed)
    pool = driver.seeds()
    compile_all()
    failures: list[str] = []
    outcomes: Counter = Counter()
    for index in range(iterations):
        chosen = rng.choice(pool)
        data = mutate(chosen.data, rng)
        problem = check_one(driver, chosen, data, outcomes)
        if problem:
            failures.append(f"#{index} {chosen.kind} v{chosen.version} {chosen.entry} "
                            f"{data.hex()}: {problem}")
    return failures, outcomes


def main(driver: Driver, description: str, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    failures, outcomes = run(driver, args.iterations, args.seed)
    elapsed = time.perf_counter() - started
    for failure in failures[:20]:
        print(failure)
    print(f"{args.iterations} mutated payloads in {elapsed:.1f}s, {len(failures)} failure(s)")
    print("outcomes:", ", ".join(f"{name}={count}" for name, count in outcomes.most_common()))
    return 1 if failures else 0
