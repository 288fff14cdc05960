"""Short runs of the three mutation fuzzers (each runs 100k from its command line:
``python codec/tests/fuzz.py``, ``fuzz_kip848.py``, ``fuzz_admin.py``)."""

import fuzz
import fuzz_admin
import fuzz_kip848
import pytest


@pytest.mark.parametrize("driver, iterations, refusals", [
    (fuzz, 3000, ("TruncatedError", "MalformedError")),
    (fuzz_kip848, 2000, ("TruncatedError", "MalformedError")),
    (fuzz_admin, 2000, ("TruncatedError", "MalformedError")),
], ids=["classic", "kip848", "admin"])
def test_mutated_payloads_raise_only_codec_errors(driver, iterations, refusals):
    failures, outcomes = driver.run(iterations=iterations, seed=1)
    assert not failures, failures[:5]
    assert outcomes["decoded"] and all(outcomes[name] for name in refusals), outcomes
