"""Which Spark task reads what: inputs in the user's order, cut into pieces, grouped into tasks.

A large plain dump is cut into byte ranges just before batch lines (``ranges.cut_points``), so
a task never loses the section its lines belong to, and the driver can join the ranges in
order. Small inputs are packed into tasks of a useful and even weight: starting a task costs
about a tenth of a second, reading a small file less. Inputs that only this machine can read (stdin,
named pipes) are read by the driver. Hadoop URIs are listed by Spark and read by Spark's
``binaryFile`` source, one whole input per row.
"""

from __future__ import annotations

import heapq
import math
import os
import re
from dataclasses import dataclass, field

from ...inputs import InputSpec, expand_inputs, in_canonical_order, open_input
from ...readers import READERS, read_dump
from ...readers.route import plan as route_plan
from ...readers.sniff import HEAD_BYTES, dump_at_a_glance, sniff
from ..ranges import cut_points
from .task import Piece

#: A path with a scheme (``hdfs://``, ``s3a://``, ``file:///``, or ``file:/x`` as Hadoop prints
#: it): listed and read through Spark. Two letters at least, so ``C:/x`` stays a path.
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")
#: Plain dumps at least this large are read in byte ranges, one task per range.
MIN_RANGE_BYTES = 32 << 20
MAX_RANGE_BYTES = 256 << 20
#: Small inputs are grouped into tasks of about this many weighed bytes (or this many files). A
#: task with its result pickled and persisted costs about a tenth of a second on top of its
#: reading (measured at 10 GB on local[2]: 157 files in 97 tasks took 25.9 s, in 37 tasks 21.3 s).
TASK_BYTES = 256 << 20
MIN_TASK_BYTES = 4 << 20
#: Reading a byte of client log costs about this many bytes of dump (measured in the 10 GB
#: benchmark's read tasks: ~40 MB/s of Java client log against ~380 MB/s of dump per core; it was
#: ~17 against ~230 before log lines were pruned by template); small files are grouped by this
#: weighted size.
LOG_COST = 8
TASK_FILES = 512
#: Spark's binaryFile source holds a whole file in one row, which caps it below 2 GiB.
BINARY_FILE_LIMIT = (1 << 31) - 1


def is_uri(path: str) -> bool:
    return bool(URI.match(path))


@dataclass
class Plan:
    """Everything the runner needs, in the user's order of inputs."""

    specs: list[InputSpec]  # one per input, errors included, ``file_id`` = index
    tasks: list[list[Piece]] = field(default_factory=list)  # pieces of local files; within a task in file order
    remote: dict[str, int] = field(default_factory=dict)  # URI of a Hadoop input Spark reads -> file_id
    on_driver: set[int] = field(default_factory=set)  # file_ids only the driver can read (stdin, pipes)
    #: Hadoop inputs the driver streams through its JVM: names Spark's sources skip, files above their limit.
    remote_on_driver: dict[int, str] = field(default_factory=dict)
    pieces: dict[int, list[Piece]] = field(default_factory=dict)  # file_id -> its pieces (local files)
    weights: list[int] = field(default_factory=list)  # per task: its bytes weighed by what reading them costs

    @property
    def files(self) -> list[str]:
        return [s.display for s in self.specs]


def expand(paths: list[str], list_uri) -> list[InputSpec]:
    """The user's paths as inputs, in name order as the local runner numbers them; ``list_uri(uri)``
    lists a Hadoop path through Spark."""
    specs: list[InputSpec] = []
    for given in paths:
        specs.extend(list_uri(given) if is_uri(given) else expand_inputs([given]))
    return in_canonical_order(specs)


def splittable(path: str) -> bool:
    """A plain (not compressed) input whose content the dump reader reads whole: may be cut in ranges."""
    try:
        with open_input(path) as stream:
            if stream.compressed:
                return False
            head = stream.read(HEAD_BYTES)
    except OSError:
        return False
    first = route_plan(sniff(head), head)[0]
    return first.view is None and READERS.get(first.reader) is read_dump


def reads_like_a_dump(path: str) -> bool:
    """Whether a small input reads like a dump (its first lines), to weigh what reading it costs."""
    try:
        with open_input(path) as stream:
            return dump_at_a_glance(stream.read(4096))
    except OSError:
        return False


def range_bytes(total: int, parallelism: int) -> int:
    """Range size: enough ranges to keep every core busy twice over, none tiny or huge."""
    return max(MIN_RANGE_BYTES, min(MAX_RANGE_BYTES, math.ceil(total / max(1, 2 * parallelism))))


def make_plan(specs: list[InputSpec], sizes: dict[int, int], parallelism: int, skipped_by_spark=lambda p: False) -> Plan:
    """Cut large plain dumps into ranges and group the rest into tasks, keeping file order."""
    plan = Plan(specs)
    local_total = 0
    local: list[tuple[int, InputSpec, int]] = []
    for file_id, spec in enumerate(specs):
        if spec.error:
            continue
        if is_uri(spec.path):
            if skipped_by_spark(spec.path):
                plan.remote_on_driver[file_id] = "read by the driver: Spark's file sources skip names starting with _ or ."
            elif sizes.get(file_id, 0) > BINARY_FILE_LIMIT:
                plan.remote_on_driver[file_id] = "read by the driver: above the 2 GiB Spark reads as one file"
            else:
                plan.remote[spec.path] = file_id
        elif spec.path != spec.display:
            plan.on_driver.add(file_id)  # a spooled stream: its copy lives on this machine only
        else:
            size = sizes.get(file_id, 0)
            local.append((file_id, spec, size))
            local_total += size
    cut_size = range_bytes(local_total, parallelism)
    # Only a file large enough to cut is sniffed in full; a small one is weighed by a glance.
    dumps = {file_id: splittable(os.path.abspath(spec.path)) if size >= 2 * MIN_RANGE_BYTES
             else reads_like_a_dump(os.path.abspath(spec.path)) for file_id, spec, size in local}
    # Grouping weighs bytes by what reading them costs: a log line costs several dump lines.
    work = sum(size * (1 if dumps[file_id] else LOG_COST) for file_id, _spec, size in local)
    group_target = max(MIN_TASK_BYTES, min(TASK_BYTES, work // max(1, 2 * parallelism)))
    whole: list[tuple[Piece, int]] = []  # uncut files and their weight, grouped below
    for file_id, spec, size in local:
        location = os.path.abspath(spec.path)  # executors run in their own working directory
        parts = math.ceil(size / cut_size) if cut_size else 1
        if size >= 2 * MIN_RANGE_BYTES and dumps[file_id] and parts >= 2:
            # Only a file larger than the range size is cut: ranges of one partition must be
            # merged by a shuffle afterwards, which costs more than it gains when the other
            # files keep every core busy.
            cuts = cut_points(location, size, parts)
        else:
            cuts = [0, size]
        if len(cuts) > 2:
            pieces = [Piece(file_id, spec.display, location, a, b, k) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
            plan.pieces[file_id] = pieces
            plan.tasks.extend([p] for p in pieces)
            plan.weights.extend(p.end - p.start for p in pieces)
            continue
        piece = Piece(file_id, spec.display, location)
        plan.pieces[file_id] = [piece]
        whole.append((piece, size * (1 if dumps[file_id] else LOG_COST)))
    for group, weight in pack(whole, group_target, len(plan.tasks), parallelism):
        plan.tasks.append(group)
        plan.weights.append(weight)
    return plan


def pack(items: list[tuple[Piece, int]], target: int, other_tasks: int = 0,
         parallelism: int = 1) -> list[tuple[list[Piece], int]]:
    """Whole files into tasks of about ``target`` weight each, as even as the files allow.

    The number of tasks is rounded up so that, with the ``other_tasks`` (byte ranges), every core
    gets as many: five even tasks on two cores take as long as six.

    Heaviest first into the lightest task (the results carry their input order, so a task need
    not hold consecutive files). Consecutive grouping made the 1 GB benchmark's four tasks weigh
    268, 372, 475 and 237: the core that drew the heaviest finished last.
    """
    if not items:
        return []
    total = sum(w for _p, w in items)
    count = max(math.ceil(len(items) / TASK_FILES), round(total / max(1, target)), 1)
    count += -(other_tasks + count) % max(1, parallelism)
    count = min(count, len(items))
    heap = [(0, k) for k in range(count)]
    groups: list[list[tuple[int, Piece]]] = [[] for _ in range(count)]
    weights = [0] * count
    for order, (piece, weight) in sorted(enumerate(items), key=lambda e: (-e[1][1], e[0])):
        _load, k = heapq.heappop(heap)
        while len(groups[k]) >= TASK_FILES:  # full: set aside (the count leaves room elsewhere)
            _load, k = heapq.heappop(heap)
        groups[k].append((order, piece))
        weights[k] += weight
        heapq.heappush(heap, (weights[k], k))
    return [([p for _o, p in sorted(g, key=lambda e: e[0])], w) for g, w in zip(groups, weights) if g]
