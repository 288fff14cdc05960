"""The plugin machinery: loading plugins and calling their hooks.

What it owns: the one plugin manager (:mod:`.manager`, the only code that calls hooks), where
plugins come from (:mod:`.sources`: the installed entry points, the switches that skip or trace
them), the direct
hook calls that skip pluggy when it would add nothing (:mod:`.hookcall`), the default
implementations that dispatch the firstresult hooks to a strategy's own methods
(:mod:`.defaults`), and the shape checks on what strategies return (:mod:`.validation`). The hook
API itself (specifications, the ``hookimpl`` marker, the registry handed to
``register_strategies``) is the package root's.

What it may import: the root's model and hook API and the classic protocol's rules (the defaults
apply them). Nothing above it (rebalance, replay, the tools). ``from assignframe.plugins import
get_plugin_manager`` is the public way in.
"""

from __future__ import annotations

from .manager import (
    DISABLE_ENV,
    TRACE_ENV,
    PluginManager,
    StrategyInfo,
    get_plugin_manager,
    isolated_plugin_manager,
    reset_plugin_manager,
)

__all__ = [
    "DISABLE_ENV",
    "PluginManager",
    "StrategyInfo",
    "TRACE_ENV",
    "get_plugin_manager",
    "isolated_plugin_manager",
    "reset_plugin_manager",
]
