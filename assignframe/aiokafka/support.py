"""Which aiokafka versions the adapter runs on, checked before any consumer is built.

The cooperative protocol needs a few of aiokafka's internals (the *hook points*, listed in
``HOOK_POINTS`` and in docs/adapters.md). They are the same, up to formatting, from 0.10.0 to
0.14.0: 0.10.0 is the oldest tested (tox env ``aiokafka-oldest``), 0.14.0 the newest
(``aiokafka-latest``). Older versions join with JoinGroup v2 at most and call the leader's hook
with other arguments; newer ones are untested. Either fails in :func:`require_supported_aiokafka`,
called by :func:`assignframe.aiokafka.assignors`, so an unsupported aiokafka stops the consumer
from being built, never its first rebalance.
"""

from __future__ import annotations

import importlib
import inspect
import re

__all__ = [
    "FIRST_UNSUPPORTED",
    "HOOK_POINTS",
    "OLDEST_SUPPORTED",
    "aiokafka_version",
    "hook_point_problems",
    "require_supported_aiokafka",
    "version_problem",
]

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")

OLDEST_SUPPORTED = (0, 10, 0)
#: The first version not tested (0.14.x is the newest).
FIRST_UNSUPPORTED = (0, 15, 0)

#: module -> class (or "" for the module itself) -> attribute -> its parameters after ``self``
#: (None: the attribute must exist, its signature is not checked).
HOOK_POINTS: dict[str, dict[str, dict[str, tuple[str, ...] | None]]] = {
    "aiokafka.consumer.consumer": {"": {"GroupCoordinator": None}},
    "aiokafka.consumer.group_coordinator": {
        "GroupCoordinator": {
            "_on_join_prepare": ("previous_assignment",),
            "_on_join_complete": ("generation", "member_id", "protocol", "member_assignment_bytes"),
            "_perform_assignment": ("response",),
            "_maybe_do_last_autocommit": ("assignment",),
            "commit_offsets": ("assignment", "offsets"),
            "_stop_commit_offsets_refresh_task": (),
            "start_commit_offsets_refresh_task": ("assignment",),
            "_lookup_assignor": ("name",),
            "request_rejoin": (),
        },
    },
    "aiokafka.consumer.subscription_state": {
        "SubscriptionState": {
            "assign_from_subscribed": ("assignment",),
            "begin_reassignment": (),
        },
        "Assignment": {"state_value": ("tp",)},
        "TopicPartitionState": {"seek": ("position",), "pause": ()},
    },
}


def aiokafka_version(text: str) -> tuple[int, ...]:
    """``"0.14.0"`` -> ``(0, 14, 0)``; a pre-release counts as its release (``"0.15.0rc1"``),
    text that is no version as ``()`` (unsupported)."""
    match = _VERSION.match(text)
    return tuple(int(part) for part in match.groups() if part is not None) if match else ()


def version_problem(text: str) -> str | None:
    """Why aiokafka ``text`` is not supported, or None."""
    version = aiokafka_version(text)
    if OLDEST_SUPPORTED <= version < FIRST_UNSUPPORTED:
        return None
    oldest, first_unsupported = (
        ".".join(map(str, v)) for v in (OLDEST_SUPPORTED, FIRST_UNSUPPORTED)
    )
    return (
        f"aiokafka {text} is not supported by assignframe.aiokafka: it runs on aiokafka "
        f">={oldest},<{first_unsupported} (pip install 'aiokafka>={oldest},<{first_unsupported}')"
    )


def hook_point_problems(
    points: dict[str, dict[str, dict[str, tuple[str, ...] | None]]] = HOOK_POINTS,
) -> list[str]:
    """Every hook point that is missing or takes other parameters, as ``module.Class.name: why``."""
    problems = []
    for module_name, classes in points.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            problems.append(f"{module_name}: cannot be imported ({error})")
            continue
        for class_name, attributes in classes.items():
            owner = getattr(module, class_name, None) if class_name else module
            where = f"{module_name}.{class_name}" if class_name else module_name
            if owner is None:
                problems.append(f"{where}: missing")
                continue
            for name, parameters in attributes.items():
                problem = _attribute_problem(owner, name, parameters)
                if problem:
                    problems.append(f"{where}.{name}: {problem}")
    return problems


def _attribute_problem(owner: object, name: str, parameters: tuple[str, ...] | None) -> str | None:
    attribute = getattr(owner, name, None)
    if attribute is None:
        return "missing"
    if parameters is None:
        return None
    found = tuple(inspect.signature(attribute).parameters)[1:]  # after self
    if found != parameters:
        return f"takes {found}, expected {parameters}"
    return None


def require_supported_aiokafka() -> None:
    """Check the installed aiokafka once, before a consumer is built.

    :raises ImportError: aiokafka is missing, of an unsupported version, or lacks a hook point
        (one message naming the version and every problem)
    """
    try:
        import aiokafka
    except ImportError as error:
        raise ImportError(
            "assignframe.aiokafka needs aiokafka: pip install 'assignframe[aiokafka]'"
        ) from error
    problem = version_problem(aiokafka.__version__)
    if problem:
        raise ImportError(problem)
    missing = hook_point_problems()
    if missing:
        raise ImportError(
            f"aiokafka {aiokafka.__version__} lacks what assignframe.aiokafka hooks into: "
            + "; ".join(missing)
        )
