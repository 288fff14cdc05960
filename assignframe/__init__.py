"""assignframe: Kafka consumer-group partition assignment, pluggable.

Nothing is loaded at import time: each public name is imported from its module when first used
(PEP 562), so ``from assignframe import Strategy`` loads the strategy API and not the runner, the
replays, yaml or the codec; plugins are discovered lazily by :func:`get_plugin_manager`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import (
        AssignframeError,
        BrokerError,
        CodecError,
        DuplicateStrategyError,
        InconsistentGroupProtocolError,
        InvalidAssignmentError,
        InvalidStrategyError,
        PluginError,
        ScenarioError,
        StrategyResultError,
        UnknownStrategyError,
        UserDataError,
    )
    from .hookspecs import hookimpl
    from .metrics import RoundMetrics, Validity, balance_score, round_metrics, validate_assignment
    from .model import (
        Cluster,
        GroupAssignment,
        GroupSubscription,
        Member,
        MemberAssignment,
        MemberState,
        RebalanceProtocol,
        SubscriptionMetadata,
        TopicPartition,
    )
    from .plugins.manager import PluginManager, get_plugin_manager
    from .rebalance.runner import Consumer, GroupRunner, Rebalance, RoundResult
    from .registry import StrategyRegistry
    from .replay.classic import Replay, ReplayStep, replay_scenario
    from .replay.scenario import read_scenarios
    from .replay.server import ServerReplay, replay_server_scenario
    from .server_assignor import (
        HETEROGENEOUS,
        HOMOGENEOUS,
        ServerAssignment,
        ServerAssignor,
        ServerGroupSpec,
        ServerMember,
        ServerTopic,
        Uuid,
        server_name,
    )
    from .strategy import Strategy

#: where each public name lives (the one list: ``__all__`` is these names and ``__version__``)
_SOURCES: dict[str, tuple[str, ...]] = {
    "errors": (
        "AssignframeError",
        "BrokerError",
        "CodecError",
        "DuplicateStrategyError",
        "InconsistentGroupProtocolError",
        "InvalidAssignmentError",
        "InvalidStrategyError",
        "PluginError",
        "ScenarioError",
        "StrategyResultError",
        "UnknownStrategyError",
        "UserDataError",
    ),
    "hookspecs": ("hookimpl",),
    "metrics": (
        "RoundMetrics",
        "Validity",
        "balance_score",
        "round_metrics",
        "validate_assignment",
    ),
    "model": (
        "Cluster",
        "GroupAssignment",
        "GroupSubscription",
        "Member",
        "MemberAssignment",
        "MemberState",
        "RebalanceProtocol",
        "SubscriptionMetadata",
        "TopicPartition",
    ),
    "plugins.manager": ("PluginManager", "get_plugin_manager"),
    "rebalance.runner": ("Consumer", "GroupRunner", "Rebalance", "RoundResult"),
    "registry": ("StrategyRegistry",),
    "replay.classic": ("Replay", "ReplayStep", "replay_scenario"),
    "replay.scenario": ("read_scenarios",),
    "replay.server": ("ServerReplay", "replay_server_scenario"),
    "server_assignor": (
        "HETEROGENEOUS",
        "HOMOGENEOUS",
        "ServerAssignment",
        "ServerAssignor",
        "ServerGroupSpec",
        "ServerMember",
        "ServerTopic",
        "Uuid",
        "server_name",
    ),
    "strategy": ("Strategy",),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "AssignframeError",
    "BrokerError",
    "Cluster",
    "CodecError",
    "Consumer",
    "DuplicateStrategyError",
    "GroupAssignment",
    "GroupRunner",
    "GroupSubscription",
    "HETEROGENEOUS",
    "HOMOGENEOUS",
    "InconsistentGroupProtocolError",
    "InvalidAssignmentError",
    "InvalidStrategyError",
    "Member",
    "MemberAssignment",
    "MemberState",
    "PluginError",
    "PluginManager",
    "Rebalance",
    "RebalanceProtocol",
    "Replay",
    "ReplayStep",
    "RoundMetrics",
    "RoundResult",
    "ScenarioError",
    "ServerAssignment",
    "ServerAssignor",
    "ServerGroupSpec",
    "ServerMember",
    "ServerReplay",
    "ServerTopic",
    "Strategy",
    "StrategyRegistry",
    "StrategyResultError",
    "SubscriptionMetadata",
    "TopicPartition",
    "UnknownStrategyError",
    "UserDataError",
    "Uuid",
    "Validity",
    "__version__",
    "balance_score",
    "get_plugin_manager",
    "hookimpl",
    "read_scenarios",
    "replay_scenario",
    "replay_server_scenario",
    "round_metrics",
    "server_name",
    "validate_assignment",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next lookup finds it without coming here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("assignframe")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
