"""Large client and broker logs read ahead in other processes, while the run takes its inputs in order.

A log is read by one process at 50–100 MB/s, a plain dump by every core at once (``ranges``):
in an incident folder with big logs, one core idled while the other read the logs one after
another. When the run reduces log events as they come (``analyze``: only rows a rule may match
are kept, so what comes back is small), each log of at least ``MIN_AHEAD_BYTES`` is read by a
pool of forked processes with exactly the call the run would make itself (``read_input``), and
the run takes the results in input order: the same chunks, report and configs as reading it
here. A result that does not come back (a worker died) is read here after all. A log large
enough is read in parts by several workers at once and joined in order (``log_ranges``); each
worker keeps to one file while it has parts left (``lanes``).
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from dataclasses import dataclass, field

from ..inputs import InputSpec
from ..readers import read_input
from ..readers.base import InputReport, ReadOptions
from ..readers.sniff import HEAD_BYTES, sniff
from .lanes import Lanes
from .log_filter import reduced
from .log_ranges import LogJoin, LogPlan, plan_log, read_part
from .ranges import range_workers

#: Logs smaller than this are read in order here: a round trip to a worker costs more than it saves.
MIN_AHEAD_BYTES = 4 << 20


@dataclass
class AheadResult:
    """What reading one input elsewhere gave (its log events already reduced)."""

    chunks: list = field(default_factory=list)
    report: InputReport | None = None
    configs: list = field(default_factory=list)


def _read_elsewhere(file_id: int, display: str, options: ReadOptions) -> AheadResult:
    report = InputReport(display)
    configs: list = []
    chunks = [(table, reduced(table, chunk, options.log_conditions))
              for table, chunk in read_input(file_id, display, report, options, configs)]
    return AheadResult(chunks, report, configs)


def is_large_log(path: str, min_bytes: int) -> bool:
    """A plain file of at least ``min_bytes`` whose head reads as a log."""
    try:
        if os.path.getsize(path) < min_bytes:
            return False
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return False
    return sniff(head).startswith("log/")


class ReadAhead:
    """The pool and the inputs it reads; ``take(file_id)`` waits for one (None: read it here)."""

    def __init__(self, specs: list[InputSpec], options: ReadOptions, min_bytes: int | None = None) -> None:
        self._futures: dict[int, Future] = {}
        self._parts: dict[int, tuple[LogPlan, list[Future]]] = {}
        self._options = options
        self._pool: Lanes | None = None
        if options.log_conditions is None or range_workers() < 2:
            return  # every row is kept (the timeline): results as large as the input stay here
        least = MIN_AHEAD_BYTES if min_bytes is None else min_bytes
        chosen = [(i, s) for i, s in enumerate(specs)
                  if not s.error and s.path == s.display and is_large_log(s.path, least)]
        if not chosen:
            return
        plans = {file_id: plan_log(file_id, spec.display, options) for file_id, spec in chosen}
        tasks = sum(len(p.cuts) - 1 if p else 1 for p in plans.values())
        self._pool = Lanes(min(range_workers(), tasks))
        for file_id, spec in chosen:
            plan = plans[file_id]
            if plan is None:
                self._futures[file_id], = self._pool.submit_group([(_read_elsewhere, (file_id, spec.display, options))])
            else:
                parts = self._pool.submit_group([(read_part, (plan, k, options)) for k in range(len(plan.cuts) - 1)])
                self._parts[file_id] = (plan, parts)
        self._pool.start()

    def take(self, file_id: int) -> AheadResult | None:
        if file_id in self._parts:
            return self._joined(*self._parts.pop(file_id))
        future = self._futures.pop(file_id, None)
        if future is None:
            return None
        try:
            return future.result()
        except Exception:  # noqa: BLE001 - a worker that died: the input is read here instead
            return None

    def _joined(self, plan: LogPlan, parts: list[Future]) -> AheadResult:
        """The parts of one log in file order; a part that did not come back is read here."""
        join = LogJoin(plan, self._options)
        for k, future in enumerate(parts):
            try:
                result = future.result()
            except Exception:  # noqa: BLE001 - a worker that died: this part is read here
                result = None
            join.add(k, result)
        return AheadResult(join.chunks, join.finish(), [])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
