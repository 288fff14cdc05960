"""A short run of the KIP-848 mutation fuzzer (``python codec/tests/fuzz_kip848.py`` runs 100k)."""

import fuzz_kip848


def test_mutated_kip848_payloads_raise_only_codec_errors():
    failures, outcomes = fuzz_kip848.run(iterations=2000, seed=1)
    assert not failures, failures[:5]
    assert outcomes["decoded"] and outcomes["TruncatedError"] and outcomes["MalformedError"]
