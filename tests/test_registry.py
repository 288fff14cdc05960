"""StrategyRegistry: validation and culprit naming."""

from __future__ import annotations

import pytest
from core_strategies import CooperativeBalance, Modulo

from assignframe import GroupAssignment, Strategy
from assignframe.errors import DuplicateStrategyError, InvalidStrategyError, UnknownStrategyError
from assignframe.registry import PluginSource, StrategyRegistry

RANGE_DIST = PluginSource("range", "assignframe-range", "0.1.0")
OTHER_DIST = PluginSource("other", "acme-assignors", "2.3")


class OtherModulo(Strategy):
    name = "modulo"

    def assign(self, group):
        return GroupAssignment({})


def registry_with(source: PluginSource, *classes: object) -> StrategyRegistry:
    registry = StrategyRegistry()
    with registry.registering_for(source):
        for cls in classes:
            registry.add(cls)
    return registry


def test_add_and_get():
    registry = registry_with(RANGE_DIST, Modulo, CooperativeBalance)
    assert registry.names() == ("cooperative-balance", "modulo")
    entry = registry.get("modulo")
    assert entry.cls is Modulo and entry.source == RANGE_DIST
    assert entry.class_path == "core_strategies.Modulo"


def test_same_class_twice_is_harmless():
    registry = registry_with(RANGE_DIST, Modulo, Modulo)
    assert len(registry) == 1


def test_duplicate_name_names_both_classes_and_distributions():
    registry = registry_with(RANGE_DIST, Modulo)
    with pytest.raises(DuplicateStrategyError) as caught, registry.registering_for(OTHER_DIST):
        registry.add(OtherModulo)
    message = str(caught.value)
    for culprit in (
        "core_strategies.Modulo",
        "test_registry.OtherModulo",
        "assignframe-range 0.1.0",
        "acme-assignors 2.3",
        "'modulo'",
    ):
        assert culprit in message


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (object, "is not a subclass of assignframe.Strategy"),
        (Modulo(), "is not a subclass of assignframe.Strategy"),
        (
            type("Nameless", (Strategy,), {"assign": lambda self, g: None}),
            "needs a non-empty str `name`",
        ),
        (
            type("Blank", (Strategy,), {"name": " ", "assign": lambda self, g: None}),
            "non-empty str",
        ),
        (type("Numbered", (Strategy,), {"name": 3, "assign": lambda self, g: None}), "got 3"),
        (type("Abstract", (Strategy,), {"name": "abstract"}), "does not implement assign"),
    ],
)
def test_invalid_class_names_class_and_plugin(bad, expected):
    registry = StrategyRegistry()
    with pytest.raises(InvalidStrategyError) as caught, registry.registering_for(OTHER_DIST):
        registry.add(bad)
    assert expected in str(caught.value)
    assert "plugin 'other' (distribution acme-assignors 2.3)" in str(caught.value)


def test_unknown_name_lists_installed():
    registry = registry_with(RANGE_DIST, Modulo, CooperativeBalance)
    with pytest.raises(
        UnknownStrategyError, match="'nope'; installed strategies: cooperative-balance, modulo"
    ):
        registry.get("nope")


def test_unknown_name_in_empty_registry_says_nothing_is_installed():
    with pytest.raises(UnknownStrategyError, match="none"):
        StrategyRegistry().get("range")


def test_directly_registered_source_is_described():
    assert (
        str(PluginSource("mine")) == "plugin 'mine' (registered directly, not from a distribution)"
    )
