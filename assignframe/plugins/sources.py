"""Where plugins come from: the installed entry points of the ``assignframe`` group, what each
is called, and the environment switches that skip or trace them (the manager's module docstring
describes the switches).
"""

from __future__ import annotations

import importlib.metadata
import os
import weakref

from .. import hookspecs
from ..registry import PluginSource

__all__ = [
    "DISABLE_ENV",
    "TRACE_ENV",
    "default_plugin_name",
    "disabled_plugins",
    "installed_entry_points",
    "source_of",
    "tracing_requested",
]

DISABLE_ENV = "ASSIGNFRAME_DISABLE_PLUGINS"
TRACE_ENV = "ASSIGNFRAME_TRACE_PLUGINS"


def disabled_plugins() -> tuple[bool, frozenset[str]]:
    """(load nothing?, names to skip) from ``ASSIGNFRAME_DISABLE_PLUGINS``."""
    value = os.environ.get(DISABLE_ENV, "").strip()
    if value == "1":
        return True, frozenset()
    return False, frozenset(name.strip() for name in value.split(",") if name.strip())


def tracing_requested() -> bool:
    return os.environ.get(TRACE_ENV, "").strip() not in ("", "0")


def installed_entry_points() -> list[importlib.metadata.EntryPoint]:
    """Entry points of our group, once each (a distribution on sys.path twice lists them twice)."""
    unique: dict[tuple[str, str, str | None], importlib.metadata.EntryPoint] = {}
    for entry_point in importlib.metadata.entry_points(group=hookspecs.PROJECT_NAME):
        dist_name = _name_and_version(entry_point.dist)[0] if entry_point.dist else None
        unique.setdefault((entry_point.name, entry_point.value, dist_name), entry_point)
    return sorted(unique.values(), key=lambda ep: ep.name)


def default_plugin_name(plugin: object) -> str:
    """Modules and classes go by ``__name__``; instances by their class (readable in errors)."""
    name = getattr(plugin, "__name__", None)
    if isinstance(name, str):
        return name
    return f"{type(plugin).__module__}.{type(plugin).__qualname__}"


def source_of(entry_point: importlib.metadata.EntryPoint) -> PluginSource:
    dist = entry_point.dist
    if dist is None:
        return PluginSource(entry_point.name)
    return PluginSource(entry_point.name, *_name_and_version(dist))


#: each distribution's (name, version), read once: ``dist.name`` and ``dist.version`` parse its
#: METADATA file again at every read (three parses a plugin, a fifth of ``assignframe plugins``)
_NAME_AND_VERSION: weakref.WeakKeyDictionary[importlib.metadata.Distribution, tuple[str, str]] = (
    weakref.WeakKeyDictionary())


def _name_and_version(dist: importlib.metadata.Distribution) -> tuple[str, str]:
    known = _NAME_AND_VERSION.get(dist)
    if known is None:
        metadata = dist.metadata  # what dist.name and dist.version each read
        known = _NAME_AND_VERSION[dist] = (metadata["Name"], metadata["Version"])
    return known
