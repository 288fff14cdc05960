"""Mutation fuzzing of every decoder, seeded from the golden vectors.

    python codec/tests/fuzz.py --iterations 100000 [--seed 7]

Each iteration takes a golden payload, mutates it (byte flips, insertions, deletions,
truncation, 0x7fffffff/0xffffffff/0x80 stamped over a length), then decodes it as its own kind
and version and through the framing, record and user-data entry points. Anything but a
CodecError, an "internal error" CodecError, a fast path that disagrees with the declaration, or a
successfully decoded value that does not re-encode is a failure. Exit status 1 on failure.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import assignframe_codec as codec  # noqa: E402
from assignframe_codec import consumer, fastpath  # noqa: E402
from codec_shared import golden  # noqa: E402

_STAMPS = (b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x80\x00", b"\xff\xff", b"\x80" * 6)


def seeds() -> list[tuple[str, int, bytes, str]]:
    """(kind, version, payload, entry) for every golden payload and framed/stored form."""
    found = []
    for row in golden():
        if row["hex"] is None:
            continue
        found.append((row["type"], row["version"], bytes.fromhex(row["hex"]), "decode"))
        if "framed" in row:
            found.append((row["type"], row["version"], bytes.fromhex(row["framed"]["hex"]),
                          "frame"))
        if "hex_version_prefixed" in row:
            found.append((row["type"], row["version"],
                          bytes.fromhex(row["hex_version_prefixed"]), "record"))
    return found


def mutate(data: bytes, rng: random.Random) -> bytes:
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


def entry_points(kind: str, version: int, entry: str, data: bytes) -> list[Callable]:
    prefixed = kind.startswith("ConsumerProtocol")
    calls: list[Callable] = [lambda: codec.decode(kind, data, None if prefixed else version)]
    if entry == "frame":
        calls = [lambda: codec.decode_frame(data, kind, version), lambda: codec.decode_frame(data)]
    elif entry == "record":
        calls = [lambda: codec.decode_record(kind, data)]
    elif kind == "StickyAssignorUserData":
        calls += [lambda: codec.sticky_member_data(data)]
    elif kind == "CooperativeStickyAssignorUserData":
        calls += [lambda: codec.decode_cooperative_user_data(data),
                  lambda: codec.cooperative_member_data(data)]
    return calls


def check_one(kind: str, version: int, entry: str, data: bytes,
              outcomes: Counter | None = None) -> str | None:
    """None when every entry point behaved, else a description of the failure."""
    outcomes = Counter() if outcomes is None else outcomes
    for call in entry_points(kind, version, entry, data):
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
        problem = _reencode(kind, version, entry, decoded)
        if problem:
            return problem
    return _fast_path_agrees(kind, data)


def _reencode(kind: str, version: int, entry: str, decoded) -> str | None:
    if not isinstance(decoded, codec.types.Message) or entry != "decode":
        return None
    if isinstance(decoded, (codec.MemberData,)):
        return None
    try:
        codec.encode(kind, decoded, None if kind.startswith("ConsumerProtocol") else version)
    except codec.CodecError as error:
        if error.reason.startswith("internal error"):
            return f"re-encode internal error: {error!r}"
    except Exception as error:  # noqa: BLE001
        return f"re-encode raised {type(error).__name__}: {error}"
    return None


def _fast_path_agrees(kind: str, data: bytes) -> str | None:
    pairs = {
        "ConsumerProtocolSubscription": (consumer.decode_subscription_fast,
                                         consumer.SUBSCRIPTION_FORMAT, "subscription"),
        "ConsumerProtocolAssignment": (consumer.decode_assignment_fast, consumer.ASSIGNMENT_FORMAT,
                                       "assignment"),
    }
    if kind not in pairs:
        return None
    fast, fmt, what = pairs[kind]
    try:
        quick = fast(data)
    except fastpath.NotFast:  # declined: the declaration decides (anything else is a bug)
        return None
    try:
        slow = consumer.decode_by_declaration(fmt, data, what)
    except codec.CodecError:
        return "fast path accepted bytes the declaration refuses"
    return None if quick == slow else "fast path and declaration disagree"


def run(iterations: int, seed: int = 0) -> tuple[list[str], Counter]:
    """Failures found, and how the decoders answered (decoded / each error class)."""
    rng = random.Random(seed)
    pool = seeds()
    failures: list[str] = []
    outcomes: Counter = Counter()
    for index in range(iterations):
        kind, version, payload, entry = rng.choice(pool)
        data = mutate(payload, rng)
        problem = check_one(kind, version, entry, data, outcomes)
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
