"""The classic group protocol (JoinGroup/SyncGroup) and its mapping to the wire.

What it owns: the protocol's rules, once (:mod:`.protocol`: protocol election, what a member keeps
when it joins, the leader's reading of user data, the cooperative hand-over), and the translation
between the model and ConsumerProtocol bytes through the codec (:mod:`.wire`, the only place the
core builds or reads codec values).

What it may import: the codec and the root's model, strategy and errors. Nothing above it: the
plugin machinery, rebalance, replay and the tools use it.
"""
