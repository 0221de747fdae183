"""The order of the read tasks as Spark partitions: it decides two things at once.

1. **When each task starts.** A local scheduler hands out partitions in index order to whichever
   core is free; with few tasks a core, a heavy task handed out last keeps one core busy while the
   others idle. At 1 GB on local[2] (four dumps, two tasks of client logs), a log task second and
   a dump last left one core idle for 0.25 s: the read stage took 1.58-1.73 s, and 1.39-1.57 s
   with the dumps first and a log task closing each half.
2. **How the keyed stages group them.** A coalesce without a shuffle joins either consecutive
   runs of partitions or every ``groups``-th one (which, depends on whether the cached blocks
   report a location). In file order, a folder of small logs followed by large dumps put every
   dump in one group (at 10 GB, 0.8 s against 3.6 s).

Every position belongs to one group of either kind, so both groupings are kept even by choosing
which task goes where. Of two such orders (one built for the groups alone, one built in the order
tasks start), the one expected to end first is taken: its simulated read stage, plus what its
uneven groups add to the keyed stage after it.
"""

from __future__ import annotations

import heapq

#: A group within this fraction of its even share counts as even (task weights are estimates).
EVEN_ENOUGH = 0.02
#: The keyed stage's first step costs about this much of what reading the same pieces did (1 GB,
#: local[2]: 0.13-0.18 s against 1.4-1.7 s), so an uneven group delays it by this share of its excess.
KEYED_SHARE = 0.1
#: Orders of up to this many tasks are also built position by position (quadratic in the tasks);
#: with more, each core has so many that when each starts no longer matters.
SCHEDULED_TASKS = 64


def balanced_order(weights: list[int], groups: int) -> list[int]:
    """An order of the tasks (indices into ``weights``) for ``groups`` cores."""
    n = len(weights)
    ranked = sorted(range(n), key=lambda i: (-weights[i], i))
    if groups <= 1 or n <= groups:
        return ranked
    if groups > 16:  # a cluster's worth of cores: dealing round robin into runs is near enough
        return [i for b in range(groups) for i in ranked[b::groups]]
    by_groups = _by_lightest_groups(weights, groups)
    if n > SCHEDULED_TASKS:
        return by_groups
    in_start_order = _by_start_order(weights, groups)
    allowed = max(max(group_spreads(by_groups, weights, groups)), max(weights))
    if max(group_spreads(in_start_order, weights, groups)) > allowed:
        return by_groups
    return min((in_start_order, by_groups), key=lambda order: _expected_end(order, weights, groups))


def _expected_end(order: list[int], weights: list[int], groups: int) -> float:
    """When the read stage ends, plus what an uneven group adds to the keyed stage after it."""
    return schedule_end(order, weights, groups) + KEYED_SHARE * max(group_spreads(order, weights, groups))


def _run_starts(n: int, groups: int) -> list[int]:
    """Where Spark's consecutive runs of partitions start (and, last, ``n``)."""
    return [g * n // groups for g in range(groups + 1)]


def _by_lightest_groups(weights: list[int], groups: int) -> list[int]:
    """The tasks, heaviest first, take the earliest free position whose two groups are the lightest so far."""
    n = len(weights)
    starts = _run_starts(n, groups)
    free: dict[tuple[int, int], list[int]] = {}
    for run in range(groups):
        for p in range(starts[run], starts[run + 1]):
            free.setdefault((run, p % groups), []).append(p)
    for positions in free.values():
        positions.reverse()  # pop() takes the earliest
    run_sum = [0] * groups
    nth_sum = [0] * groups
    order = [0] * n
    for i in sorted(range(n), key=lambda i: (-weights[i], i)):
        cell = min((c for c, ps in free.items() if ps), key=lambda c: (run_sum[c[0]] + nth_sum[c[1]], c))
        order[free[cell].pop()] = i
        run_sum[cell[0]] += weights[i]
        nth_sum[cell[1]] += weights[i]
    return order


def _by_start_order(weights: list[int], groups: int) -> list[int]:
    """Positions in the order tasks start, each taking the heaviest task left that leaves both its
    groups room, within their even share, for the lightest tasks their other positions need."""
    n = len(weights)
    starts = _run_starts(n, groups)
    share = sum(weights) / groups * (1 + EVEN_ENOUGH)
    left = sorted(range(n), key=lambda i: (-weights[i], i))  # heaviest first
    run_sum = [0] * groups
    nth_sum = [0] * groups
    order: list[int] = []
    for p in range(n):
        run = next(r for r in range(groups) if p < starts[r + 1])
        nth = p % groups
        lightest = [weights[i] for i in reversed(left)]
        prefix = [0]
        for w in lightest:
            prefix.append(prefix[-1] + w)

        def still_needed(slots: int, taken: int) -> int:
            """The least weight ``slots`` more positions add, once a task of weight ``taken`` is placed."""
            if slots == 0:
                return 0
            if slots < len(lightest) and taken <= lightest[slots - 1]:
                return prefix[slots + 1] - taken  # the task is one of the lightest: the next one fills in
            return prefix[slots]

        run_slots = starts[run + 1] - p - 1
        nth_slots = len(range(p + groups, n, groups))
        best: tuple[float, int] | None = None
        for k, i in enumerate(left):
            w = weights[i]
            over = (max(0.0, run_sum[run] + w + still_needed(run_slots, w) - share)
                    + max(0.0, nth_sum[nth] + w + still_needed(nth_slots, w) - share))
            if best is None or over < best[0]:
                best = (over, k)
            if over == 0:
                break
        assert best is not None
        i = left.pop(best[1])
        order.append(i)
        run_sum[run] += weights[i]
        nth_sum[nth] += weights[i]
    return order


def group_spreads(order: list[int], weights: list[int], groups: int) -> tuple[int, int]:
    """Heaviest minus lightest group, when Spark joins consecutive runs, and every n-th partition."""
    n = len(order)
    starts = _run_starts(n, groups)
    runs = [sum(weights[order[p]] for p in range(starts[g], starts[g + 1])) for g in range(groups)]
    nths = [sum(weights[order[p]] for p in range(g, n, groups)) for g in range(groups)]
    return max(runs) - min(runs), max(nths) - min(nths)


def schedule_end(order: list[int], weights: list[int], cores: int) -> int:
    """When the last task ends if each free core takes the next partition, a task taking its weight."""
    free = [0] * cores
    for i in order:
        heapq.heappush(free, heapq.heappop(free) + weights[i])
    return max(free)
