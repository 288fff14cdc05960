"""Every error assignframe raises.

::

    AssignframeError
    ├── BrokerError                  a broker could not be reached or answered with an error
    ├── PluginError                  a plugin failed to load or misbehaved (names the plugin)
    │   ├── DuplicateStrategyError   two classes claim one strategy name (names both distributions)
    │   └── InvalidStrategyError     a registered object is not a usable Strategy class
    ├── UnknownStrategyError         no installed strategy has that name (lists the installed ones)
    ├── InconsistentGroupProtocolError  the members share no strategy (Kafka rejects the join)
    ├── StrategyResultError          a strategy or hook returned something that is not an assignment
    ├── UserDataError                a member's user data cannot be decoded by its strategy
    ├── InvalidAssignmentError       an assignment breaks the group's rules (double owned, ...)
    ├── FencedMemberEpochError       the consumer-group coordinator fences a member (KIP-848)
    ├── ScenarioError                a scenario or group file is malformed (names file, line, field)
    ├── MalformedSnapshot            a group snapshot row cannot be read (says which field and why)
    └── InputError                   input a tool cannot use at all: "<what> (<where>)"
        └── UnknownOptionError       a strategy option the strategy does not declare, or a bad value

    assignframe_codec.CodecError     (ValueError) bytes that are not what they claim; keeps the
                                     kind, version, construct field path and byte offset
"""

from __future__ import annotations

from assignframe_codec import CodecError

__all__ = [
    "AssignframeError",
    "BrokerError",
    "CodecError",
    "DuplicateStrategyError",
    "EXIT_OK",
    "EXIT_SKIPPED",
    "EXIT_UNUSABLE",
    "FencedMemberEpochError",
    "InconsistentGroupProtocolError",
    "InputError",
    "InvalidAssignmentError",
    "InvalidStrategyError",
    "MalformedSnapshot",
    "PluginError",
    "ScenarioError",
    "StrategyResultError",
    "UnknownOptionError",
    "UnknownStrategyError",
    "UserDataError",
]


#: The exit codes every command keeps (docs/cli.md): all done; done but something was skipped
#: (each skip reported); unusable input or usage.
EXIT_OK, EXIT_SKIPPED, EXIT_UNUSABLE = 0, 1, 2


class AssignframeError(Exception):
    """Base of every assignframe error except ``CodecError`` (which the codec distribution owns)."""


class BrokerError(AssignframeError):
    """A broker could not be reached, or answered with an error (names the bootstrap server)."""


class PluginError(AssignframeError):
    """A plugin failed to import, to register, or behaved wrongly; the message names it."""


class DuplicateStrategyError(PluginError):
    """Two strategy classes claim the same name; the message names both and their distributions."""


class InvalidStrategyError(PluginError):
    """A plugin registered something that is not a Strategy subclass with a valid ``name``."""


class UnknownStrategyError(AssignframeError, LookupError):
    """No installed strategy has the requested name; the message lists the installed ones."""


class InconsistentGroupProtocolError(AssignframeError):
    """No strategy is offered by every member, so no group protocol can be chosen (Kafka's
    INCONSISTENT_GROUP_PROTOCOL); the message names each member's offer."""


class StrategyResultError(AssignframeError):
    """A strategy (or assign hook) returned something other than a well-formed GroupAssignment."""


class UserDataError(AssignframeError, ValueError):
    """A member's user data could not be decoded by the group's strategy."""


class InvalidAssignmentError(AssignframeError):
    """An assignment violates the group's rules (double ownership, non-subscriber, unassigned)."""


class FencedMemberEpochError(AssignframeError):
    """The consumer-group coordinator fences the member (Kafka's FENCED_MEMBER_EPOCH): it must give
    up every partition and rejoin with epoch 0. The message is the coordinator's reason."""


class ScenarioError(AssignframeError, ValueError):
    """A scenario, group or snapshot file is malformed; the message names where."""


class MalformedSnapshot(AssignframeError, ValueError):
    """A group snapshot (a JSON line or Parquet row) is not readable; the message says why."""


class InputError(AssignframeError, ValueError):
    """Input a tool cannot use at all (a missing file, a directory, a file of another kind, no
    usable record in it, a bad argument). The message is ``<what> (<where>)``, the CLI's style.

    :param what: what is wrong, e.g. ``not a pcap/pcapng capture``
    :param where: the file, line, argument or option it is about (None: nowhere in particular)
    """

    def __init__(self, what: str, where: str | None = None) -> None:
        super().__init__(f"{what} ({where})" if where else what)
        self.what, self.where = what, where

    @classmethod
    def unreadable(cls, exc: OSError, where: str | None) -> InputError:
        """A file that could not be opened, said as the group and scenario readers say it."""
        return cls(f"cannot read: {exc.strerror or exc}", where)

    @classmethod
    def unwritable(cls, exc: OSError, where: str | None) -> InputError:
        """An output (a file or folder) that could not be made or written."""
        return cls(f"cannot write: {exc.strerror or exc}", where)


class UnknownOptionError(InputError):
    """A strategy option its strategy does not declare, or a value of the wrong type; the message
    lists the options the strategy accepts."""
