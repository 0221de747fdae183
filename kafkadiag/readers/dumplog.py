"""Reader for `kafka-dump-log.sh` text: data segments, `__transaction_state`, snapshots, indexes.

``read_dump`` walks the input in large blocks. Stretches made only of batch lines, ``| offset:``
record lines and payload continuation lines go through the vectorised fast path; everything
else (headers, warnings, older eras, transaction-log records, odd lines) goes line by line
through :class:`DumpParser`. Both append to the same sink in file order, so the rows are the same
whichever path read them, and chunks are yielded as soon as they fill.
"""

from __future__ import annotations

from functools import partial
from itertools import chain, islice
from typing import BinaryIO, Iterator

import numpy as np
import pandas as pd

from kafkadiag.readers.base import ReadContext
from kafkadiag.readers.blocks import BLOCK_SIZE, LINE_CAP, Block, index_block, iter_blocks
from kafkadiag.readers.dumplog_fast import BATCH, OTHER, RECORD, ScannedBlock, fast_line, line_array, scan_block
from kafkadiag.readers.dumplog_legacy import LegacyColumns, scan_legacy
from kafkadiag.readers.dumplog_lines import has_content, parse_record
from kafkadiag.readers.dumplog_parser import DumpParser, SectionState
from kafkadiag.readers.eras import EraTracker
from kafkadiag.readers.prefetch import parallel_map
from kafkadiag.readers.sink import Sink
from kafkadiag.readers.txnlog_fast import emit_run, txn_runs
from kafkadiag.tables import BATCHES


def read_dump(
    stream: BinaryIO,
    ctx: ReadContext,
    *,
    fast: bool = True,
    block_size: int = BLOCK_SIZE,
    threads: bool = True,
    start_byte: int = 0,
    resume: SectionState | None = None,
) -> Iterator[tuple[str, pd.DataFrame]]:
    """Read one dump-log text input; yield ``(table name, frame)`` chunks of at most chunk_rows rows.

    ``fast=False`` forces the line parser everywhere (used by tests to check the fast path).
    To read one range of a file (see ``engine.ranges``): ``start_byte`` is the range's offset,
    ``resume`` the section it starts in, and ``threads=False`` scans in the calling thread (the
    ranges already run in parallel processes). Line numbers then count from the range's start;
    ``ctx.end_state`` and ``ctx.shapes`` tell the caller where the range ended and what it saw.
    """
    sink = Sink(ctx.options.chunk_rows, ctx.options.columns, ctx.options.arrays, reject=ctx.skip)
    wanted = sink.wanted(BATCHES.name) if BATCHES.name in ctx.options.columns else None
    scan = partial(_scan, wanted=wanted)
    eras = EraTracker()
    parser = DumpParser(ctx, sink, eras)
    if resume is not None:
        parser.resume(resume)
    reader = _BlockReader(parser, eras, wanted)
    blocks = iter_blocks(stream, block_size, start_byte=start_byte)
    scanned: Iterator[ScannedBlock | Block]
    if fast and threads:
        # An input of one block gains nothing from the scanning threads; starting them costs
        # about a millisecond, which a folder of thousands of small dumps pays per file.
        ahead = list(islice(blocks, 2))
        threads = len(ahead) > 1
        blocks = chain(ahead, blocks)
    if fast and not threads:
        scanned = map(scan, blocks)
    elif fast:
        scanned = parallel_map(blocks, scan, on_drop=_release)
    else:
        scanned = (index_block(b) for b in blocks)
    for item in scanned:
        reader.process(item)
        _release(item)
        yield from sink.drain()
    parser.close_section()
    if not ctx.report.kinds and ctx.report.notes:
        ctx.saw_kind("dump-log/stderr")  # only the tool's messages: a crash or warnings, no records
    ctx.report.lines = reader.next_line - 1
    ctx.report.era = eras.era()
    ctx.end_state = parser.section_state()
    ctx.shapes = eras.shapes
    yield from sink.drain(final=True)


def _scan(block: Block, wanted: frozenset[str] | None = None) -> ScannedBlock | Block:
    if block.truncated:
        return block
    scanned = scan_block(index_block(block), wanted)
    if scanned.batches is None and not len(scanned.batch_idx):  # no batch line: maybe a 0.11 - 2.1 deep dump
        scanned.legacy = scan_legacy(scanned.block, line_array(scanned.block))
    return scanned


def _release(item: ScannedBlock | Block) -> None:
    (item.block if isinstance(item, ScannedBlock) else item).release()


class _BlockReader:
    """Splits each block into fast stretches and line-parser stretches."""

    def __init__(self, parser: DumpParser, eras: EraTracker, wanted: frozenset[str] | None = None) -> None:
        self.parser = parser
        self.eras = eras
        self.wanted = wanted  # batch columns to keep; None: all
        self.next_line = 1

    def process(self, item: ScannedBlock | Block) -> None:
        scanned = item if isinstance(item, ScannedBlock) else None
        block = scanned.block if scanned is not None else item  # type: ignore[union-attr]
        assert isinstance(block, Block)
        block.first_line = self.next_line
        self.next_line += block.nlines
        if block.truncated:
            self.parser.feed(bytes(block.data[: int(block.ends[0])]), block.first_line, block.base_byte, truncated=True)
            return
        if scanned is not None and scanned.legacy is not None:
            self.legacy(scanned)
            return
        if scanned is None or scanned.batches is None:
            self.general(block, 0, block.nlines)
            return
        self.mixed(scanned)

    def general(self, block: Block, a: int, b: int) -> None:
        """Feed lines ``a..b-1`` of the block to the line parser."""
        if a >= b:
            return
        feed = self.parser.feed
        data = memoryview(block.data)
        base = block.base_byte
        line_no = block.first_line + a
        for s, e in zip(block.starts[a:b].tolist(), block.ends[a:b].tolist()):
            if e - s > LINE_CAP:
                feed(data[s : s + LINE_CAP].tobytes(), line_no, base + s, True)
            else:
                feed(data[s:e].tobytes(), line_no, base + s)
            line_no += 1
        data.release()

    def mixed(self, sb: ScannedBlock) -> None:
        block = sb.block
        n = block.nlines
        batch_idx = sb.batch_idx
        special = sb.special
        bc = sb.batches
        assert bc is not None
        if sb.record_sample is not None:
            for shape in parse_record(sb.record_sample).shapes:
                self.eras.add(shape)
        pos = 0
        while pos < n:
            if self.parser.section_txn:
                self.txn_section(sb, pos, n)
                return
            k = int(np.searchsorted(batch_idx, pos))
            if k == len(batch_idx):
                self.general(block, pos, n)
                return
            b0 = int(batch_idx[k])
            if b0 > pos:
                self.general(block, pos, b0)
                pos = b0
                continue
            s = int(np.searchsorted(special, b0))
            end = int(special[s]) if s < len(special) else n
            if end == n and sb.cls[n - 1] == BATCH:
                if n - 1 == b0:
                    self.general(block, b0, n)
                    return
                end = n - 1  # a trailing batch line: its record lines may be in the next block
            if self.parser.section_txn is None:
                first = self._first_content_record(sb, b0, end)
                if first >= 0:
                    self.general(block, b0, first + 1)
                    pos = first + 1
                    continue
            if not self._context_fits():
                self.general(block, b0, end)
            else:
                self.fast_stretch(sb, b0, end)
            if end == n:
                self._carry_state(sb, b0, end)
            pos = end

    def txn_section(self, sb: ScannedBlock, a: int, b: int) -> None:
        """Lines a..b-1 from inside a ``__transaction_state`` section: runs of text-decoder
        records at once (:mod:`txnlog_fast`), the rest line by line."""
        block = sb.block
        pos = a
        for run in txn_runs(sb, a, b):
            self.general(block, pos, run.start)
            pos = run.start
            if not self.parser.section_txn or not self._context_fits():
                continue  # a new section began in the lines before: the line parser reads on
            self.fast_stretch(sb, run.start, run.end)  # the batch lines (the parser is flushed first)
            emit_run(self.parser, block, run, self.eras)
            pos = run.end
        self.general(block, pos, b)

    def legacy(self, sb: ScannedBlock) -> None:
        """A block of 0.11 - 2.1 record lines: runs of them regrouped at once, the rest line by line."""
        block = sb.block
        lc: LegacyColumns = sb.legacy  # type: ignore[assignment]
        n = block.nlines
        pos = 0
        while pos < n:
            if self.parser.section_txn:
                self.general(block, pos, n)
                return
            k = int(np.searchsorted(lc.idx, pos))
            if k == len(lc.idx):
                self.general(block, pos, n)
                return
            a = int(lc.idx[k])
            if a > pos:
                self.general(block, pos, a)
                pos = a
                continue
            end = int(lc.run_end[k])
            if self.parser.section_txn is None:
                content = np.flatnonzero(lc.content[k:k + end - a])
                if len(content):  # the first key or payload tells a data dump from ``__transaction_state``
                    first = a + int(content[0])
                    self.general(block, a, first + 1)
                    pos = first + 1
                    continue
            self.legacy_stretch(sb, k, end)
            pos = end

    def legacy_stretch(self, sb: ScannedBlock, k: int, end: int) -> None:
        """Record lines ``idx[k]..end-1``: whole batches as rows; the first batch (when the parser
        holds one it may join) and the last (the next lines may join it) go through the line parser."""
        block = sb.block
        lc: LegacyColumns = sb.legacy  # type: ignore[assignment]
        a = int(lc.idx[k])
        r1 = k + end - a
        position, control = lc.position[k:r1], lc.control[k:r1]
        new = np.ones(r1 - k, dtype=bool)
        new[1:] = control[1:] | control[:-1] | (position[1:] < 0) | (position[1:] != position[:-1])
        starts = np.flatnonzero(new)
        first_fast = 1 if self.parser.group is not None else 0
        if len(starts) - 1 <= first_fast or not self._context_fits():
            self.general(block, a, end)
            return
        fa, fb = a + int(starts[first_fast]), a + int(starts[-1])
        self.general(block, a, fa)
        parser = self.parser
        parser.flush()
        g0 = starts[first_fast:-1] + k  # ranks of the fast batches' first records
        g1 = starts[first_fast + 1:] + k  # ... and of the record after each
        r0 = int(g0[0])
        rel = g0 - r0
        lines = lc.idx[g0]
        ctl = lc.control[g0]
        n = len(g0)
        file_id, topic, partition, segment = parser.batch_context()
        line_no = lines + block.first_line
        byte = block.starts[lines] + block.base_byte
        cols: dict[str, np.ndarray] = {
            "file_id": np.full(n, file_id, dtype=np.int32),
            "line": line_no,
            "byte": byte,
            "marker_line": np.where(ctl, line_no, -1),
            "marker_byte": np.where(ctl, byte, -1),
            "topic": np.full(n, topic, dtype=object),
            "partition": np.full(n, partition, dtype=np.int32),
            "segment": np.full(n, segment, dtype=np.int64),
            "base_offset": lc.offset[g0],
            "last_offset": lc.offset[g1 - 1],
            "count": np.full(n, -1, dtype=np.int64),
            "base_sequence": lc.sequence[g0],
            "last_sequence": lc.sequence[g1 - 1],
            "producer_id": lc.producer_id[g0],
            "producer_epoch": lc.producer_epoch[g0],
            "partition_leader_epoch": np.full(n, -1, dtype=np.int64),
            "is_transactional": lc.is_transactional[g0],
            "is_control": ctl,
            "marker": lc.marker[g0],
            "coordinator_epoch": lc.coordinator_epoch[g0].astype(np.int32),
            "timestamp": np.maximum.reduceat(lc.timestamp[r0:int(g1[-1])], rel),
            "timestamp_type": lc.timestamp_type[g0],
            "position": lc.position[g0],
            "size": np.full(n, -1, dtype=np.int64),
            "magic": lc.magic[g0],
            "codec": lc.codec[g0],
            "is_valid": np.logical_and.reduceat(lc.is_valid[r0:int(g1[-1])], rel),
        }
        self._emit_columns(cols, lc.shapes)
        self.general(block, fb, end)

    def _context_fits(self) -> bool:
        """The section's partition and segment fit their columns (the line parser counts a row
        that does not as a skip; a column of them could not even be built)."""
        _file_id, _topic, partition, segment = self.parser.batch_context()
        return -(1 << 31) <= partition < (1 << 31) and -(1 << 63) <= segment < (1 << 63)

    def _carry_state(self, sb: ScannedBlock, a: int, b: int) -> None:
        """Leave the line parser as it would be after lines a..b-1 (the next block may continue a payload)."""
        primary = np.flatnonzero(sb.cls[a:b] != OTHER)
        if not len(primary):
            return
        last = int(primary[-1]) + a
        if sb.cls[last] == RECORD and has_content(fast_line(sb.block, last)):
            self.parser.expect_continuation()

    def _first_content_record(self, sb: ScannedBlock, a: int, b: int) -> int:
        """First record line with key/payload in lines a..b-1, or -1 (checked in C first)."""
        block = sb.block
        lo = int(block.starts[a])
        hi = int(block.ends[b - 1])
        data = block.data
        if data.find(b" payload: ", lo, hi) < 0 and data.find(b" key: ", lo, hi) < 0:
            return -1
        for i in (np.flatnonzero(sb.cls[a:b] == RECORD) + a).tolist():
            if has_content(fast_line(block, i)):
                return i
        return -1

    def fast_stretch(self, sb: ScannedBlock, a: int, b: int) -> None:
        """Rows of the batch lines in lines a..b-1 straight from the parsed columns."""
        parser = self.parser
        parser.flush()
        bc = sb.batches
        assert bc is not None
        block = sb.block
        j0 = int(np.searchsorted(sb.batch_idx, a))
        j1 = int(np.searchsorted(sb.batch_idx, b))
        if j1 <= j0:
            return
        n = j1 - j0
        file_id, topic, partition, segment = parser.batch_context()
        lines = sb.batch_idx[j0:j1]
        midx = bc.marker_idx[j0:j1]
        has_marker = midx >= 0
        safe = np.where(has_marker, midx, 0)
        values = bc.values
        cols: dict[str, np.ndarray] = {
            "file_id": np.full(n, file_id, dtype=np.int32),
            "line": lines + block.first_line,
            "byte": block.starts[lines] + block.base_byte,
            "marker_line": np.where(has_marker, midx + block.first_line, -1),
            "marker_byte": np.where(has_marker, block.starts[safe] + block.base_byte, -1),
            "topic": np.full(n, topic, dtype=object),
            "partition": np.full(n, partition, dtype=np.int32),
            "segment": np.full(n, segment, dtype=np.int64),
            "marker": bc.marker[j0:j1],
            "coordinator_epoch": bc.coordinator_epoch[j0:j1].astype(np.int32),
        }
        cols.update((name, column[j0:j1]) for name, column in values.items())
        self._emit_columns(cols, bc.shapes)

    def _emit_columns(self, cols: dict[str, np.ndarray], shapes: tuple[str, ...]) -> None:
        """Batch rows read at once: the wanted columns to the sink, the era evidence noted."""
        if self.wanted is not None:
            cols = {name: column for name, column in cols.items() if name in self.wanted}
        for shape in shapes:
            self.eras.add(shape)
        self.parser.saw_batch()
        self.parser.fast_columns(cols)
