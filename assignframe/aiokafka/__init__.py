"""Use installed assignframe strategies in aiokafka consumers, eager or cooperative (KIP-429).

::

    from aiokafka import AIOKafkaConsumer
    from assignframe.aiokafka import assignors

    consumer = AIOKafkaConsumer(
        "orders",
        group_id="billing",
        partition_assignment_strategy=assignors("cooperative-sticky"),
    )

The contract is :mod:`assignframe.kafka_python`'s (kafka-python 3.x):

* members send v3 subscriptions (owned partitions, generation, rack) and the leader sends v3
  assignments, both as finished bytes that aiokafka passes through unchanged;
* the leader's strategy reads every member's full subscription, static member ids included;
* the consumer's rebalance protocol is the highest one all its strategies support (Java's rule):
  ``assignors("cooperative-sticky")`` rebalances cooperatively, ``assignors("cooperative-sticky",
  "range")`` eagerly (the first step of a KIP-429 upgrade).

aiokafka itself rebalances eagerly only; the cooperative protocol, the generation passed to
strategies and the leader's full view come from :mod:`.coordinator`, which ``assignors()``
installs once per process (docs/adapters.md names every aiokafka internal it uses). An aiokafka
version it was not tested with is refused by ``assignors()`` (:mod:`.support`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..plugins.manager import PluginManager, get_plugin_manager
from ..rebalance.bridge import ConsumerBridge, rebalance_protocol_of, strategies_for
from .assignor import AiokafkaAssignor
from .support import FIRST_UNSUPPORTED, OLDEST_SUPPORTED, require_supported_aiokafka

__all__ = ["FIRST_UNSUPPORTED", "OLDEST_SUPPORTED", "AiokafkaAssignor", "assignors"]


def assignors(
    *names: str,
    client_rack: str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    plugins: PluginManager | None = None,
) -> list[AiokafkaAssignor]:
    """New assignor objects for one consumer's ``partition_assignment_strategy``.

    Parameters as :func:`assignframe.kafka_python.assignors`. Give every consumer its own call:
    the objects hold that consumer's state.

    :raises ImportError: the installed aiokafka is not supported (:mod:`.support`)
    :raises InconsistentGroupProtocolError: the strategies share no rebalance protocol
    """
    require_supported_aiokafka()
    from .coordinator import install  # imports aiokafka's internals: only once they are checked

    install()
    plugins = plugins or get_plugin_manager()
    strategies = strategies_for(names, plugins, options)
    protocol = rebalance_protocol_of(strategies)
    return [
        AiokafkaAssignor(ConsumerBridge(strategy, plugins, protocol, client_rack))
        for strategy in strategies
    ]
