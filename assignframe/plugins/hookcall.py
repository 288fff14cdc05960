"""Calling hooks: through pluggy, or directly when pluggy would do nothing more.

A hook with one plain implementation (the usual case: the defaults alone, or one strategy's
methods through them) is called directly, with the arguments it declares, exactly as pluggy's
loop would call it; a hook nothing implements (``after_assignment``, ``lag_source`` without a
plugin) returns what pluggy's loop returns over no implementation, ``[]`` or None.
pluggy's dispatch costs ~1.7 us a call and the group runner makes several
calls per member per round: measured on the fleet audit, the direct call takes a hook call from
2.5 us to 0.9 us (docs/performance.md, "Hook calls"). Any registration, wrapper or monitoring
(``ASSIGNFRAME_TRACE_PLUGINS``) sends calls back through pluggy, so behaviour never differs.

The same decision tells when a hook's lone implementation is a given function (assignframe's
default, :meth:`HookCalls.lone_implementation_is`): then a caller that knows what that function
returns may skip the call altogether (:meth:`assignframe.plugins.PluginManager.default_hooks`).
"""

from __future__ import annotations

from typing import Any

import pluggy

__all__ = ["HookCalls", "HookManager"]

_UNKNOWN = object()


class HookManager(pluggy.PluginManager):
    """pluggy's manager, noting what changes how a hook call runs: (un)registrations, blocking
    and call monitoring (tracing included), so :class:`HookCalls` knows when calling a
    lone implementation directly is still what pluggy would do."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self.changes = 0
        self.monitored = False

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        self.changes += 1
        return super().register(plugin, name)

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        self.changes += 1
        return super().unregister(plugin, name)

    def set_blocked(self, name: str) -> None:
        self.changes += 1
        super().set_blocked(name)

    def add_hookcall_monitoring(self, before: Any, after: Any) -> Any:
        self.changes += 1
        self.monitored = True  # for good: the undo function it returns is not tracked
        return super().add_hookcall_monitoring(before, after)


class HookCalls:
    """Calls the hooks of one :class:`HookManager`, directly where that changes nothing."""

    def __init__(self, manager: HookManager) -> None:
        self._pm = manager
        self._direct: dict[str, Any] = {}
        self._direct_changes = -1

    @property
    def changes(self) -> int:
        """Grows whenever what a hook call runs may have changed (see :class:`HookManager`)."""
        return self._pm.changes

    def lone_implementation_is(self, name: str, function: Any) -> bool:
        """True when calling hook ``name`` calls exactly ``function`` and nothing else (what
        :meth:`call` would call directly), so its result is ``function``'s."""
        direct = self._lookup(name)
        return direct is not None and direct[0] is function

    def call(self, name: str, kwargs: dict[str, Any]) -> Any:
        """What ``manager.hook.<name>(**kwargs)`` returns."""
        direct = self._lookup(name)
        if direct is None:
            return getattr(self._pm.hook, name)(**kwargs)
        function, argnames, firstresult = direct
        if function is None:  # nothing implements the hook: pluggy's loop would call nothing
            return None if firstresult else []
        result = function(*[kwargs[argname] for argname in argnames])
        if firstresult:
            return result
        return [] if result is None else [result]

    def _lookup(self, name: str) -> tuple[Any, tuple[str, ...], bool] | None:
        if self._direct_changes != self._pm.changes:
            self._direct = {}
            self._direct_changes = self._pm.changes
        direct = self._direct.get(name, _UNKNOWN)
        if direct is _UNKNOWN:
            direct = self._direct[name] = self._lone_implementation(name)
        return direct  # type: ignore[no-any-return]

    def _lone_implementation(self, name: str) -> tuple[Any, tuple[str, ...], bool] | None:
        caller = getattr(self._pm.hook, name)
        implementations = caller.get_hookimpls()
        if self._pm.monitored or len(implementations) > 1 or caller.spec is None:
            return None
        firstresult = bool(caller.spec.opts.get("firstresult"))
        if not implementations:
            return None, (), firstresult
        (implementation,) = implementations
        if implementation.hookwrapper or implementation.wrapper:
            return None
        return implementation.function, tuple(implementation.argnames), firstresult
