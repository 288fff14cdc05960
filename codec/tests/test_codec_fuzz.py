"""A short run of the mutation fuzzer (``python codec/tests/fuzz.py`` runs 100k)."""

import fuzz


def test_mutated_payloads_raise_only_codec_errors():
    failures, outcomes = fuzz.run(iterations=3000, seed=1)
    assert not failures, failures[:5]
    assert outcomes["decoded"] and outcomes["TruncatedError"] and outcomes["MalformedError"]
