"""The JDK orderings assignors and the coordinator depend on (String order, HashMap order)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assignframe.javaorder import java_hash_order, java_string_hash, java_string_key


def test_java_string_order_uses_utf16_units():
    assert sorted(["Ａ", "😀", "a"], key=java_string_key) == ["a", "😀", "Ａ"]


def test_java_string_hash_matches_jdk_values():
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == 2**31  # Integer.MIN_VALUE, unsigned


def test_java_hash_order_is_bucket_order_then_insertion_order():
    # "Aa" and "BB" share String.hashCode 2112, so they share a bucket: insertion order decides.
    assert java_hash_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert java_hash_order(["Aa", "BB"]) == ["Aa", "BB"]
    assert java_hash_order(["t1", "t0"]) == ["t0", "t1"]


@given(st.lists(st.text(max_size=6), unique=True, max_size=40))
def test_java_hash_order_is_a_permutation(keys):
    assert sorted(java_hash_order(keys)) == sorted(keys)
