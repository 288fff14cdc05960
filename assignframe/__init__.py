"""assignframe: Kafka consumer-group partition assignment, pluggable.

Nothing is loaded at import time; plugins are discovered lazily by :func:`get_plugin_manager`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import pluggy

from .errors import (
    AssignframeError,
    CodecError,
    DuplicateStrategyError,
    InvalidAssignmentError,
    InvalidStrategyError,
    PluginError,
    ScenarioError,
    StrategyResultError,
    UnknownStrategyError,
    UserDataError,
)
from .hookspecs import PROJECT_NAME
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
from .strategy import Strategy

#: Decorator for hook implementations: ``@hookimpl def register_strategies(registry): ...``
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

try:
    __version__ = version("assignframe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "AssignframeError",
    "Cluster",
    "CodecError",
    "DuplicateStrategyError",
    "GroupAssignment",
    "GroupSubscription",
    "InvalidAssignmentError",
    "InvalidStrategyError",
    "Member",
    "MemberAssignment",
    "MemberState",
    "PluginError",
    "RebalanceProtocol",
    "ScenarioError",
    "Strategy",
    "StrategyResultError",
    "SubscriptionMetadata",
    "TopicPartition",
    "UnknownStrategyError",
    "UserDataError",
    "__version__",
    "hookimpl",
]
