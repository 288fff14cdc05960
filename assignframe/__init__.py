"""assignframe: Kafka consumer-group partition assignment, pluggable.

Nothing is loaded at import time; plugins are discovered lazily by :func:`get_plugin_manager`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

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

try:
    __version__ = version("assignframe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

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
