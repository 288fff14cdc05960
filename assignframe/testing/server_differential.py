"""A server assignor against Apache Kafka's own, on generated groups (the Java oracle).

In a server-assignor plugin's tests (``assignframe_java_oracle``, the pytest plugin's session
fixture, holds one JVM for the whole session)::

    from assignframe.testing.server_differential import MatchesJava

    class TestUniformMatchesJava(MatchesJava):
        assignor_name = "server:uniform"

or by hand: :func:`check_against_java` and :func:`replay_saved`.

Each example is a :func:`~assignframe.testing.server_groups.kip848_scenarios` round, fed to the
assignor through the golden file's reader and to Java as is; results must be identical, member
for member (and the members Java leaves out of its ``GroupAssignment`` must be those the plugin
leaves out). When they differ, hypothesis shrinks the case and the smallest one is appended to
``FOUND`` (``java_differences.jsonl`` beside the test) as a golden line carrying Java's result:
commit it with the fix, and :func:`replay_saved` replays it ever after.

``ASSIGNFRAME_DIFFERENTIAL_EXAMPLES`` sets the number of generated groups (default 2,000).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings

from ..javaorder import Uuid
from ..plugins import get_plugin_manager
from ..replay.server import contract_violations, result_pairs
from ..replay.server_input import ServerRound, server_rounds
from ..server_assignor import ServerAssignment, ServerAssignor
from .java_oracle import JavaOracle, OracleRequestError
from .server_golden import assert_matches_java
from .server_groups import kip848_scenarios

__all__ = [
    "DERANDOMIZE_ENV",
    "EXAMPLES_ENV",
    "FOUND_FILE",
    "MatchesJava",
    "check_against_java",
    "differential_settings",
    "java_line",
    "recheck_case",
    "replay_saved",
    "round_disagreement",
    "saved_cases",
]

EXAMPLES_ENV = "ASSIGNFRAME_DIFFERENTIAL_EXAMPLES"
#: ``1``: the same examples on every run (hypothesis's ``derandomize``), for a test of the kit
#: itself whose outcome must not depend on which groups came up
DERANDOMIZE_ENV = "ASSIGNFRAME_DIFFERENTIAL_DERANDOMIZE"
#: Where a plugin's tests keep the shrunk cases found so far (beside the test module).
FOUND_FILE = "java_differences.jsonl"
_BAD_REQUEST = "KafkaGroupOracle$BadRequest"


def differential_settings(default_examples: int = 2000) -> settings:
    """``$ASSIGNFRAME_DIFFERENTIAL_EXAMPLES`` examples (else ``default_examples``), no deadline
    (the JVM may pause), new examples on every run unless ``$ASSIGNFRAME_DIFFERENTIAL_DERANDOMIZE``
    is ``1``."""
    return settings(
        max_examples=int(os.environ.get(EXAMPLES_ENV, str(default_examples))),
        derandomize=os.environ.get(DERANDOMIZE_ENV) == "1",
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def java_answer(oracle: JavaOracle, assignor: str, scenario: Mapping[str, Any]) -> dict[str, Any]:
    """Java's response for the scenario's first round: ``{"result", "result_missing"?}`` or
    ``{"error": {"class", "message"}}`` when Kafka's assignor threw.

    :raises OracleRequestError: the oracle refused the request itself (a malformed scenario)
    """
    request = {**scenario["rounds"][0], "topics": scenario["topics"]}
    request["group_type"] = scenario["group_type"]
    try:
        return oracle.assign(assignor, request)
    except OracleRequestError as exc:
        if exc.java_class == _BAD_REQUEST:
            raise
        return {"error": {"class": exc.java_class, "message": exc.java_message}}


def round_disagreement(
    assignor: ServerAssignor, round_: ServerRound, java: Mapping[str, Any]
) -> str | None:
    """How the assignor's answer to ``round_`` differs from Java's (None when identical)."""
    try:
        assignment = assignor.assign(round_.spec)
    except Exception as exc:  # noqa: BLE001 - compared with Java's exception, reported below
        if "error" in java:
            return None  # both refuse the input
        return f"ours raised {type(exc).__name__}: {exc}; Java's result: {java['result']}"
    if "error" in java:
        return f"Java raised {java['error']}; ours: {result_pairs(round_, assignment)}"
    ours = result_pairs(round_, assignment)
    if ours != java["result"]:
        differing = sorted(m for m in ours if ours[m] != java["result"].get(m))
        shown = {m: (ours[m], java["result"].get(m)) for m in differing[:3]}
        return f"members {differing} differ (ours, Java's): {shown}"
    ours_missing = sorted(m for m in round_.spec.members if m not in assignment.members)
    java_missing = sorted(java.get("result_missing", []))
    if ours_missing != java_missing:
        return f"members left out: ours {ours_missing}, Java's {java_missing}"
    return None


def java_line(scenario: Mapping[str, Any], java: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario as a golden line: its round carries Java's result (and the contract breaches
    of that result, as ``assign.jsonl`` notes them)."""
    round_ = dict(scenario["rounds"][0])
    round_["result"] = java["result"]
    if java.get("result_missing"):
        round_["result_missing"] = java["result_missing"]
    parsed = next(server_rounds({**scenario, "rounds": [round_]}))
    violations = contract_violations(parsed, _assignment_of(parsed, java["result"]))
    if violations:
        round_["violations"] = list(violations)
    return {**scenario, "id": f"{scenario['id']}-{_digest(scenario)}", "rounds": [round_]}


def check_against_java(
    assignor: ServerAssignor,
    oracle: JavaOracle,
    found: Path,
    group_type: str | None = None,
    default_examples: int = 2000,
) -> int:
    """Generated groups give Java's result; the smallest counter-example goes to ``found``.

    :param group_type: ``consumer`` or ``share`` (default: the assignor's first group type)
    :param default_examples: how many groups unless ``$ASSIGNFRAME_DIFFERENTIAL_EXAMPLES`` says
    :returns: how many groups were compared
    """
    kind = group_type or assignor.group_types[0]
    failures: list[dict[str, Any]] = []
    compared = [0]

    @differential_settings(default_examples)
    @given(kip848_scenarios(assignor.name, kind))
    def matches_java(scenario: dict[str, Any]) -> None:
        java = java_answer(oracle, assignor.name, scenario)
        compared[0] += 1
        problem = round_disagreement(assignor, next(server_rounds(scenario)), java)
        if problem is not None:
            failures[:] = [java_line(scenario, java)] if "result" in java else []
            raise AssertionError(problem)

    try:
        matches_java()
        return compared[0]
    except AssertionError as exc:
        if not failures:
            raise
        # The last failing example hypothesis ran is the shrunk one it reports.
        with found.open("a", encoding="utf-8") as saved:
            saved.write(json.dumps(failures[-1], ensure_ascii=True) + "\n")
        raise AssertionError(
            f"{exc}\nthe shrunk case was appended to {found} as a golden line"
        ) from exc


def saved_cases(found: Path) -> list[dict[str, Any]]:
    """The golden lines of ``found`` (blank lines skipped)."""
    with found.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def recheck_case(assignor: ServerAssignor, oracle: JavaOracle, case: dict[str, Any]) -> None:
    """The assignor gives the line's recorded result, and Java still does."""
    java = java_answer(oracle, assignor.name, case)
    assert java.get("result") == case["rounds"][0]["result"], f"{case['id']}: Java changed"
    assert_matches_java(assignor, case)


def replay_saved(assignor: ServerAssignor, oracle: JavaOracle, found: Path) -> int:
    """:func:`recheck_case` for every line of ``found``; returns how many there were.

    :raises FileNotFoundError: ``found`` does not exist
    """
    cases = saved_cases(found)
    for case in cases:
        recheck_case(assignor, oracle, case)
    return len(cases)


def _assignment_of(round_: ServerRound, result: Mapping[str, list[list[Any]]]) -> ServerAssignment:
    """A result in the file's layout back as an assignment (ids from the round's topic map)."""
    by_name = {topic.name: topic_id for topic_id, topic in round_.spec.topics.items()}
    members: dict[str, dict[Uuid, list[int]]] = {}
    for member_id, pairs in result.items():
        topics = members.setdefault(member_id, {})
        for name, partition, *deleted_id in pairs:
            topic_id = Uuid.from_string(deleted_id[0]) if deleted_id else by_name[name]
            topics.setdefault(topic_id, []).append(partition)
    return ServerAssignment(members)


def _digest(scenario: Mapping[str, Any]) -> str:
    text = json.dumps(scenario, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


class MatchesJava:
    """Base class: generated groups give Java's result (the oracle's), and each saved shrunk case
    (``java_differences.jsonl`` beside the test module, one test per line) still gives the
    recorded one, through the plugin and through Java. Set ``assignor_name``."""

    assignor_name: ClassVar[str]

    def make_assignor(self) -> ServerAssignor:
        return get_plugin_manager().server_assignor(self.assignor_name)

    @classmethod
    def found_file(cls) -> Path:
        return Path(inspect.getfile(cls)).with_name(FOUND_FILE)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "saved_case" not in metafunc.fixturenames:
            return
        found = self.found_file()
        cases: list[Any] = saved_cases(found) if found.exists() else []
        if not cases:  # visible in the report, with the reason
            why = f"no difference from Java found so far ({found.name} does not exist)"
            cases = [pytest.param(None, marks=pytest.mark.skip(reason=why))]
        metafunc.parametrize("saved_case", cases, ids=_case_id)

    def test_generated_groups_match_java(self, assignframe_java_oracle: JavaOracle) -> None:
        check_against_java(self.make_assignor(), assignframe_java_oracle, self.found_file())

    def test_saved_difference_still_matches_java(
        self, assignframe_java_oracle: JavaOracle, saved_case: dict[str, Any]
    ) -> None:
        recheck_case(self.make_assignor(), assignframe_java_oracle, saved_case)


def _case_id(case: object) -> str:
    return str(case["id"]) if isinstance(case, dict) else "none"
