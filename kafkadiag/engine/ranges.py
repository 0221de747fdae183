"""Read a large dump file as byte ranges in parallel processes, then join them in file order.

Reading is CPU-bound, and threads in one Python process share one interpreter lock: on two
cores they only overlap inside numpy and Arrow. Forked processes have no such limit. The file
is cut just before batch lines near equal fractions of its size; the parent reads the first
range and a forked process each other one, exactly as a whole-file read would (the same reader,
scanning in its own thread), into its own collected events; the parent joins them range after
range with ``CollectedEvents.merge``: line numbers shifted, spans numbered on, sequences
checked across the cut.

A range that starts inside a section does not know which partition it is reading; it reads
under a placeholder name that is replaced by the partition the previous range ended in. Ranges
of a file that starts as a data dump are assumed to start in a data section, those of a
``--transaction-log-decoder`` dump in a ``__transaction_state`` section; if the previous range
ended anywhere else (the other kind, a snapshot), that range is read again in-process from the
right state, so the result never depends on where the cuts fell.
"""

from __future__ import annotations

import gc
import io
import multiprocessing
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from typing import BinaryIO

from .. import progress
from ..facts.batch_stream import BatchStream
from ..facts.build import CollectedEvents
from ..facts.parked import Parked
from ..facts.span_spill import SpillFailed
from ..memory import return_free_memory
from ..readers.base import InputReport, ReadContext, ReadOptions
from ..readers.base import counted, merge_report
from ..readers.dumplog import read_dump
from ..readers.dumplog_parser import SectionState
from ..readers.eras import EraTracker
from ..tables import TXN_TOPIC

#: Files smaller than this are read by one process: forking and joining cost more than they save.
MIN_SPLIT_BYTES = 64 << 20
_CUT_WINDOW = 1 << 20  # look this far past a nominal cut for the start of a batch line
_BATCH_LINE = b"\nbaseOffset: "
_HEAD = 1 << 16
#: Rows per chunk inside a range reader: smaller chunks stay in the CPU cache and keep each
#: process's memory low (the reduction's result does not depend on the chunk size).
RANGE_CHUNK_ROWS = 16384
#: Coordinator records a range reader holds before it parks them in a file for the join (~7 MB).
PARK_RECORDS = 50_000
#: The folder range readers park records in, while ``read_in_ranges`` runs (forked readers inherit it).
_park_dir: str | None = None


@dataclass
class RangeResult:
    """What reading one range gave: its events, report and where its last section stood."""

    events: CollectedEvents
    report: InputReport
    end_state: SectionState | None
    shapes: list[str]


def range_workers() -> int:
    """Processes to read with: the usable cores, at most 8; 1 where fork is unavailable."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(8, cpus))


def cut_points(path: str, size: int, parts: int, transaction_log: bool = False) -> list[int]:
    """Range bounds ``[0, c1, ..., size]``: each inner cut at the start of a batch.

    A batch starts at a batch line; in a 0.11 - 2.1 deep dump (record lines only), at a record
    line whose position differs from the record line right above it. No cuts when the file's
    head shows neither, nor when it shows a ``__transaction_state`` dump unless
    ``transaction_log`` (the caller joins such ranges; otherwise they would all be read twice).
    """
    with open(path, "rb") as handle:
        head = handle.read(_HEAD)
        if _transaction_log(head) and not transaction_log:
            return [0, size]
        if b"baseOffset: " in head:
            find = _batch_line
        elif _LEGACY_RECORD.search(head):
            find = _legacy_batch_start
        else:
            return [0, size]
        cuts = [0]
        for k in range(1, parts):
            nominal = size * k // parts
            handle.seek(nominal)
            window = handle.read(_CUT_WINDOW)
            found = find(window)
            if found >= 0 and nominal + found + 1 > cuts[-1]:
                cuts.append(nominal + found + 1)
    cuts.append(size)
    return cuts


def _transaction_log(head: bytes) -> bool:
    """The file starts as a ``__transaction_state`` dump."""
    return b"__transaction_state" in head


def _batch_line(window: bytes) -> int:
    """Offset of the newline before the first batch line of ``window``; -1 if none."""
    return window.find(_BATCH_LINE)


#: A 0.11 - 2.1 deep-iteration record line (``dump-log-format.md`` §4.1) and its position.
_LEGACY_RECORD = re.compile(rb"(?m)^offset: -?\d+ position: (-?\d+) \w+: -?\d+ isvalid: \w+ keysize: .* producerId: ")


def _legacy_batch_start(window: bytes) -> int:
    """Offset of the newline before the first record line of ``window`` that starts a batch: the
    line above is a record line of another position (so no payload or batch runs on over the cut)."""
    pos = window.find(b"\n")
    while 0 <= pos < len(window):
        nxt = window.find(b"\n", pos + 1)
        if nxt < 0:
            return -1
        above = _LEGACY_RECORD.match(window, pos + 1, nxt)
        if above is not None:
            after = window.find(b"\n", nxt + 1)
            below = _LEGACY_RECORD.match(window, nxt + 1, after if after >= 0 else len(window))
            if below is not None and after >= 0 and below.group(1) != above.group(1) and int(above.group(1)) >= 0:
                return nxt
        pos = nxt
    return -1


class ByteRange(io.RawIOBase):
    """At most ``length`` bytes of a file opened at the range's start."""

    def __init__(self, handle: BinaryIO, length: int) -> None:
        super().__init__()
        self._handle = handle
        self._left = length

    @property
    def left(self) -> int:
        """Bytes of the range not read yet."""
        return self._left

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: self._left]
        n = self._handle.readinto(view)  # type: ignore[attr-defined]
        view.release()
        self._left -= n or 0
        return n or 0

    def read(self, size: int = -1) -> bytes:
        want = self._left if size is None or size < 0 else min(size, self._left)
        data = self._handle.read(want) if want > 0 else b""
        self._left -= len(data)
        return data


def placeholder(k: int, transaction_log: bool = False) -> SectionState:
    """The section a range starts in before the previous range says which one it is: a data
    section under a made-up topic, or a ``__transaction_state`` partition under a made-up number."""
    if transaction_log:
        return SectionState(TXN_TOPIC, -(k + 1), -1, "log", True)
    return SectionState(f"\0range-{k}", -1, -1, "log", False)


#: In a forked range reader: its place in the progress count (``kafkadiag.progress``), where it
#: counts its range's bytes chunk by chunk while a progress bar listens; -1 elsewhere (no count).
_progress_slot = -1


def read_range(
    path: str, display: str, file_id: int, options: ReadOptions, start: int, end: int, resume: SectionState | None,
    joinable: bool = True,
) -> RangeResult:
    """Read bytes ``[start, end)`` of the file as the reader would inside a whole-file read.

    ``joinable=False`` when nothing read before will take this range's result (the run's first
    range): it then keeps no per-producer first batches for a join.
    """
    report = InputReport(display)
    options = replace(options, chunk_rows=min(options.chunk_rows, RANGE_CHUNK_ROWS), arrays=("batches",))
    ctx = ReadContext(file_id, display, options, report)
    events = CollectedEvents(batches=BatchStream(joinable=joinable))
    if _park_dir is not None:
        events.park_records_beyond(PARK_RECORDS, _park_dir)
    slot = _progress_slot
    counting = progress.active() if slot >= 0 else None
    with open(path, "rb") as handle:
        handle.seek(start)
        source = ByteRange(handle, end - start)
        chunks = read_dump(source, ctx, threads=False, start_byte=start, resume=resume)
        for table, chunk in counted(chunks, report):
            events.add(table, chunk)
            if counting is not None:
                counting.range_read(slot, end - start - source.left)
    return_free_memory()  # what reading freed goes back before the result is pickled
    return RangeResult(events, report, ctx.end_state, ctx.shapes)  # type: ignore[arg-type]


def _child(conn, slot: int, *args) -> None:
    global _progress_slot
    _progress_slot = slot  # this process only (forked)
    try:
        result = read_range(*args)
        if _park_dir is None:
            conn.send(("ok", result))
        else:
            # Through a file, not the pipe: ``send`` pickles the whole result into one buffer, and
            # ``recv`` reads it into another before unpickling; both are held at the run's peak,
            # when every range ends at once (16-28 MB each on the 300 MB matrix dumps).
            parked = Parked(_park_dir, "a range's result", 64)
            parked.add(result)
            del result
            conn.send(("parked", parked))
    except BaseException as exc:  # the parent reads the file itself instead
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _read_here(args: tuple, joinable: bool) -> RangeResult:
    """The first range, read by the parent while the children read the others: one process
    fewer to hold its copy of the parent's pages, and one result that needs no pickling."""
    global _progress_slot
    _progress_slot = 0
    try:
        return read_range(*args, joinable=joinable)
    finally:
        _progress_slot = -1


def read_in_ranges(
    events: CollectedEvents, file_id: int, display: str, path: str, report: InputReport, options: ReadOptions,
    workers: int | None = None,
) -> bool:
    """Read one large plain dump file in parallel ranges into ``events``; False when not worth it.

    On False nothing was added and the caller reads the file the ordinary way.
    """
    global _park_dir
    workers = workers or range_workers()
    try:
        size = os.path.getsize(path)
    except OSError:
        return False
    if workers < 2 or size < MIN_SPLIT_BYTES:
        return False
    with open(path, "rb") as handle:
        transaction_log = _transaction_log(handle.read(_HEAD))
    cuts = cut_points(path, size, workers, transaction_log)
    if len(cuts) < 3:
        return False
    try:
        _park_dir = tempfile.mkdtemp(prefix="kafkadiag-ranges-")
    except OSError:
        _park_dir = None  # records stay in memory
    try:
        _read_ranges(events, report, size, cuts, path, display, file_id, options, transaction_log)
    finally:
        if _park_dir is not None:
            shutil.rmtree(_park_dir, ignore_errors=True)
            _park_dir = None
    return True


def _read_ranges(events: CollectedEvents, report: InputReport, size: int, cuts: list[int], path: str, display: str,
                 file_id: int, options: ReadOptions, transaction_log: bool) -> None:
    context = multiprocessing.get_context("fork")
    ranges = [(path, display, file_id, options, start, end, None if k == 0 else placeholder(k, transaction_log))
              for k, (start, end) in enumerate(zip(cuts, cuts[1:]))]
    children = []
    gc.freeze()  # the collector must not touch (and so copy) the parent's objects in each child
    for k, args in enumerate(ranges[1:], start=1):
        receive, send = context.Pipe(duplex=False)
        proc = context.Process(target=_child, args=(send, k, *args), daemon=True)
        proc.start()
        send.close()
        children.append((proc, receive, args))
    gc.unfreeze()
    joiner = _Joiner(events, report)
    try:
        # The run's first dump joins nothing read before it (a later file may hold its partitions too).
        joiner.add(0, _read_here(ranges[0], joinable=bool(events.batches.tp_keys)), ranges[0])
        for k, (proc, receive, args) in enumerate(children, start=1):
            try:
                status, payload = receive.recv()
                if status == "parked":
                    status, payload = "ok", next(iter(payload.read()))
            except (EOFError, StopIteration, OSError, SpillFailed):
                status, payload = "error", "a range reader ended unexpectedly"
            if status != "ok":
                # A range failed: nothing was joined for it, read the rest of the file here.
                path, display, file_id, options, start, _, _ = args
                payload = read_range(path, display, file_id, options, start, size, joiner.state if k else None)
                joiner.add(k, payload, args, reread=False)
                break
            joiner.add(k, payload, args)  # joined while later ranges are still being read
    finally:
        for proc, receive, _ in children:
            receive.close()
            proc.join(timeout=5)
            if proc.is_alive():  # a range nobody reads any more
                proc.kill()
                proc.join()
    joiner.finish()


class _Joiner:
    """Merges range results in file order; a range that began outside a data section is read again."""

    def __init__(self, events: CollectedEvents, report: InputReport) -> None:
        self.events, self.report = events, report
        self.eras = EraTracker()
        self.lines = 0
        self.state: SectionState | None = None

    def add(self, k: int, result: RangeResult, args: tuple, reread: bool = True) -> None:
        rename = {}
        here = args[-1]  # the state the range was read from (its placeholder)
        if k and reread:
            state = self.state
            assert state is not None and here is not None
            guessed = state.section == "log" and state.section_txn is here.section_txn and (
                not here.section_txn or state.topic == TXN_TOPIC)
            if not guessed:
                path, display, file_id, options, start, end, _ = args
                result = read_range(path, display, file_id, options, start, end, state)
            else:
                rename = {(here.topic, here.partition): (state.topic, state.partition)}
        self.events.merge(result.events, self.lines, rename)
        self.lines += result.report.lines
        merge_report(self.report, result.report)
        for shape in result.shapes:
            self.eras.add(shape)
        end = result.end_state
        if (end is not None and k and self.state is not None and here is not None
                and (end.topic, end.partition) == (here.topic, here.partition)):
            end = SectionState(self.state.topic, self.state.partition, self.state.segment, end.section, end.section_txn)
        self.state = end

    def finish(self) -> None:
        self.report.lines = self.lines
        self.report.era = self.eras.era()
