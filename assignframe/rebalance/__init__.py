"""The classic rebalance machinery: groups of members playing rebalances as real clients do.

What it owns: the classic group runner (:mod:`.runner`, with what its rounds are made of and
produce in :mod:`.rounds`, its members' hook calls in :mod:`.member_hooks`), the
client-independent half of the consumer adapters (:mod:`.bridge`) and each member's own options
read back from its user data (:mod:`.preferences`). The consumer protocol (KIP-848) is
:mod:`assignframe.kip848`.

What it may import: the root's model and metrics, the plugin machinery and the classic protocol.
Nothing above it: replay and the tools use it; it uses none of them.
"""
