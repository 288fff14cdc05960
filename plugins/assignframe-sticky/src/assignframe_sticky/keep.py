"""How many held partitions each member of a class keeps per block: a small max flow.

A member keeps at most its quota, and the class at most its share of each block. Keeping in
member order can strand a member whose only partitions are in a block others filled first; an
augmenting-path max flow (source -> member -> block -> sink, sizes members x blocks of one
class) keeps as many as the two limits allow.
"""

from __future__ import annotations

from collections import deque

__all__ = ["max_keep"]


def max_keep(
    room: dict[int, int], cap: dict[int, int], held: dict[int, dict[int, int]]
) -> dict[int, dict[int, int]]:
    """member -> block -> partitions kept, maximizing the total.

    :param room: member -> its quota
    :param cap: block -> the class's share of it
    :param held: member -> block -> partitions it holds there
    """
    room, cap = dict(room), dict(cap)
    flow = {m: dict.fromkeys(blocks, 0) for m, blocks in held.items()}
    for member in sorted(held):  # greedy start: usually already optimal
        for block in sorted(held[member]):
            count = min(held[member][block], room[member], cap[block])
            flow[member][block] += count
            room[member] -= count
            cap[block] -= count
    while (path := _augmenting_path(room, cap, held, flow)) is not None:
        _augment(path, room, cap, held, flow)
    return flow


def _augmenting_path(room, cap, held, flow):
    """[member, block, member, block, ...] from a member with room to a block with share left."""
    holders: dict[int, list[int]] = {}
    for member, blocks in flow.items():
        for block, count in blocks.items():
            if count > 0:
                holders.setdefault(block, []).append(member)
    start = [m for m in sorted(held) if room[m] > 0]
    came_from: dict[tuple[str, int], tuple[str, int] | None] = {("m", m): None for m in start}
    queue = deque(("m", m) for m in start)
    while queue:
        kind, node = queue.popleft()
        if kind == "m":
            for block in sorted(held[node]):
                if flow[node][block] < held[node][block] and ("b", block) not in came_from:
                    came_from[("b", block)] = (kind, node)
                    if cap[block] > 0:
                        return _trace(came_from, ("b", block))
                    queue.append(("b", block))
        else:
            for member in holders.get(node, ()):
                if ("m", member) not in came_from:
                    came_from[("m", member)] = (kind, node)
                    queue.append(("m", member))
    return None


def _trace(came_from, end):
    path, node = [], end
    while node is not None:
        path.append(node[1])
        node = came_from[node]
    return path[::-1]


def _augment(path, room, cap, held, flow) -> None:
    members, blocks = path[0::2], path[1::2]
    amount = min(room[members[0]], cap[blocks[-1]])
    for member, block in zip(members, blocks, strict=True):
        amount = min(amount, held[member][block] - flow[member][block])
    for member, block in zip(members[1:], blocks[:-1], strict=True):
        amount = min(amount, flow[member][block])
    for member, block in zip(members, blocks, strict=True):  # forward edges
        flow[member][block] += amount
    for member, block in zip(
        members[1:], blocks[:-1], strict=True
    ):  # the member that gives up its slot there
        flow[member][block] -= amount
    room[members[0]] -= amount
    cap[blocks[-1]] -= amount
