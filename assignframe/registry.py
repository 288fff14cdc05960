"""The strategy registry handed to every plugin's ``register_strategies`` hook.

Each class names itself with its ``name`` attribute. A bad class or a name claimed twice fails
loudly and names the classes and the distributions involved (hatch's ``ClassRegister``): an
assignor that silently shadows another changes who owns which partition.

KIP-848 server assignors (:class:`~assignframe.server_assignor.ServerAssignor` subclasses) go
through the same ``add`` but live in their own namespace, under ``server:<name>``: the client
``range`` and the broker's ``range`` never collide. Streams task assignors
(:class:`~assignframe.streams_assignor.StreamsTaskAssignor` subclasses) likewise live under
``streams:<name>``. :meth:`StrategyRegistry.names` and
:meth:`~StrategyRegistry.get` see client strategies only; ``server_*`` methods see the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .errors import DuplicateStrategyError, InvalidStrategyError, UnknownStrategyError
from .model import RebalanceProtocol
from .server_assignor import ServerAssignor, server_name
from .strategy import Strategy
from .streams_assignor import StreamsTaskAssignor, streams_name

__all__ = [
    "PluginSource",
    "RegisteredServerAssignor",
    "RegisteredStrategy",
    "RegisteredStreamsAssignor",
    "StrategyRegistry",
]


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from, for error messages and ``assignframe plugins``.

    :param plugin: the plugin's name (its entry point name, or the name it was registered under)
    :param distribution: the installed distribution that provides it, None if registered directly
    :param version: that distribution's version
    """

    plugin: str
    distribution: str | None = None
    version: str | None = None

    def __str__(self) -> str:
        if self.distribution is None:
            return f"plugin {self.plugin!r} (registered directly, not from a distribution)"
        return f"plugin {self.plugin!r} (distribution {self.distribution} {self.version})"


@dataclass(frozen=True)
class _Registered:
    """One registered class and the plugin that registered it (what every kind shares)."""

    name: str
    cls: type
    source: PluginSource

    @property
    def class_path(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__qualname__}"

    def describe(self) -> str:
        return f"{self.class_path} from {self.source}"


@dataclass(frozen=True)
class RegisteredStrategy(_Registered):
    """One registered strategy class and the plugin that registered it."""

    cls: type[Strategy]

    @property
    def protocols(self) -> tuple[RebalanceProtocol, ...]:
        return tuple(self.cls.protocols)


@dataclass(frozen=True)
class RegisteredServerAssignor(_Registered):
    """One registered server assignor class (``name`` is qualified: ``server:uniform``)."""

    cls: type[ServerAssignor]

    @property
    def group_types(self) -> tuple[str, ...]:
        return tuple(self.cls.group_types)


@dataclass(frozen=True)
class RegisteredStreamsAssignor(_Registered):
    """One registered Streams task assignor class (``name`` is qualified: ``streams:sticky``)."""

    cls: type[StreamsTaskAssignor]

    @property
    def group_types(self) -> tuple[str, ...]:
        return tuple(self.cls.group_types)


class StrategyRegistry:
    """Strategy classes by name; plugins call :meth:`add` from ``register_strategies``."""

    def __init__(self) -> None:
        self._entries: dict[str, RegisteredStrategy] = {}
        self._server_entries: dict[str, RegisteredServerAssignor] = {}
        self._streams_entries: dict[str, RegisteredStreamsAssignor] = {}
        self._source = PluginSource("<unknown>")

    @contextlib.contextmanager
    def registering_for(self, source: PluginSource) -> Iterator[StrategyRegistry]:
        """Attribute every :meth:`add` inside the block to ``source`` (the plugin manager's)."""
        previous, self._source = self._source, source
        try:
            yield self
        finally:
            self._source = previous

    def add(self, cls: object) -> None:
        """Register a :class:`~assignframe.strategy.Strategy` subclass under its ``name``, or a
        :class:`~assignframe.server_assignor.ServerAssignor` subclass under ``server:<name>``.

        :raises InvalidStrategyError: ``cls`` is not a concrete Strategy (or ServerAssignor)
            subclass with a name
        :raises DuplicateStrategyError: another class already claimed that name
        """
        if isinstance(cls, type) and issubclass(cls, ServerAssignor):
            server_cls = self._checked_class(cls, ServerAssignor)
            self._claim(
                self._server_entries,
                RegisteredServerAssignor(server_cls.qualified_name(), server_cls, self._source),
            )
            return
        if isinstance(cls, type) and issubclass(cls, StreamsTaskAssignor):
            streams_cls = self._checked_class(cls, StreamsTaskAssignor)
            self._claim(
                self._streams_entries,
                RegisteredStreamsAssignor(streams_cls.qualified_name(), streams_cls, self._source),
            )
            return
        strategy_cls = self._checked_class(cls, Strategy)
        self._claim(
            self._entries, RegisteredStrategy(strategy_cls.name, strategy_cls, self._source)
        )

    @staticmethod
    def _claim(entries: dict[str, Any], entry: _Registered) -> None:
        existing = entries.get(entry.name)
        if existing is not None and existing.cls is not entry.cls:
            raise DuplicateStrategyError(
                f"strategy name {entry.name!r} is registered twice: by {existing.describe()} "
                f"and by {entry.describe()}; uninstall one of the distributions"
            )
        entries[entry.name] = entry

    def _checked_class(self, cls: object, base: type[Any] = Strategy) -> Any:
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise InvalidStrategyError(
                f"{self._source} registered {cls!r}, which is not a subclass of "
                f"assignframe.{base.__name__}"
            )
        described = f"{cls.__module__}.{cls.__qualname__} registered by {self._source}"
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name.strip():
            raise InvalidStrategyError(f"{described} needs a non-empty str `name`, got {name!r}")
        abstract = getattr(cls, "__abstractmethods__", None)
        if abstract:
            missing = ", ".join(sorted(abstract))
            raise InvalidStrategyError(f"{described} does not implement {missing}")
        return cls

    def get(self, name: str) -> RegisteredStrategy:
        """The registration of ``name``.

        :raises UnknownStrategyError: nothing registered that name (lists what is installed)
        """
        try:
            return self._entries[name]
        except KeyError:
            installed = ", ".join(self.names()) or "none (is any assignframe-* plugin installed?)"
            raise UnknownStrategyError(
                f"unknown strategy {name!r}; installed strategies: {installed}"
            ) from None

    def find(self, name: str) -> RegisteredStrategy | None:
        """The registration of ``name``, or None."""
        return self._entries.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._entries))

    def entries(self) -> tuple[RegisteredStrategy, ...]:
        return tuple(self._entries[name] for name in self.names())

    def get_server(self, name: str) -> RegisteredServerAssignor:
        """The server assignor ``name`` (``uniform`` or ``server:uniform``).

        :raises UnknownStrategyError: none registered that name (lists what is installed)
        """
        try:
            return self._server_entries[server_name(name)]
        except KeyError:
            installed = ", ".join(self.server_names()) or (
                "none (is any assignframe-server-* plugin installed?)"
            )
            raise UnknownStrategyError(
                f"unknown server assignor {name!r}; installed server assignors: {installed}"
            ) from None

    def server_names(self) -> tuple[str, ...]:
        """Qualified names (``server:<name>``) of every registered server assignor, sorted."""
        return tuple(sorted(self._server_entries))

    def server_entries(self) -> tuple[RegisteredServerAssignor, ...]:
        return tuple(self._server_entries[name] for name in self.server_names())

    def get_streams(self, name: str) -> RegisteredStreamsAssignor:
        """The Streams task assignor ``name`` (``sticky`` or ``streams:sticky``).

        :raises UnknownStrategyError: none is registered under that name
        """
        try:
            return self._streams_entries[streams_name(name)]
        except KeyError:
            installed = ", ".join(sorted(self._streams_entries)) or (
                "none (is assignframe-server-streams installed?)"
            )
            raise UnknownStrategyError(
                f"unknown Streams task assignor {name!r}; installed: {installed}"
            ) from None

    def streams_entries(self) -> tuple[RegisteredStreamsAssignor, ...]:
        """Every registered Streams task assignor, by qualified name."""
        return tuple(self._streams_entries[name] for name in sorted(self._streams_entries))

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)
