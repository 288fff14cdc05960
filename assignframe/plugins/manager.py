"""The one plugin manager: loads plugins, and is the only code that calls hooks.

The rest of assignframe calls the typed methods of :class:`PluginManager` (tox's ``Plugin``
class); nothing else touches ``pm.hook``. Nothing loads at import time: entry points of the
``assignframe`` group are imported the first time a strategy is needed.

Environment switches:

``ASSIGNFRAME_DISABLE_PLUGINS``
    ``1`` loads no entry points at all; a comma-separated list of plugin (entry point) or
    distribution names skips just those.
``ASSIGNFRAME_TRACE_PLUGINS``
    any value but ``""``/``0`` prints every hook call and its result to stderr (pluggy tracing).
"""

from __future__ import annotations

import importlib.metadata
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pluggy

from .. import hookspecs
from ..errors import AssignframeError, PluginError, StrategyResultError, UserDataError
from ..model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    TopicPartition,
)
from ..registry import (
    PluginSource,
    RegisteredServerAssignor,
    RegisteredStreamsAssignor,
    StrategyRegistry,
)
from ..server_assignor import ServerAssignor
from ..strategy import Strategy
from ..streams_assignor import StreamsTaskAssignor
from . import defaults, sources
from .hookcall import HookCalls, HookManager
from .sources import DISABLE_ENV, TRACE_ENV
from .validation import check_group_assignment

__all__ = [
    "DISABLE_ENV",
    "PluginManager",
    "StrategyInfo",
    "TRACE_ENV",
    "get_plugin_manager",
    "isolated_plugin_manager",
    "reset_plugin_manager",
]

_DEFAULTS_NAME = "assignframe.plugins.defaults"

#: The hooks whose default implementation only calls one :class:`Strategy` method: when the
#: strategy's class keeps the base method, the hook's result is known without calling it.
_DEFAULT_HOOK_METHODS = {
    "subscription_metadata": "subscription_user_data",
    "decode_user_data": "decode_user_data",
    "on_assignment": "on_assignment",
}
_HOOK_METHOD_NAMES = frozenset(_DEFAULT_HOOK_METHODS.values())


@dataclass(frozen=True)
class StrategyInfo:
    """What ``assignframe plugins`` shows about one installed strategy."""

    name: str
    class_path: str
    plugin: str
    distribution: str | None
    version: str | None
    protocols: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "class": self.class_path,
            "plugin": self.plugin,
            "distribution": self.distribution,
            "version": self.version,
            "protocols": list(self.protocols),
        }


class PluginManager:
    """Loads assignframe plugins and calls their hooks through typed methods.

    :param load_entrypoints: load the installed ``assignframe`` entry points (lazily, on first use);
        False gives an isolated manager holding only the defaults and what :meth:`register` adds
    """

    def __init__(self, *, load_entrypoints: bool = True) -> None:
        self._pm = HookManager(hookspecs.PROJECT_NAME)
        self._calls = HookCalls(self._pm)
        self._pm.add_hookspecs(hookspecs)
        self._pm.register(defaults, name=_DEFAULTS_NAME)
        self._sources: dict[str, PluginSource] = {}
        self._entrypoints_pending = load_entrypoints
        self._registry: StrategyRegistry | None = None
        # Consumers may be built in several threads at once; loading and discovery happen once.
        self._lock = threading.RLock()
        self._default_hooks: dict[type, frozenset[str]] = {}
        self._default_hooks_changes = -1
        self._defaults_alone: frozenset[str] = frozenset()
        if sources.tracing_requested():
            self._pm.trace.root.setwriter(sys.stderr.write)
            self._pm.enable_tracing()

    # -- plugins ---------------------------------------------------------------------------

    @property
    def hook_manager(self) -> pluggy.PluginManager:
        """The underlying pluggy manager (for tests and debugging; core code uses the methods)."""
        return self._pm

    def register(self, plugin: object, name: str | None = None) -> str:
        """Register a plugin object (module or instance); returns its plugin name."""
        with self._lock:
            self._load_entrypoints()
            plugin_name = self._register(plugin, name or sources.default_plugin_name(plugin), None)
            self._registry = None  # rediscover strategies on next use
            return plugin_name

    def unregister(self, plugin: object) -> None:
        """Remove a plugin registered with :meth:`register` (or loaded from an entry point)."""
        with self._lock:
            plugin_name = self._pm.get_name(plugin)
            self._pm.unregister(plugin)
            self._sources.pop(plugin_name or "", None)
            self._registry = None

    def plugin_sources(self) -> tuple[PluginSource, ...]:
        """Every loaded plugin except the built-in defaults, sorted by name."""
        self._load_entrypoints()
        names = sorted(name for name, _ in self._pm.list_name_plugin() if name != _DEFAULTS_NAME)
        return tuple(self._sources.get(name, PluginSource(name)) for name in names)

    def _register(self, plugin: object, name: str | None, source: PluginSource | None) -> str:
        try:
            plugin_name = self._pm.register(plugin, name=name)
            # Every hookspec exists from the start, so an unknown hook name is a typo.
            self._check_known_hooks(plugin)
        except (ValueError, pluggy.PluginValidationError) as exc:
            culprit = source or PluginSource(name or repr(plugin))
            raise PluginError(f"{culprit} cannot be registered: {exc}") from exc
        assert plugin_name is not None  # pluggy returns None only for blocked names
        self._sources[plugin_name] = source or PluginSource(plugin_name)
        return plugin_name

    def _check_known_hooks(self, plugin: object) -> None:
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError:
            self._pm.unregister(plugin)
            raise

    def _load_entrypoints(self) -> None:
        with self._lock:
            if not self._entrypoints_pending:
                return
            self._entrypoints_pending = False
            disable_all, skipped = sources.disabled_plugins()
            if disable_all:
                return
            for entry_point in sources.installed_entry_points():
                source = sources.source_of(entry_point)
                if skipped & {source.plugin, source.distribution} or self._pm.has_plugin(
                    source.plugin
                ):
                    continue
                self._register(self._import(entry_point, source), source.plugin, source)

    @staticmethod
    def _import(entry_point: importlib.metadata.EntryPoint, source: PluginSource) -> object:
        try:
            return entry_point.load()
        except Exception as exc:  # any import-time failure must name the plugin, never be skipped
            raise PluginError(
                f"{source} failed to load entry point {entry_point.name} = {entry_point.value}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    # -- strategies ------------------------------------------------------------------------

    @property
    def registry(self) -> StrategyRegistry:
        """Every registered strategy class (plugins are loaded and asked on first access)."""
        with self._lock:
            if self._registry is None:
                self._load_entrypoints()
                self._registry = self._collect_strategies()
            return self._registry

    def _collect_strategies(self) -> StrategyRegistry:
        registry = StrategyRegistry()
        for impl in self._pm.hook.register_strategies.get_hookimpls():
            source = self._sources.get(impl.plugin_name, PluginSource(impl.plugin_name))
            others = [p for _, p in self._pm.list_name_plugin() if p is not impl.plugin]
            # One call per plugin (still through pluggy, so tracing sees it) to know who added what.
            only_this_plugin = self._pm.subset_hook_caller("register_strategies", others)
            with registry.registering_for(source):
                try:
                    only_this_plugin(registry=registry)
                except AssignframeError:
                    raise
                except Exception as exc:
                    raise PluginError(
                        f"{source} failed in register_strategies: {type(exc).__name__}: {exc}"
                    ) from exc
        return registry

    def strategy(self, name: str, **options: Any) -> Strategy:
        """A new instance of the strategy called ``name``, built with ``options``.

        :raises UnknownStrategyError: no installed strategy has that name (lists installed ones)
        """
        return self.registry.get(name).cls(**options)

    def strategy_names(self) -> tuple[str, ...]:
        """Sorted names of every installed strategy."""
        return self.registry.names()

    def strategy_info(self) -> tuple[StrategyInfo, ...]:
        """Name, class, distribution, version and protocols of every installed strategy."""
        return tuple(
            StrategyInfo(
                name=entry.name,
                class_path=entry.class_path,
                plugin=entry.source.plugin,
                distribution=entry.source.distribution,
                version=entry.source.version,
                protocols=tuple(p.value for p in entry.protocols),
            )
            for entry in self.registry.entries()
        )

    def server_assignor(self, name: str, **options: Any) -> ServerAssignor:
        """A new instance of the server assignor ``name`` (``uniform`` or ``server:uniform``).

        :raises UnknownStrategyError: no installed server assignor has that name
        """
        return self.registry.get_server(name).cls(**options)

    def server_assignor_info(self) -> tuple[StrategyInfo, ...]:
        """Qualified name, class, distribution and version of every installed server assignor
        (``server:<name>``, then the Streams task assignors, ``streams:<name>``)."""
        entries: tuple[RegisteredServerAssignor | RegisteredStreamsAssignor, ...] = (
            *self.registry.server_entries(),
            *self.registry.streams_entries(),
        )
        return tuple(
            StrategyInfo(
                name=entry.name,
                class_path=entry.class_path,
                plugin=entry.source.plugin,
                distribution=entry.source.distribution,
                version=entry.source.version,
                protocols=entry.group_types,
            )
            for entry in entries
        )

    def streams_assignor(self, name: str, **options: Any) -> StreamsTaskAssignor:
        """A new instance of the Streams task assignor ``name`` (``sticky`` or ``streams:sticky``).

        :raises UnknownStrategyError: no installed Streams task assignor has that name
        """
        return self.registry.get_streams(name).cls(**options)

    def describe(self, strategy: Strategy) -> str:
        """``'name' (class from plugin, distribution)`` for error messages."""
        name = getattr(strategy, "name", "?")
        entry = self.registry.find(name)
        if entry is not None and entry.cls is type(strategy):
            return f"strategy {name!r} ({entry.describe()})"
        cls = type(strategy)
        return f"strategy {name!r} ({cls.__module__}.{cls.__qualname__}, not registered)"

    # -- hooks -----------------------------------------------------------------------------

    def defaults_alone(self) -> frozenset[str]:
        """The hooks among ``subscription_metadata``, ``decode_user_data`` and ``on_assignment``
        that only assignframe's defaults implement (:mod:`assignframe.plugins.defaults`, the same
        decision as calling a hook without pluggy, :mod:`assignframe.plugins.hookcall`): calling
        the default is then the hook call, whichever strategy it is for (the default calls the
        strategy's own method). Re-decided whenever plugins change."""
        if self._entrypoints_pending:  # what they register counts
            self._load_entrypoints()
        if self._default_hooks_changes != self._pm.changes:
            self._default_hooks, self._default_hooks_changes = {}, self._pm.changes
            self._defaults_alone = frozenset(
                hook
                for hook in _DEFAULT_HOOK_METHODS
                if self._calls.lone_implementation_is(hook, getattr(defaults, hook))
            )
        return self._defaults_alone

    def default_hooks(self, strategy: Strategy) -> frozenset[str]:
        """The hooks among ``subscription_metadata``, ``decode_user_data`` and ``on_assignment``
        that do for ``strategy`` exactly what assignframe's defaults do with the base
        :class:`Strategy` methods: only the defaults implement the hook (:meth:`defaults_alone`)
        and the strategy's class keeps the base method. Callers may then skip the hook and use
        the known result (no user data, none decoded, the assigned partitions kept). Detected
        from the class, so no strategy declares anything; re-decided whenever plugins change."""
        cls = type(strategy)
        alone = self.defaults_alone()  # HookCalls.changes read directly: called per member
        known = self._default_hooks.get(cls)
        if known is None:
            known = self._default_hooks[cls] = frozenset(
                hook
                for hook in alone
                if getattr(cls, _DEFAULT_HOOK_METHODS[hook], None)
                is getattr(Strategy, _DEFAULT_HOOK_METHODS[hook])
            )
        own = getattr(strategy, "__dict__", ())
        if known and not _HOOK_METHOD_NAMES.isdisjoint(own):  # a method set on the instance
            return known - {h for h, m in _DEFAULT_HOOK_METHODS.items() if m in own}
        return known

    def subscription_metadata(
        self,
        strategy: Strategy,
        topics: tuple[str, ...],
        state: MemberState,
        rack: str | None = None,
        protocol: RebalanceProtocol | None = None,
    ) -> SubscriptionMetadata:
        """What a member sends in JoinGroup for ``strategy`` (see the hook of the same name)."""
        if "subscription_metadata" in self.defaults_alone():  # always a SubscriptionMetadata
            return defaults.subscription_metadata(
                strategy, tuple(topics), state, rack, protocol or strategy.protocol
            )
        metadata = self._call(
            "subscription_metadata",
            strategy=strategy,
            topics=tuple(topics),
            state=state,
            rack=rack,
            protocol=protocol or strategy.protocol,
        )
        return self._expect(SubscriptionMetadata, metadata, strategy, "subscription_metadata")

    def decode_user_data(
        self, strategy: Strategy, member_id: str, user_data: bytes | None, subscription_version: int
    ) -> Any:
        """Decode one member's user data for ``strategy``.

        :raises UserDataError: the bytes cannot be decoded (names the member and the strategy)
        """
        try:
            if "decode_user_data" in self.defaults_alone():
                return defaults.decode_user_data(strategy, user_data, subscription_version)
            return self._call(
                "decode_user_data",
                strategy=strategy,
                member_id=member_id,
                user_data=user_data,
                subscription_version=subscription_version,
            )
        except UserDataError:
            raise
        except Exception as exc:
            raise UserDataError(
                f"member {member_id!r}: user data cannot be decoded by {self.describe(strategy)}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def assign(self, strategy: Strategy, group: GroupSubscription) -> GroupAssignment:
        """Run the assign hook, check the result is a GroupAssignment of exactly the group's
        members, then let every ``after_assignment`` observer see it.

        :raises StrategyResultError: the strategy raised or returned something malformed
        """
        try:
            result = self._call("assign", strategy=strategy, group=group)
        except AssignframeError:
            raise
        except Exception as exc:
            raise StrategyResultError(
                f"{self.describe(strategy)} raised {type(exc).__name__}: {exc}"
            ) from exc
        problem = check_group_assignment(result, group)
        if problem:
            raise StrategyResultError(f"{self.describe(strategy)} returned {problem}")
        self._call("after_assignment", strategy=strategy, group=group, assignment=result)
        return result

    def on_assignment(
        self,
        strategy: Strategy,
        assignment: MemberAssignment,
        generation: int,
        state: MemberState,
    ) -> MemberState:
        """The state a member keeps after receiving ``assignment`` (see the hook)."""
        if "on_assignment" in self.defaults_alone():
            new_state = defaults.on_assignment(strategy, assignment, generation, state)
            return self._expect(MemberState, new_state, strategy, "on_assignment")
        new_state = self._call(
            "on_assignment",
            strategy=strategy,
            assignment=assignment,
            generation=generation,
            state=state,
        )
        return self._expect(MemberState, new_state, strategy, "on_assignment")

    def lag_source(
        self, *, cluster: Cluster, topics: tuple[str, ...], group_id: str | None = None
    ) -> dict[TopicPartition, int] | None:
        """Per-partition lags from the first lag source that knows them, else None."""
        lags = self._call("lag_source", group_id=group_id, cluster=cluster, topics=topics)
        if lags is None:
            return None
        if not isinstance(lags, Mapping) or not all(
            isinstance(tp, TopicPartition) and isinstance(lag, int) for tp, lag in lags.items()
        ):
            raise PluginError(
                f"a lag_source hook returned {type(lags).__name__}, not a mapping of "
                "TopicPartition to int"
            )
        return dict(lags)

    def _call(self, name: str, **kwargs: Any) -> Any:
        """Call hook ``name`` (see :mod:`assignframe.plugins.hookcall` for when that skips
        pluggy)."""
        return self._calls.call(name, kwargs)

    def _expect(self, expected: type, value: Any, strategy: Strategy, hook_name: str) -> Any:
        if not isinstance(value, expected):
            raise StrategyResultError(
                f"{hook_name} for {self.describe(strategy)} returned {type(value).__name__}, "
                f"expected {expected.__name__}"
            )
        return value


_shared_manager: PluginManager | None = None
_shared_lock = threading.Lock()


def get_plugin_manager() -> PluginManager:
    """The process-wide manager loading installed plugins (created on first call)."""
    global _shared_manager
    with _shared_lock:
        if _shared_manager is None:
            _shared_manager = PluginManager()
        return _shared_manager


def reset_plugin_manager() -> None:
    """Forget the process-wide manager (after installing or removing plugins at run time)."""
    global _shared_manager
    _shared_manager = None


def isolated_plugin_manager(plugins: Iterable[object] = ()) -> PluginManager:
    """A manager that loads no entry points, holding only the defaults and ``plugins``."""
    manager = PluginManager(load_entrypoints=False)
    for plugin in plugins:
        manager.register(plugin)
    return manager
