"""The JDK orderings assignors and the coordinator depend on (String order, HashMap order)."""

from __future__ import annotations

import random
import string

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


# -- Uuid, hash codes, HashMap emulation (the KIP-848 server assignors' tie-breaks) -------------

from assignframe.javaorder import (  # noqa: E402
    JavaHashMap,
    JavaHashSet,
    Uuid,
    assignor_helpers_capacity,
    hash_set_copy_capacity,
    java_int_hash,
    java_sorted_hash_order,
    table_size_for,
    topic_id_partition_hash,
)


def test_uuid_string_form_round_trips_and_rejects_garbage():
    raw = bytes(range(16))
    uuid = Uuid.from_bytes(raw)
    assert uuid.to_bytes() == raw
    assert str(uuid) == "AAECAwQFBgcICQoLDA0ODw"  # base64url, no padding, 22 characters
    assert Uuid.from_string(str(uuid)) == uuid
    for bad in ("", "too-short", "A" * 23, "!" * 22, None):
        try:
            Uuid.from_string(bad)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_uuid_orders_by_signed_halves_not_bytes():
    high_bit = Uuid.from_bytes(b"\x80" + bytes(15))  # msb negative in Java
    low = Uuid.from_bytes(b"\x01" + bytes(15))
    assert high_bit.msb < 0 and high_bit < low  # bytewise it would be the other way round
    assert Uuid(0, -1) < Uuid(0, 0)


def test_uuid_and_topic_id_partition_hash_codes():
    # Uuid.hashCode: x = msb ^ lsb; (int) (x >> 32) ^ (int) x
    assert Uuid(1, 2).java_hash == 3
    assert Uuid(-1, 0).java_hash == 0  # -1 ^ -1
    assert Uuid(1 << 32, 0).java_hash == 1
    assert topic_id_partition_hash((Uuid(1, 2), 5)) == 31 * 3 + 5
    assert java_int_hash(-1) == 0xFFFFFFFF


def test_table_sizes():
    assert [table_size_for(n) for n in (0, 1, 2, 3, 16, 17)] == [1, 1, 2, 4, 16, 32]
    assert hash_set_copy_capacity(12) == 32  # (int) (12 / .75f) + 1 = 17 -> 32 (JDK 17)
    assert hash_set_copy_capacity(11) == 16
    assert assignor_helpers_capacity(2) == 8  # (int) ((3 / .75f) + 1) = 5 -> 8


def test_put_appends_and_compute_if_absent_prepends_in_a_bucket():
    # With Integer keys in a 16-slot table, 1, 17 and 33 share bucket 1.
    table: JavaHashMap[int, str] = JavaHashMap(java_int_hash)
    table.put(1, "a")
    table.put(17, "b")
    table.compute_if_absent(33, lambda _: "c")
    assert table.keys() == [33, 1, 17]
    assert table.compute_if_absent(1, lambda _: "ignored") == "a"


def test_put_doubles_after_inserting_compute_if_absent_before():
    put: JavaHashSet[int] = JavaHashSet(java_int_hash)
    computed: JavaHashMap[int, int] = JavaHashMap(java_int_hash)
    for key in range(13):  # the 13th insert exceeds 0.75 * 16
        put.add(key * 16)
        computed.compute_if_absent(key * 16, lambda k: k)
    assert put.keys() == sorted(put.keys(), key=lambda k: k & 31)  # already 32 buckets
    assert computed.keys()[0] == 192  # 16 buckets still: all in bucket 0, newest first
    computed.compute_if_absent(999, lambda k: k)  # size 13 > 12: doubles first
    assert computed.keys()[:2] == [192, 160]  # bucket 0 of 32: multiples of 32, head first


def test_compute_if_absent_of_a_present_key_still_doubles_an_overfull_table():
    # JDK 17 checks size > threshold before the lookup: computeIfAbsent of 0..11 then 16 leaves
    # 13 keys in 16 buckets; computeIfAbsent(5), present, then doubles it. Orders printed by
    # java.util.HashMap (JDK 17.0.15): [16, 0, 1, ..., 11] before, [0, 1, ..., 11, 16] after;
    # put/get of a present key leave the table as it is.
    computed: JavaHashMap[int, int] = JavaHashMap(java_int_hash)
    for key in [*range(12), 16]:
        computed.compute_if_absent(key, lambda k: k)
    assert computed.keys() == [16, *range(12)]
    computed.put(5, 5)
    assert computed.get(5) == 5
    assert computed.keys() == [16, *range(12)]
    assert computed.compute_if_absent(5, lambda _: -1) == 5
    assert computed.keys() == [*range(12), 16]


def test_long_chain_in_a_small_table_doubles_it():
    table: JavaHashSet[int] = JavaHashSet(java_int_hash)
    for key in range(0, 9 * 16, 16):  # nine keys in bucket 0 of a 16-slot table
        table.add(key)
    # The ninth doubled the table to 32: 0, 32, ... come first, then 16, 48, ...
    assert table.keys() == [0, 32, 64, 96, 128, 16, 48, 80, 112]
    assert not table.has_treebin


def test_remove_keeps_the_order_of_the_rest():
    table: JavaHashSet[int] = JavaHashSet.copy_of([37, 5, 21, 3], java_int_hash)
    table.remove(5)  # 37, 5, 21 share bucket 5; 3 sits in bucket 3
    assert table.keys() == [3, 37, 21] and len(table) == 3 and 5 not in table
    assert table.remove(5) is None


@given(st.lists(st.text(max_size=4), unique=True, max_size=200))
def test_java_hash_order_agrees_with_the_table_replay(keys):
    table: JavaHashSet[str] = JavaHashSet(java_string_hash)
    for key in keys:
        table.add(key)
    if not table.has_treebin:
        assert java_hash_order(keys) == table.keys()


@given(st.lists(st.text(max_size=3), unique=True, max_size=120))
def test_sorted_hash_order_is_the_order_after_sorted_insertion(keys):
    expected = java_hash_order(sorted(keys, key=java_string_key))
    assert java_sorted_hash_order(reversed(keys)) == expected


def test_sorted_hash_order_of_thousands_of_ids_is_the_table_replay():
    # Large groups take the place-key sort (cached from call to call); ids that share their
    # first characters (and so, in one bucket, a place key) and short ids must fall back to
    # the whole strings. Each is checked twice: the second call reads the cached keys.
    rng = random.Random(34)
    groups = [
        ["".join(rng.choices(string.ascii_letters + string.digits + "-_", k=22))
         for _ in range(3000)],
        [f"consumer-{n}" for n in rng.sample(range(10**6), 2000)],
        list({"".join(rng.choices("ab\0", k=rng.randint(0, 12))) for _ in range(1500)}),
    ]
    for keys in groups:
        table: JavaHashSet[str] = JavaHashSet(java_string_hash)
        for key in sorted(keys, key=java_string_key):
            table.add(key)
        assert not table.has_treebin
        assert java_sorted_hash_order(keys) == table.keys()
        assert java_sorted_hash_order(reversed(keys)) == table.keys()


# -- one member's assignment map, as the server assignors build it -------------------------------

import assignframe_codec  # noqa: E402

from assignframe.javaorder import AssignmentEdits, JavaAssignment, uuid_hash  # noqa: E402

A, B = Uuid(0, 1), Uuid(5, 7)


def test_java_string_key_is_the_codecs_one():
    assert java_string_key is assignframe_codec.java_string_key


def test_uuid_hash_is_the_hash_code_of_uuid_keyed_tables():
    assert uuid_hash(Uuid(1, 2)) == 3  # (int) (x >> 32) ^ (int) x, x = msb ^ lsb = 3
    assert uuid_hash(Uuid(-1, 0)) == 0  # x = -1: 0xFFFFFFFF ^ 0xFFFFFFFF


def test_deep_copy_keeps_chain_order_within_a_bucket():
    # 17 and 1 share bucket 1 of a 16-slot HashSet: the copy iterates them in insertion order.
    assert JavaAssignment.deep_copy(((A, (17, 1)),)).ordered() == {A: (17, 1)}
    assert JavaAssignment.deep_copy(((A, (1, 17)),)).ordered() == {A: (1, 17)}
    assert JavaAssignment.deep_copy(((A, (2, 1)),)).ordered() == {A: (1, 2)}


def test_a_new_topics_set_capacity_decides_its_order():
    small, large = JavaAssignment(), JavaAssignment()
    for p in (20, 4):
        small.add(A, p, set_capacity=16)  # 20 & 15 == 4: one bucket, insertion order
        large.add(A, p, set_capacity=32)  # two buckets: 4 first
    assert small.ordered() == {A: (20, 4)} and large.ordered() == {A: (4, 20)}


def test_removing_the_last_partition_drops_the_topic_only_when_asked():
    for drop_emptied, expected in ((True, {}), (False, {A: ()})):
        table = JavaAssignment.deep_copy(((A, (3,)),))
        table.remove(A, 3, drop_emptied)
        assert table.ordered() == expected


def test_ranges_iterate_ascending_and_are_not_edited():
    table = JavaAssignment(2)
    table.put_range(B, (30, 31, 32))
    table.remove(B, 30, drop_emptied=True)  # a RangeSet is immutable; nothing happens
    assert table.ordered() == {B: (30, 31, 32)}


def test_edits_give_the_sorted_result_and_replay_in_javas_order():
    edits = AssignmentEdits(((A, (3, 1)), (B, (2,))))
    assert edits.remove(A, 3) and not edits.remove(A, 9)
    edits.drop_topic(B)
    edits.add(B, 20)
    edits.add(B, 4)
    assert edits.sorted() == {A: (1,), B: (4, 20)}
    assert edits.java_order() == {A: (1,), B: (20, 4)}  # B re-created: insertion order in a bucket
    emptied = AssignmentEdits(((A, (3,)),))
    emptied.remove(A, 3)
    assert emptied.java_order() == {A: ()} and emptied.java_order(drop_emptied=True) == {}


def test_a_topic_added_back_goes_to_the_head_of_its_bucket():
    # Topic ids hashing to 1 and 17 share bucket 1 of the copy's 2-slot table.
    one, seventeen = Uuid(0, 1), Uuid(0, 17)
    edits = AssignmentEdits(((one, (0,)), (seventeen, (0,))))
    assert list(JavaAssignment.deep_copy(edits.current).ordered()) == [one, seventeen]
    edits.drop_topic(seventeen)
    edits.add(seventeen, 5)  # computeIfAbsent: a new key goes to the chain's head
    assert list(edits.java_order().items()) == [(seventeen, (5,)), (one, (0,))]
