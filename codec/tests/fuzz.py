"""Mutation fuzzing of every decoder of the classic golden set (golden/codec.jsonl).

    python codec/tests/fuzz.py --iterations 100000 [--seed 7]

Each iteration takes a golden payload, mutates it (see ``fuzzing.mutate``), then decodes it as
its own kind and version and through the framing, record and user-data entry points. The checks
every input must pass are ``fuzzing``'s; this driver adds one: the consumer protocol's fast path
must never accept bytes the declaration refuses, nor decode them differently. Exit status 1 on
failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import assignframe_codec as codec  # noqa: E402
import fuzzing  # noqa: E402
from assignframe_codec import consumer, fastpath  # noqa: E402
from codec_shared import golden  # noqa: E402
from fuzzing import Seed  # noqa: E402


def _prefixed(kind: str) -> bool:
    """Consumer-protocol kinds carry their version in their bytes."""
    return kind.startswith("ConsumerProtocol")


class ClassicDriver:
    def seeds(self) -> list[Seed]:
        """Every golden payload, its frame and its version-prefixed stored form."""
        found = []
        for row in golden():
            found += fuzzing.api_seeds([row])
            if "hex_version_prefixed" in row:
                found.append(Seed(row["type"], row["version"], "record",
                                  bytes.fromhex(row["hex_version_prefixed"])))
        return found

    def entry_points(self, seed: Seed, data: bytes) -> list[Callable[[], Any]]:
        kind = seed.kind
        if seed.entry == "record":
            return [lambda: codec.decode_record(kind, data)]
        if seed.entry == "frame":
            return fuzzing.api_entry_points(seed, data)
        version = None if _prefixed(kind) else seed.version
        calls: list[Callable[[], Any]] = [lambda: codec.decode(kind, data, version)]
        if kind == "StickyAssignorUserData":
            calls.append(lambda: codec.sticky_member_data(data))
        elif kind == "CooperativeStickyAssignorUserData":
            calls += [lambda: codec.decode_cooperative_user_data(data),
                      lambda: codec.cooperative_member_data(data)]
        return calls

    def reencode(self, seed: Seed, decoded: Any) -> None:
        if seed.entry != "decode" or not isinstance(decoded, codec.types.Message) or \
                isinstance(decoded, codec.MemberData):
            return
        codec.encode(seed.kind, decoded, None if _prefixed(seed.kind) else seed.version)

    def check(self, seed: Seed, data: bytes) -> str | None:
        return _fast_path_agrees(seed.kind, data)


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


DRIVER = ClassicDriver()


def run(iterations: int, seed: int = 0):
    return fuzzing.run(DRIVER, iterations, seed)


if __name__ == "__main__":
    raise SystemExit(fuzzing.main(DRIVER, __doc__.splitlines()[0]))
