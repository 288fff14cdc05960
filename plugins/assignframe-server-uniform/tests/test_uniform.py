"""server:uniform's properties on groups of our own: balance, stickiness, discovery."""

from __future__ import annotations

import pickle

from assignframe_server_uniform import UniformAssignor

from assignframe import ServerGroupSpec, ServerMember, ServerTopic, Uuid, get_plugin_manager

TOPICS = {Uuid(i, i): ServerTopic(Uuid(i, i), f"t{i}", 5 + i) for i in range(4)}


def group(members: dict[str, tuple[str, ...]], current=None) -> ServerGroupSpec:
    current = current or {}
    return ServerGroupSpec(
        {
            m: ServerMember(m, topics, tuple(current.get(m, {}).items()))
            for m, topics in members.items()
        },
        TOPICS,
    )


def counts(result, spec) -> list[int]:
    return [len(result.partitions_of(m)) for m in spec.members]


def test_found_through_its_entry_point_as_server_uniform():
    assert isinstance(get_plugin_manager().server_assignor("server:uniform"), UniformAssignor)


def test_homogeneous_is_balanced_to_one_and_covers_every_partition_once():
    spec = group({f"m{i}": ("t0", "t1", "t2", "t3") for i in range(5)})
    result = UniformAssignor().assign(spec)
    assert max(counts(result, spec)) - min(counts(result, spec)) <= 1
    every = [tp for m in spec.members for tp in result.partitions_of(m)]
    assert sorted(every) == sorted(
        (t, p) for t, topic in TOPICS.items() for p in range(topic.partitions)
    )


def test_a_joining_member_only_takes_its_share():
    members = {f"m{i}": ("t0", "t1", "t2", "t3") for i in range(4)}
    first = UniformAssignor().assign(group(members))
    current = {m: first.members[m] for m in members}
    second_spec = group({**members, "m9": ("t0", "t1", "t2", "t3")}, current)
    second = UniformAssignor().assign(second_spec)
    moved = sum(
        1
        for m in members
        for tp in second.partitions_of(m)
        if tp not in set(first.partitions_of(m))
    )
    assert moved == 0  # old members only give up partitions, the newcomer takes them
    assert len(second.partitions_of("m9")) == sum(5 + i for i in range(4)) // 5


def test_heterogeneous_gives_topics_only_to_subscribers():
    spec = group({"a": ("t0",), "b": ("t0", "t1"), "c": ("t1", "gone")})
    result = UniformAssignor().assign(spec)
    for member_id, member in spec.members.items():
        assert {t for t, _ in result.partitions_of(member_id)} <= {
            tid for tid, topic in TOPICS.items() if topic.name in member.topics
        }


def test_deterministic_and_picklable():
    spec = group({"a": ("t0", "t2"), "b": ("t2",)})
    assignor = pickle.loads(pickle.dumps(UniformAssignor()))
    assert assignor.assign(spec) == UniformAssignor().assign(spec)


def test_no_existing_topic_gives_an_empty_assignment():
    assert UniformAssignor().assign(group({"a": ("gone",), "b": ("gone",)})).members == {}


def test_a_tie_goes_to_the_member_first_in_the_coordinators_map():
    """Two members (ids in one HashMap bucket) share t0's 5 partitions, a third takes t1: the
    heterogeneous builder gives the odd partition to the member its map iterates first, which
    for ids sharing a bucket is the one the coordinator inserted first (``member_order``)."""
    first, second = "xIClRT0fRbKTtbnZzvm/IA", "3-f-NHgHQuWjlPoVjqytqw"  # both in bucket 7
    members = {first: ("t0",), second: ("t0",), "other": ("t1",)}
    spec = group(members)
    assert len(UniformAssignor().assign(spec).partitions_of(second)) == 3  # ascending ids
    table = ServerGroupSpec(spec.members, TOPICS, member_order=(first, "other", second))
    result = UniformAssignor().assign(table)
    assert [len(result.partitions_of(m)) for m in (first, second)] == [3, 2]
