"""Mutation fuzzing of the cluster reader's decoders, seeded from golden/admin/codec.jsonl.

    python codec/tests/fuzz_admin.py --iterations 100000 [--seed 7]

Each iteration mutates a golden body or frame of ListGroups, DescribeGroups, FindCoordinator,
OffsetFetch, ListOffsets, DescribeCluster, Metadata or ApiVersions (see ``fuzzing.mutate``) and
decodes it as its own kind and version and through the framing; the checks every input must
pass are ``fuzzing``'s. Exit status 1 on failure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzzing  # noqa: E402
from fuzzing import Seed  # noqa: E402
from java_views import admin_golden  # noqa: E402


class AdminDriver:
    def seeds(self) -> list[Seed]:
        return fuzzing.api_seeds(admin_golden())

    def entry_points(self, seed: Seed, data: bytes) -> list[Callable[[], Any]]:
        return fuzzing.api_entry_points(seed, data)

    def reencode(self, seed: Seed, decoded: Any) -> None:
        fuzzing.reencode_body(seed, decoded)

    def check(self, seed: Seed, data: bytes) -> str | None:
        return None


DRIVER = AdminDriver()


def run(iterations: int, seed: int = 0):
    return fuzzing.run(DRIVER, iterations, seed)


if __name__ == "__main__":
    raise SystemExit(fuzzing.main(DRIVER, __doc__.splitlines()[0]))
