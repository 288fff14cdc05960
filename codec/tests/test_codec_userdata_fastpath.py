"""The assignors' user data fast paths decode and encode exactly what the declarations do: the
same value, or the same refusal. The reference is the public function with the fast path
switched off (monkeypatched to refuse everything)."""

from __future__ import annotations

import struct

import pytest
from assignframe_codec import fastpath, userdata
from assignframe_codec.errors import CodecError
from hypothesis import given, settings
from hypothesis import strategies as st

FAST = ((userdata, "decode_sticky_user_data_fast"), (userdata, "decode_cooperative_user_data_fast"),
        (fastpath, "encode"))


def _refuse(*args, **kwargs):
    raise fastpath.NotFast


def _outcome(call, *args):
    try:
        return "ok", call(*args)
    except CodecError as exc:
        return "error", type(exc).__name__


def _both(call, *args):
    fast = _outcome(call, *args)
    with pytest.MonkeyPatch.context() as patched:
        for module, name in FAST:
            patched.setattr(module, name, _refuse)
        declared = _outcome(call, *args)
    return fast, declared


topics = st.text(alphabet="abcxyz-._é", min_size=0, max_size=6)
assignments = st.lists(st.tuples(topics, st.integers(-(2**31), 2**31 - 1)), max_size=12)
generations = st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))


def _blobs():
    """Encoded user data, then cut, extended or flipped; and plain random bytes."""
    valid = st.builds(userdata.encode_sticky_user_data, assignments, generations)
    mutated = st.tuples(valid, st.integers(0, 64), st.binary(max_size=6)).map(
        lambda t: t[0][: t[1]] + t[2] if t[1] < len(t[0]) else t[0] + t[2])
    return st.one_of(valid, mutated, st.binary(max_size=40))


@settings(max_examples=600, deadline=None)
@given(data=_blobs(), version=st.sampled_from([None, 0, 1]))
def test_sticky_user_data_decodes_as_declared(data, version):
    fast, declared = _both(userdata.decode_sticky_user_data, data, version)
    assert fast == declared


@settings(max_examples=600, deadline=None)
@given(data=st.one_of(_blobs(), st.binary(min_size=4, max_size=4)))
def test_cooperative_user_data_decodes_as_declared(data):
    fast, declared = _both(userdata.decode_cooperative_user_data, data)
    assert fast == declared


@settings(max_examples=400, deadline=None)
@given(pairs=assignments, generation=st.one_of(generations, st.integers(2**31, 2**40)))
def test_sticky_user_data_encodes_as_declared(pairs, generation):
    fast, declared = _both(userdata.encode_sticky_user_data, pairs, generation)
    assert fast == declared


@pytest.mark.parametrize("generation", [-1, 0, 7, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1])
def test_cooperative_generation_encodes_as_declared(generation):
    fast, declared = _both(userdata.encode_cooperative_user_data, generation)
    assert fast == declared


def test_exact_layouts_take_the_fast_path_and_others_do_not():
    groups = struct.pack(">ih", 1, 1) + b"t" + struct.pack(">ii", 1, 5)
    v1 = userdata.decode_sticky_user_data_fast(groups + struct.pack(">i", 9), None)
    assert (v1.layout, v1.generation, v1.previous_assignment[0].partitions) == ("V1", 9, (5,))
    assert userdata.decode_sticky_user_data_fast(groups, None).layout == "V0"
    with pytest.raises(fastpath.NotFast):  # trailing bytes: the declarations judge
        userdata.decode_sticky_user_data_fast(groups + b"\x00" * 5, None)
    with pytest.raises(fastpath.NotFast):  # V0 forced on V1 bytes: declaration (ignores tail)
        userdata.decode_sticky_user_data_fast(groups + struct.pack(">i", 9), 0)
    assert userdata.decode_cooperative_user_data_fast(struct.pack(">i", -1)).generation == -1
    sticky = userdata.decode_cooperative_user_data_fast(groups + struct.pack(">i", 3))
    assert (sticky.layout, sticky.generation) == ("sticky-v1", 3)
