"""A Streams task assignor against Apache Kafka 4.3.1's own (``StickyTaskAssignor``), through the
:mod:`~assignframe.testing.java43_oracle`.

The request layout (:func:`streams_request`) is the oracle's ``streams_assign`` and the golden
lines' ``request``; results on both sides are :func:`normalized` as ``{member: {"active",
"standby", "warmup"}}`` with ``[subtopology, partition]`` lists, sorted. Generated groups
(:func:`streams_groups`) mix what the coordinator sees between rounds: members of one process
(threads), previous active tasks claimed twice, standby tasks beside active ones, tasks of
partitions the topology no longer has, member ids whose ``String.hashCode`` collide.

``ASSIGNFRAME_DIFFERENTIAL_EXAMPLES`` sets the number of generated groups (default 2,000).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ..streams_assignor import (
    TASK_KINDS,
    MemberTasks,
    StreamsGroupSpec,
    StreamsMember,
    StreamsTaskAssignment,
    StreamsTaskAssignor,
    Subtopology,
)
from .java43_oracle import Kafka43Oracle
from .java_oracle import OracleRequestError
from .server_differential import differential_settings

__all__ = [
    "check_streams_against_java",
    "group_from_request",
    "java_streams_answer",
    "normalized",
    "ours",
    "read_golden",
    "streams_groups",
    "streams_request",
]

_BAD_REQUEST = "Kafka43Oracle$BadRequest"


def _tasks_json(tasks: tuple[tuple[str, int], ...]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for subtopology, partition in tasks:
        out.setdefault(subtopology, []).append(partition)
    return out


def streams_request(group: StreamsGroupSpec) -> dict[str, Any]:
    """The oracle's ``streams_assign`` request for ``group`` (members in their listed order)."""
    members = []
    for m in group.members:
        entry: dict[str, Any] = {"member_id": m.member_id, "process_id": m.process_id}
        for kind in TASK_KINDS:
            tasks = getattr(m.current, kind)
            if tasks:
                entry[kind] = _tasks_json(tasks)
        members.append(entry)
    return {
        "subtopologies": {
            s.subtopology_id: {"partitions": s.partitions, "stateful": s.stateful}
            for s in group.subtopologies
        },
        "members": members,
        "configs": {"num.standby.replicas": str(group.num_standby_replicas)},
    }


def group_from_request(request: Mapping[str, Any]) -> StreamsGroupSpec:
    """:func:`streams_request` read back (golden lines carry requests)."""
    members = tuple(
        StreamsMember(
            m["member_id"],
            m["process_id"],
            MemberTasks(
                *(
                    tuple((s, p) for s, ps in (m.get(kind) or {}).items() for p in ps)
                    for kind in TASK_KINDS
                )
            ),
        )
        for m in request["members"]
    )
    subtopologies = tuple(
        Subtopology(sub_id, spec["partitions"], bool(spec.get("stateful")))
        for sub_id, spec in request["subtopologies"].items()
    )
    replicas = int((request.get("configs") or {}).get("num.standby.replicas", 0))
    return StreamsGroupSpec(members, subtopologies, replicas)


def normalized(result: Mapping[str, Any]) -> dict[str, dict[str, list[list[Any]]]]:
    """``{member: {kind: [[subtopology, partition], ...]}}``, lists sorted (Python order)."""
    return {
        member: {kind: sorted([list(t) for t in tasks.get(kind, [])]) for kind in TASK_KINDS}
        for member, tasks in result.items()
    }


def ours(assignor: StreamsTaskAssignor, group: StreamsGroupSpec) -> dict[str, Any]:
    """The assignor's answer in the oracle's layout: ``{"result": ...}`` or ``{"error": ...}``."""
    try:
        assignment: StreamsTaskAssignment = assignor.assign(group)
    except Exception as exc:  # noqa: BLE001 - compared with Java's exception
        return {"error": {"class": type(exc).__name__, "message": str(exc)}}
    return {
        "result": normalized(
            {m: {k: getattr(t, k) for k in TASK_KINDS} for m, t in assignment.members.items()}
        )
    }


def java_streams_answer(oracle: Kafka43Oracle, request: Mapping[str, Any]) -> dict[str, Any]:
    """Java's ``{"result": ...}`` (normalized) or ``{"error": ...}`` when its assignor threw.

    :raises OracleRequestError: the oracle refused the request itself
    """
    try:
        return {"result": normalized(oracle.streams_assign(request)["result"])}
    except OracleRequestError as exc:
        if exc.java_class == _BAD_REQUEST:
            raise
        return {"error": {"class": exc.java_class, "message": exc.java_message}}


def _disagreement(mine: Mapping[str, Any], java: Mapping[str, Any]) -> str | None:
    """How two answers differ (None when they agree: same result, or both refuse)."""
    if "error" in java or "error" in mine:
        if "error" in java and "error" in mine:
            return None
        return f"ours: {mine}; Java's: {java}"
    if mine["result"] == java["result"]:
        return None
    differing = sorted(m for m in java["result"] if mine["result"].get(m) != java["result"][m])
    shown = {m: (mine["result"].get(m), java["result"][m]) for m in differing[:3]}
    return f"members {differing} differ (ours, Java's): {shown}"


# -- generated groups ---------------------------------------------------------------------------

# "Aa" and "BB" share a String.hashCode, so do "AaAa"/"BBBB"/"AaBB": ties of HashMap order.
_MEMBER_IDS = st.one_of(
    st.sampled_from(["Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa", "m1", "m2", "m10"]),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6),
)
_SUBTOPOLOGY_IDS = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "10", "11"]),
    st.text("abAB01_-", min_size=1, max_size=3),
)


@st.composite
def streams_groups(draw: st.DrawFn) -> StreamsGroupSpec:
    """A Streams group: topology, processes and members with arbitrary current tasks."""
    sub_ids = draw(st.lists(_SUBTOPOLOGY_IDS, min_size=1, max_size=4, unique=True))
    subtopologies = tuple(
        Subtopology(s, draw(st.integers(0, 8)), draw(st.sampled_from([True, True, False])))
        for s in sub_ids
    )
    universe = [(s.subtopology_id, p) for s in subtopologies for p in range(s.partitions + 1)]
    processes = draw(
        st.lists(st.text("pqrs0123", min_size=1, max_size=3), min_size=2, max_size=5, unique=True)
    )
    # at least one member: a group without members only makes Kafka's assignor throw (the golden
    # file has those rounds), and would take a sixth of the examples
    member_ids = draw(st.lists(_MEMBER_IDS, min_size=1, max_size=9, unique=True))
    sticky = draw(st.sampled_from([0.0, 0.5, 1.0, 1.0]))
    members = []
    spread = draw(st.booleans())  # members dealt round the processes, or drawn freely
    for index, member_id in enumerate(member_ids):
        current = MemberTasks()
        if universe and draw(st.floats(0, 1)) < sticky:
            pick = st.lists(st.sampled_from(universe), max_size=6, unique=True)
            current = MemberTasks(tuple(draw(pick)), tuple(draw(pick)), tuple(draw(pick)))
        process = processes[index % len(processes)] if spread else draw(st.sampled_from(processes))
        members.append(StreamsMember(member_id, process, current))
    replicas = draw(st.sampled_from([1, 0, 2, 1, 3]))
    return StreamsGroupSpec(tuple(members), subtopologies, replicas)


def check_streams_against_java(assignor: StreamsTaskAssignor, oracle: Kafka43Oracle) -> int:
    """Generated groups give Java's answer; returns how many groups were compared.

    :raises AssertionError: the first (shrunk) group where they differ, with both answers
    """
    compared = [0]

    @differential_settings()
    @given(streams_groups())
    def matches_java(group: StreamsGroupSpec) -> None:
        request = streams_request(group)
        problem = _disagreement(ours(assignor, group), java_streams_answer(oracle, request))
        compared[0] += 1
        if problem is not None:
            raise AssertionError(f"{problem}\nrequest: {json.dumps(request)}")

    matches_java()
    return compared[0]


def read_golden(path: Path) -> list[dict[str, Any]]:
    """The golden lines of ``path`` (``{"id", "note"?, "request", "result" | "error"}``)."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
