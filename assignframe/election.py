"""How a group agrees on a strategy and how each member hands partitions over.

Two rules, both Kafka's:

* the *group protocol* (which strategy runs) is chosen by the coordinator
  (``ClassicGroup.selectProtocol``): the candidates are the strategies every member offers; each
  member votes for the first candidate in its own preference list; most votes wins. Kafka counts
  the votes in a ``java.util.HashMap`` and takes the first maximum in iteration order, so ties go
  to the candidate whose ``String.hashCode`` lands in the lowest bucket (equal buckets: the
  first voted). We reproduce that exactly, so a tie resolves as a real broker resolves it.
* a member's *rebalance protocol* is the highest one that every strategy it offers supports
  (``ConsumerCoordinator``'s constructor): offering ``[cooperative-sticky, range]`` is EAGER,
  which is why KIP-429 upgrades need two rolling bounces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .errors import InconsistentGroupProtocolError
from .javaorder import java_hash_order
from .model import RebalanceProtocol

__all__ = ["elect_group_protocol", "member_rebalance_protocol"]

_PROTOCOL_RANK = {RebalanceProtocol.EAGER: 0, RebalanceProtocol.COOPERATIVE: 1}


def member_rebalance_protocol(
    offered: Sequence[Iterable[RebalanceProtocol]], member_id: str = "?"
) -> RebalanceProtocol:
    """The highest rebalance protocol supported by every one of a member's strategies.

    :param offered: each offered strategy's supported protocols, in preference order
    :raises InconsistentGroupProtocolError: the strategies share no protocol (Java refuses to start)
    """
    common = set(RebalanceProtocol)
    for protocols in offered:
        common &= set(protocols)
    if not offered or not common:
        raise InconsistentGroupProtocolError(
            f"member {member_id!r}: its strategies share no rebalance protocol"
        )
    return max(common, key=_PROTOCOL_RANK.__getitem__)


def elect_group_protocol(offers: Mapping[str, Sequence[str]]) -> str:
    """The strategy name the coordinator picks, given member_id -> preference list (in join order).

    :raises InconsistentGroupProtocolError: no strategy is offered by every member
    """
    candidates = _offered_by_all(offers)
    votes: dict[str, int] = {}
    for member_id in java_hash_order(offers):
        vote = next(name for name in offers[member_id] if name in candidates)
        votes[vote] = votes.get(vote, 0) + 1
    most = max(votes.values())
    return next(name for name in java_hash_order(votes) if votes[name] == most)


def _offered_by_all(offers: Mapping[str, Sequence[str]]) -> set[str]:
    if not offers:
        raise InconsistentGroupProtocolError("cannot choose a protocol for an empty group")
    offered = [set(names) for names in offers.values()]
    candidates = set.intersection(*offered)
    if not candidates:
        detail = "; ".join(f"{m!r} offers {list(names)}" for m, names in offers.items())
        raise InconsistentGroupProtocolError(f"no strategy is offered by every member: {detail}")
    return candidates
