"""Read a large log as byte ranges in the read-ahead pool, then join them in file order.

One log is read by one process at about 80 MB/s; a 1 GB debug log kept one core busy while
the others idled. A log line that starts with a timestamp always starts an event, so a file cut
just before such lines reads, part by part, into exactly the events a whole read finds. What
flows from one part to the next is small and is settled when the parts are joined:

- line numbers and the events' ``seq`` count on from the part above;
- a row whose client the part never tied to a transactional id takes the id the parts above
  left for that client (the reader keeps such rows whatever the rules, and the join drops
  those no rule matches once their id is known);
- whether the file is a broker's log, and the last full date (for date-less stamps), are
  guessed from the head; a part whose guess the part above contradicts is read again here,
  from the right state, so the result never depends on where the cuts fell.

The file's kind (is it a log at all) is decided once on its head, as a whole read decides it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..inputs import open_input
from ..readers.base import InputReport, ReadContext, ReadOptions, counted, merge_report
from ..readers.logs.blocks import BLOCK_SIZE
from ..readers.logs.hits import line_array, stamp_mask
from ..readers.logs.reader import HeadDecision, LogEnd, LogStart, head_decision, read_logs
from ..readers.route import LOG, Pass, plan
from ..readers.sniff import HEAD_BYTES, sniff
from .log_filter import LOG_TABLE, matching_mask
from .ranges import ByteRange, range_workers

#: Logs smaller than this are read whole by one worker.
MIN_SPLIT_BYTES = 48 << 20
#: At most about this many bytes per part: small enough to keep every worker busy to the end,
#: large enough that a part's fixed costs (a reader, its chunks, the join, a round trip: ~20 ms)
#: do not show.
PART_BYTES = 32 << 20
_CUT_WINDOW = 1 << 20  # look this far past a nominal cut for a line that starts with a timestamp


@dataclass
class LogPlan:
    """Where one log file is cut, and what its head decided."""

    file_id: int
    display: str
    path: str
    cuts: list[int]  # ``[0, c1, ..., size]``
    head: HeadDecision

    def guess(self, k: int) -> LogStart:
        """The state part ``k`` is read from before the parts above it are known."""
        return LogStart(self.cuts[k], self.head.doc_mode, self.head.known_broker)


@dataclass
class PartResult:
    """One part read: its chunks (reduced, but for the rows whose transactional id is open)."""

    chunks: list[tuple[str, pd.DataFrame]]
    report: InputReport
    end: LogEnd
    start: LogStart


@dataclass
class _Flow:
    """The state that runs from part to part as the join goes down the file."""

    known_broker: bool
    anchor_ms: int = -1
    txn_by_client: dict[str, str] = field(default_factory=dict)
    lines: int = 0
    seq: int = 0


def plan_log(file_id: int, display: str, options: ReadOptions, parts: int | None = None,
             block_size: int = BLOCK_SIZE, min_bytes: int | None = None) -> LogPlan | None:
    """Cut points of a plain log file worth reading in parts; None: read it whole."""
    try:
        size = os.path.getsize(display)
        if size < (MIN_SPLIT_BYTES if min_bytes is None else min_bytes):
            return None
        with open_input(display) as stream:
            head = stream.read(HEAD_BYTES)
            kind = sniff(head)
            if stream.compressed or stream.cr_lines or not kind.startswith("log/") or plan(kind, head) != [Pass(LOG)]:
                return None  # compressed, old Mac line ends, or a paste some other reader also reads
        with open(display, "rb") as handle:
            decided = head_decision(handle, ReadContext(file_id, display, options, InputReport(display)), block_size)
            if decided.doc_mode:
                return None  # not a log: its lines are counted as skips, nothing to gain
            count = parts or part_count(size)
            cuts = _cut_points(handle, size, count)
    except OSError:
        return None
    return LogPlan(file_id, display, display, cuts, decided) if len(cuts) > 2 else None


def part_count(size: int) -> int:
    """Parts for a log of ``size`` bytes: at most about ``PART_BYTES`` each, as many as a multiple of
    the workers, so that no worker is left with one part more than the others at the end."""
    workers = range_workers()
    return workers * max(1, math.ceil(size / (workers * PART_BYTES)))


def _cut_points(handle, size: int, parts: int) -> list[int]:
    cuts = [0]
    for i in range(1, parts):
        at = _event_start_after(handle, size * i // parts)
        if at is not None and cuts[-1] < at < size:
            cuts.append(at)
    cuts.append(size)
    return cuts


def _event_start_after(handle, position: int) -> int | None:
    """The first line after ``position`` that starts with a timestamp (it starts an event)."""
    handle.seek(position)
    window = handle.read(_CUT_WINDOW)
    first = window.find(b"\n") + 1
    last = window.rfind(b"\n") + 1
    if first <= 0 or last <= first:
        return None
    data = window[first:last]
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    stamped = np.flatnonzero(stamp_mask(line_array(data, starts)))
    return position + first + int(starts[stamped[0]]) if len(stamped) else None


def read_part(plan_: LogPlan, k: int, options: ReadOptions, start: LogStart | None = None,
              block_size: int = BLOCK_SIZE) -> PartResult:
    """Read part ``k`` of the file from ``start`` (default: the guess) and keep what the run keeps."""
    start = start or plan_.guess(k)
    report = InputReport(plan_.display)
    ctx = ReadContext(plan_.file_id, plan_.display, options, report)
    with open(plan_.path, "rb") as handle:
        handle.seek(plan_.cuts[k])
        source = ByteRange(handle, plan_.cuts[k + 1] - plan_.cuts[k])
        chunks = list(counted(read_logs(source, ctx, block_size=block_size, start=start), report))
    end: LogEnd = ctx.end_state  # type: ignore[assignment]
    kept = [(table, _kept(table, chunk, options, end.open_rows)) for table, chunk in chunks]
    return PartResult([(table, chunk) for table, chunk in kept if len(chunk)], report, end, start)


def _kept(table: str, chunk: pd.DataFrame, options: ReadOptions, open_rows: list[int]) -> pd.DataFrame:
    """The rows some rule may match, and every row whose transactional id is not known yet."""
    conditions = options.log_conditions
    if conditions is None or table != LOG_TABLE or not len(chunk):
        return chunk
    mask = matching_mask(chunk, conditions)
    if open_rows:
        mask |= chunk["seq"].isin(open_rows).to_numpy()
    return chunk if mask.all() else chunk[mask].reset_index(drop=True)


class LogJoin:
    """Joins the parts of one log in file order into what a whole read would have given."""

    def __init__(self, plan_: LogPlan, options: ReadOptions, block_size: int = BLOCK_SIZE) -> None:
        self.plan, self.options, self.block_size = plan_, options, block_size
        self.report = InputReport(plan_.display)
        self.chunks: list[tuple[str, pd.DataFrame]] = []
        self.flow = _Flow(plan_.head.known_broker)
        self.reread = 0  # parts read again here (a guess the part above contradicted, or a failed part)

    def add(self, k: int, result: PartResult | None) -> None:
        """Join part ``k`` (None: it failed elsewhere and is read here)."""
        flow = self.flow
        if result is None or not self._guessed_right(k, result):
            exact = LogStart(self.plan.cuts[k], self.plan.head.doc_mode, flow.known_broker, flow.anchor_ms,
                             flow.txn_by_client)
            result = read_part(self.plan, k, self.options, exact, self.block_size)
            self.reread += 1
        open_rows = set(result.end.open_rows)
        for table, chunk in result.chunks:
            chunk = self._placed(chunk, open_rows) if table == LOG_TABLE else chunk
            if len(chunk):  # a part's first lines of a template are kept until it is decided, then dropped
                self.chunks.append((table, chunk))
        merge_report(self.report, result.report)
        end = result.end
        flow.known_broker = end.known_broker
        if end.anchor_ms >= 0:
            flow.anchor_ms = end.anchor_ms
        flow.txn_by_client.update(end.txn_by_client)
        flow.lines += result.report.lines
        flow.seq += end.seq

    def _guessed_right(self, k: int, result: PartResult) -> bool:
        if k == 0:
            return True  # the first part starts where the file starts: nothing was guessed
        if result.start.known_broker != self.flow.known_broker:
            return False
        return not (result.end.wanted_earlier_anchor and self.flow.anchor_ms >= 0)  # a guessed part starts without one

    def _placed(self, chunk: pd.DataFrame, open_rows: set[int]) -> pd.DataFrame:
        """Line numbers and ``seq`` counted on from the parts above; open rows completed and kept
        only where a rule may match them."""
        flow = self.flow
        chunk = chunk.copy()
        if open_rows:
            is_open = chunk["seq"].isin(open_rows).to_numpy()
            if is_open.any():
                known = chunk["client_id"].map(flow.txn_by_client).to_numpy()
                fill = is_open & pd.notna(known)
                if fill.any():
                    txn = chunk["transactional_id"].to_numpy(dtype=object, copy=True)
                    txn[fill] = known[fill]
                    chunk["transactional_id"] = txn
                conditions = self.options.log_conditions
                if conditions is not None:
                    keep = ~is_open
                    keep[is_open] = matching_mask(chunk[is_open].reset_index(drop=True), conditions)
                    if not keep.all():
                        chunk = chunk[keep].reset_index(drop=True)
        if flow.lines:
            chunk["line"] = chunk["line"].to_numpy() + flow.lines
        if flow.seq:
            chunk["seq"] = chunk["seq"].to_numpy() + flow.seq
        return chunk

    def finish(self) -> InputReport:
        if not self.report.kinds:
            self.report.kinds.append("log/" + self.plan.head.family)
        return self.report
