"""Hypothesis strategies for server-assignor inputs, in the golden file's own format.

:func:`kip848_scenarios` draws one-round scenarios shaped like a line of
``shared/golden/kip848/assign.jsonl`` (the format the replay reads and the Java oracle answers),
so a drawn case is fed to a plugin through the same reader as Java's recorded rounds
(:func:`assignframe.replay.server.server_rounds`), to the oracle as is, and saved as a golden line
when they disagree. What they vary: group size (1-40 members, past the 16-entry tables Java's
tie-breaks follow), member ids outside ASCII (Java compares UTF-16 units), static members, racks
(members' and replicas'), homogeneous and heterogeneous subscriptions (names of missing topics
included), current assignments in any iteration order (foreign topics, partitions of deleted
topics, several holders in share groups), and topic changes since those assignments were made
(topics deleted, re-created under a new id, grown, created), plus uninitialized share partitions.

:func:`server_groups` is the assignor input (``ServerGroupSpec``) of such a scenario.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from ..javaorder import Uuid
from ..replay.server_input import server_rounds
from ..server_assignor import CONSUMER_GROUP, SHARE_GROUP, ServerGroupSpec

__all__ = ["kip848_scenarios", "server_groups"]

#: Member and instance id characters: ASCII, Latin-1, a BMP character after the surrogates and
#: a supplementary one (two UTF-16 units, sorting before it in Java, after it in Python).
_ID_ALPHABET = "abcAZ019-_.\u00e9\uff21\U0001f600"
_TOPIC_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCZ0123456789._-"
_RACKS = ("r0", "r1", "r2")
#: Kafka's reserved topic ids (``Uuid.ZERO_UUID``, ``Uuid.ONE_UUID``, the metadata topic's).
_RESERVED_IDS = frozenset({Uuid(0, 0), Uuid(0, 1)})
#: A name members may subscribe to that no topic has (invisible to assignors, counted by Java).
MISSING_TOPIC = "no-such-topic"

_changes = st.sampled_from(("same", "same", "same", "grown", "deleted", "recreated"))
_replica_racks = st.sampled_from([[], ["r0"], ["r1"], ["r0", "r1"], ["r1", "r2"]])


def _spelled(number: int, alphabet: str) -> str:
    """``number`` written in ``alphabet``'s digits (0 -> its first character): one draw per id."""
    digits = [alphabet[number % len(alphabet)]]
    while number >= len(alphabet):
        number //= len(alphabet)
        digits.append(alphabet[number % len(alphabet)])
    return "".join(digits)


_member_ids = st.integers(0, len(_ID_ALPHABET) ** 6).map(lambda n: _spelled(n, _ID_ALPHABET))
_topic_names = st.integers(0, len(_TOPIC_ALPHABET) ** 8).map(lambda n: _spelled(n, _TOPIC_ALPHABET))
_seeds = st.integers(0, 2**32 - 1)
_uuids = (
    st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1))
    .map(lambda halves: Uuid(*halves))
    .filter(lambda topic_id: topic_id not in _RESERVED_IDS)
)


@st.composite
def kip848_scenarios(
    draw: st.DrawFn,
    assignor: str,
    group_type: str = CONSUMER_GROUP,
    max_members: int = 40,
    max_topics: int = 14,
    max_partitions: int = 24,
    held: bool = True,
) -> dict[str, Any]:
    """A one-round scenario of ``golden/kip848/assign.jsonl`` (without ``result``).

    :param held: members may hold partitions already, of topics that may have changed since;
        else every group is fresh and its topics as they were
    """
    before = _topic_map(draw, max_topics, max_partitions)
    after, deleted = _topic_changes(draw, before, max_partitions, held)
    names = sorted({name for name, _ in before} | set(after))
    count = draw(_sizes(max_members))
    member_ids = draw(st.lists(_member_ids, min_size=count, max_size=count, unique=True))
    members = {m: _member(draw, group_type) for m in member_ids}
    _subscriptions(draw, members, names)
    if held:
        _current_assignments(draw, members, before, after, deleted, group_type)
    round_: dict[str, Any] = {
        "round": 0,
        "event": "generated",
        "members": dict(sorted(members.items())),
    }
    if group_type == SHARE_GROUP:
        round_["unassignable"] = _unassignable(draw, after)
    return {
        "id": f"generated-{assignor}",
        "assignor": assignor,
        "group_type": group_type,
        "category": "generated",
        "topics": after,
        "rounds": [round_],
    }


def server_groups(
    group_type: str = CONSUMER_GROUP, held: bool = True, **sizes: int
) -> st.SearchStrategy[ServerGroupSpec]:
    """The assignor input of a :func:`kip848_scenarios` round."""
    assignor = "simple" if group_type == SHARE_GROUP else "uniform"
    return kip848_scenarios(assignor, group_type, held=held, **sizes).map(
        lambda scenario: next(server_rounds(scenario)).spec
    )


# -- pieces ---------------------------------------------------------------------------------------


def _sizes(largest: int) -> st.SearchStrategy[int]:
    """1..largest, uniformly (``integers`` favours the smallest; this still shrinks to 1)."""
    return st.sampled_from(range(1, largest + 1))


def _topic_map(draw: st.DrawFn, max_topics: int, max_partitions: int) -> list[tuple[str, dict]]:
    """The topics when the current assignments were made: ``(name, {"id", "partitions"})``."""
    count = draw(_sizes(max_topics))
    names = draw(st.lists(_topic_names, min_size=count, max_size=count, unique=True))
    ids = draw(st.lists(_uuids, min_size=len(names), max_size=len(names), unique=True))
    return [
        (name, {"id": str(topic_id), "partitions": draw(st.integers(0, max_partitions))})
        for name, topic_id in zip(names, ids, strict=True)
    ]


def _topic_changes(
    draw: st.DrawFn, before: list[tuple[str, dict]], max_partitions: int, changes: bool
) -> tuple[dict[str, dict], dict[str, str]]:
    """The topic map now, and the ids of topics deleted (or re-created) since: id -> name."""
    after: dict[str, dict] = {}
    deleted: dict[str, str] = {}
    used = {topic["id"] for _, topic in before}
    for name, topic in before:
        change = draw(_changes) if changes else "same"
        if change in ("deleted", "recreated"):
            deleted[topic["id"]] = name
        if change == "deleted":
            continue
        topic = dict(topic)
        if change == "grown":
            topic["partitions"] = draw(st.integers(topic["partitions"], max_partitions + 4))
        elif change == "recreated":
            topic["id"] = str(draw(_uuids.filter(lambda u: str(u) not in used)))
            used.add(topic["id"])
            topic["partitions"] = draw(st.integers(0, max_partitions))
        after[name] = topic
    if changes and draw(st.booleans()):
        fresh = "new-" + draw(_topic_names)  # a name no earlier topic had
        after[fresh] = {
            "id": str(draw(_uuids.filter(lambda u: str(u) not in used))),
            "partitions": draw(st.integers(0, max_partitions)),
        }
    for topic in after.values():
        if draw(st.integers(0, 4)) == 0:  # replica racks, one list per partition
            count = topic["partitions"]
            topic["racks"] = draw(st.lists(_replica_racks, min_size=count, max_size=count))
    return after, deleted


def _member(draw: st.DrawFn, group_type: str) -> dict[str, Any]:
    static = group_type == CONSUMER_GROUP and draw(st.integers(0, 3)) == 0
    return {
        "instance_id": draw(_member_ids) if static else None,
        "rack": draw(st.sampled_from((None, *_RACKS))),
        "topics": [],
        "current": [],
    }


def _subscriptions(draw: st.DrawFn, members: dict[str, dict], names: list[str]) -> None:
    """Everyone alike (homogeneous), everyone on their own, or a few distinct subscriptions."""
    choices = [*names, MISSING_TOPIC]
    # A subscription is a bitmask over the choices: one draw (shrinking to "nothing").
    masks = st.integers(0, (1 << len(choices)) - 1).map(
        lambda mask: [name for i, name in enumerate(choices) if mask >> i & 1]
    )
    style = draw(st.sampled_from(("homogeneous", "each", "few")))
    shared = [draw(masks) for _ in range(3 if style == "few" else 1)]
    pick = masks if style == "each" else st.sampled_from(shared)
    for member in members.values():
        member["topics"] = draw(pick)
    # Static instance ids are unique in a group (the coordinator fences a second claimant).
    seen: set[str] = set()
    for member in members.values():
        if member["instance_id"] in seen:
            member["instance_id"] = None
        seen.add(member["instance_id"])


def _current_assignments(
    draw: st.DrawFn,
    members: dict[str, dict],
    before: list[tuple[str, dict]],
    after: dict[str, dict],
    deleted: dict[str, str],
    group_type: str,
) -> None:
    """Partitions of the earlier topic map held by members, each member's in a drawn order."""
    if draw(st.sampled_from(("fresh", "held", "held"))) == "fresh":
        return
    member_ids = list(members)
    # Per topic: how many of its partitions are held (a draw), by whom (seeded: a draw per
    # partition is slow). Consumer-group partitions have one holder, share ones up to three.
    chooser = random.Random(draw(_seeds))
    most = min(3 if group_type == SHARE_GROUP else 1, len(member_ids))
    held: dict[str, dict[str, list[list[Any]]]] = {m: {} for m in member_ids}
    for name, topic in before:
        entry_of = _entry_maker(name, topic["id"], topic["id"] in deleted)
        partitions = list(range(topic["partitions"]))
        for p in chooser.sample(partitions, draw(st.integers(0, len(partitions)))):
            for member_id in chooser.sample(member_ids, chooser.randint(1, most)):
                held[member_id].setdefault(topic["id"], []).append(entry_of(p))
    shuffle = chooser.shuffle  # the map's iteration order is any
    for member_id, topics in held.items():
        order = list(topics)
        shuffle(order)
        for topic_id in order:
            shuffle(topics[topic_id])
        members[member_id]["current"] = [entry for t in order for entry in topics[t]]
        if group_type == SHARE_GROUP and after and draw(st.integers(0, 4)) == 0:
            empty = draw(st.sampled_from(sorted(after)))
            if after[empty]["id"] not in topics:
                members[member_id]["current_empty_topics"] = [empty]


def _entry_maker(name: str, topic_id: str, is_deleted: bool) -> Any:
    if is_deleted:  # the file's form for an id the topic map no longer has
        return lambda p: [name, p, topic_id]
    return lambda p: [name, p]


def _unassignable(draw: st.DrawFn, after: dict[str, dict]) -> list[list[Any]]:
    pairs = [[name, p] for name, topic in sorted(after.items()) for p in range(topic["partitions"])]
    if not pairs or draw(st.integers(0, 2)) != 0:
        return []
    return sorted(draw(st.lists(st.sampled_from(pairs), max_size=6, unique_by=tuple)))
