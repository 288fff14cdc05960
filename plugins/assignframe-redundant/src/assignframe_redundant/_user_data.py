"""The redundancy user data a member sends in its subscription: how many owners it wants.

Layout (big-endian, 6 bytes), in the style of Kafka's own consumer protocol schemas::

    RedundancyUserData => Version Replicas
      Version  => int16   0 today; readers accept newer versions and ignore bytes after Replicas
      Replicas => int32   wanted owners per partition, >= 1

A member that sends null (no ``replicas`` configured) states no preference.
"""

from __future__ import annotations

import struct

from assignframe import UserDataError

__all__ = ["decode_replicas", "encode_replicas"]

_LAYOUT = struct.Struct(">hi")
VERSION = 0


def encode_replicas(replicas: int) -> bytes:
    """The user data advertising ``replicas`` wanted owners per partition."""
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas}")
    return _LAYOUT.pack(VERSION, replicas)


def decode_replicas(user_data: bytes | None) -> int | None:
    """The advertised replica count, or None when the member sent null.

    :raises UserDataError: the bytes are too short, carry a negative version or replicas < 1
    """
    if user_data is None:
        return None
    if len(user_data) < _LAYOUT.size:
        raise UserDataError(
            f"redundancy user data needs {_LAYOUT.size} bytes (int16 version, int32 replicas), "
            f"got {len(user_data)}: {bytes(user_data).hex()}"
        )
    version, replicas = _LAYOUT.unpack_from(user_data)
    if version < 0:
        raise UserDataError(f"redundancy user data has negative version {version}")
    if replicas < 1:
        raise UserDataError(f"redundancy user data asks for {replicas} replicas; must be >= 1")
    return replicas
