"""The sticky and cooperative-sticky strategies: balanced first, then keep what members own.

Wire-compatible with Apache Kafka's StickyAssignor / CooperativeStickyAssignor (user data in the
layouts Java reads), with Java's generation rules (KIP-341, KAFKA-12984, KIP-792) and rack
awareness (KIP-881), but never invalid where Java is: no partition to a member that does not
subscribe to it, none to two members at once under the cooperative protocol.
"""

from __future__ import annotations

from assignframe import hookimpl

from .strategies import CooperativeStickyStrategy, StickyStrategy
from .userdata import StickyMemory

__all__ = ["CooperativeStickyStrategy", "StickyMemory", "StickyStrategy", "register_strategies"]


@hookimpl
def register_strategies(registry):
    registry.add(StickyStrategy)
    registry.add(CooperativeStickyStrategy)
