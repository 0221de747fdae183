"""Reader for client, broker and tool logs: stream blocks, group lines into events, emit LOG_EVENTS rows.

Per block: RE2 (through Arrow) marks the lines that mention Kafka and the lines that start with a
timestamp; for each candidate, walk back to the head line of its event and forward over its
continuation lines (stack trace, multi-line message, printed error object). A one-line event
goes through its line template (:mod:`fastline`); any other event is parsed line by line. Lines
no event claims are counted, not parsed: in a log they are ordinary chatter (a note), in a file
that is clearly not a log they are skips. A block is cut before its last head line, so an event
never straddles two blocks unless it is longer than ``MAX_PENDING``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator

import numpy as np
import pandas as pd

from kafkadiag.readers.base import ReadContext
from kafkadiag.readers.logs.blocks import BLOCK_SIZE, LINE_CAP, whole_lines
from kafkadiag.readers.logs.bulk import PRUNED, Classified, PrunedRun, classify, client_ids
from kafkadiag.readers.logs.clean import clean, is_blank
from kafkadiag.readers.logs.event import COLUMNS, MESSAGE_CHARS, PROMPT, RawEvent, full_row, names_an_error
from kafkadiag.readers.logs.fastline import DROPPED, UNCACHEABLE, LineTemplates, Shape
from kafkadiag.readers.logs.head import BROKER, LIBRDKAFKA, TEXT, TOOL, Head
from kafkadiag.readers.logs.hits import hit_mask, line_array, stamp_mask
from kafkadiag.readers.logs.layouts import Recognisers
from kafkadiag.readers.logs.prune import Pruner
from kafkadiag.readers.logs.stack import is_shaped, starts_new_event
from kafkadiag.readers.logs.times import Anchor
from kafkadiag.readers.logs.tools import Table, parse_row, row_fields
from kafkadiag.readers.sink import Sink

MAX_EVENT_LINES = 4000
MAX_FREE_LINES = 20  # unshaped lines a message may run on before they count as chatter
#: Events of up to this many lines go through their line template (longer ones are traces too
#: varied to repeat: described in full).
MAX_TEMPLATE_LINES = 64
LOOKBACK = 4000  # lines searched back from a block's end for the last head line
DOC_RATIO = 0.15  # below this share of log-shaped lines, a file is not a log
HEAD_BYTES = 64 << 10  # what the first look at a file (is it a log? a broker's?) reads
MAX_PENDING = 16 << 20  # an event longer than this is cut
#: Log event rows are wide (about 35 Python objects each): smaller chunks keep the peak low.
LOG_CHUNK_ROWS = 8192


@dataclass
class LogStart:
    """What a read of part of a log starts from (``engine.log_ranges``): the whole file's head
    decision, and what the lines above the part left behind where that is known.

    ``txn_by_client`` None means unknown: rows of a client the part never names with its
    transactional id are then listed in ``LogEnd.open_rows`` for the caller to complete.
    """

    byte: int
    doc_mode: bool
    known_broker: bool
    anchor_ms: int = -1
    txn_by_client: dict[str, str] | None = None


@dataclass
class LogEnd:
    """Where a read left the state that flows from one part of a log to the next."""

    known_broker: bool
    anchor_ms: int
    wanted_earlier_anchor: bool  # a date-less stamp came before any full date
    seq: int  # events numbered, pruned ones included
    txn_by_client: dict[str, str]
    open_rows: list[int] = field(default_factory=list)  # ``seq`` of rows whose transactional id may be above


@dataclass
class HeadDecision:
    """What the first look at a log decides for the whole file."""

    doc_mode: bool
    known_broker: bool
    family: str  # the family a log whose lines name none is reported as


def read_logs(
    stream: BinaryIO, ctx: ReadContext, *, block_size: int = BLOCK_SIZE, fast: bool = True,
    start: LogStart | None = None,
) -> Iterator[tuple[str, pd.DataFrame]]:
    """Read one log input; yield ``("log_events", frame)`` chunks of at most ``chunk_rows`` rows.

    ``fast=False`` parses every event in full instead of through line templates (tests compare both).
    With ``start``, ``stream`` is one part of a file beginning at a line that starts an event: line
    numbers count from the part's start, the file's kind is left to the caller, and ``ctx.end_state``
    is the part's :class:`LogEnd`.
    """
    reader = _LogReader(ctx, fast, max_pending=max(MAX_PENDING, 4 * block_size), start=start)
    tail = b""
    for block, dropped in whole_lines(stream, block_size):
        data = tail + block if tail else block
        if reader.doc_mode is None and len(data) < HEAD_BYTES and not dropped:
            tail = data  # decide what the file is on a full head, whatever the block size
            continue
        tail = reader.feed(data, final=False, dropped=dropped)
        if dropped:
            reader.note_truncated()
        yield from reader.sink.drain()
    if tail:
        reader.feed(tail, final=True, dropped=0)
    reader.finish(name_kind=start is None)
    if start is not None:
        ctx.end_state = reader.end_state()
    yield from reader.sink.drain(final=True)


def head_decision(stream: BinaryIO, ctx: ReadContext, block_size: int = BLOCK_SIZE) -> HeadDecision:
    """Decide what the file is on the same first lines a whole read decides it on."""
    reader = _LogReader(ctx)
    data = b""
    for block, dropped in whole_lines(stream, block_size):
        data += block
        if len(data) >= HEAD_BYTES or dropped:
            break
    reader.load(data)
    reader.decide_mode(len(reader._raw))
    families = [f for f, _ in reader.sample_families.most_common() if f != TOOL]
    return HeadDecision(bool(reader.doc_mode), reader.known_broker, families[0] if families else TEXT)


class _LogReader:
    """State of one input across blocks."""

    def __init__(self, ctx: ReadContext, fast: bool = True, max_pending: int = 0, start: LogStart | None = None) -> None:
        self.ctx = ctx
        self.fast = fast
        self.max_pending = max_pending
        self.sink = Sink(min(ctx.options.chunk_rows, LOG_CHUNK_ROWS), reject=ctx.skip)
        self.recognise = Recognisers()
        self.anchor = Anchor()
        self.templates = LineTemplates(self.recognise)
        #: With the run's log conditions (``analyze``), lines of templates no rule can match get no row.
        self.prune = Pruner(ctx.options.log_conditions) if fast and ctx.options.log_conditions is not None else None
        self._plain_block = False
        #: pruned lines (one by one, or runs of them) whose stamps the anchor has not taken yet
        self._stamps: list[tuple[Shape, str] | PrunedRun] = []
        self._pruned_events = 0
        self.base = 0  # byte offset of the next block's first line
        self.line_no = 1  # line number of the next block's first line
        self.seq = 0
        self.doc_mode: bool | None = None
        self.other = 0
        self.families: set[str] = set()
        self.sample_families: Counter = Counter()
        self.known_broker = False
        self.txn_by_client: dict[str, str] = {}  # client.id -> transactional.id, as the input states it
        #: Rows (their ``seq``) whose client the part has not tied to a transactional id (a part of a file).
        self.open_rows: list[int] | None = None
        if start is not None:
            self.base = start.byte
            self.doc_mode = start.doc_mode
            self.known_broker = start.known_broker
            self.anchor = Anchor(start.anchor_ms)
            if start.txn_by_client is not None:
                self.txn_by_client = dict(start.txn_by_client)
            elif start.byte > 0:
                self.open_rows = []
        # per-block caches
        self._raw: list[str] = []
        self._clean: list[tuple[str, str] | None] = []
        self._heads: dict[int, Head | None] = {}
        self._claimed_blank = 0
        self._stamped: list[bool] = []

    # --- blocks -------------------------------------------------------------------------------

    def feed(self, data: bytes, final: bool, dropped: int) -> bytes:
        """Process the whole lines in ``data``; return the bytes of the lines kept for the next block."""
        lines = self.load(data)
        n = len(lines)
        if self.doc_mode is None:
            self.decide_mode(n)
        byte_starts = _line_starts(data)
        # Nothing for ``clean`` to undo on any line of the block: a line's raw text is its text.
        self._plain_block = data.isascii() and b"\\" not in data and b"\x1b" not in data and b"\r" not in data
        arrow = line_array(data, byte_starts)
        stamped = stamp_mask(arrow)
        self._stamped = stamped.tolist()
        keep = n if final or dropped else self._cut(n)
        if keep == 0:
            if len(data) < self.max_pending:
                return data  # one event so far: wait for the line that starts the next one
            keep = n
        hits = np.flatnonzero(hit_mask(arrow)[:keep])
        if not self.doc_mode:
            self.ctx.report.kafka_lines += len(hits)  # a client's or broker's own lines, with or without an event
        self._claimed_blank = 0
        bulk = None
        if self.prune is not None and self._plain_block and self.fast:
            bulk = classify(data, arrow, byte_starts, hits, stamped, keep, self.templates.shapes(self.known_broker),
                            self.prune.conditions, self.known_broker)
        claimed = self._events(hits, keep, byte_starts.tolist(), bulk)
        if self.prune is not None:
            self.prune.settle()  # templates first seen in this block: decided for the next ones
            if self._stamps:
                self._settle_anchor()
            self.ctx.report.events += self._pruned_events  # events all the same (``counted`` sees only rows)
            self._pruned_events = 0
        blank = lines[:keep].count("") + lines[:keep].count("\r") - self._claimed_blank
        self.other += max(0, keep - claimed - blank)
        self.ctx.report.lines += keep
        self.line_no += keep
        processed = int(byte_starts[keep]) if keep < n else len(data)
        self.base += processed + (dropped if keep == n else 0)
        return data[processed:]

    def load(self, data: bytes) -> list[str]:
        """Take the whole lines of ``data`` as the block the line accessors read."""
        lines = data.decode("utf-8", "replace").split("\n")
        lines.pop()  # data ends with a newline
        self._raw = lines
        self._clean = [None] * len(lines)
        self._heads = {}
        return lines

    def _cut(self, n: int) -> int:
        """Index of the last head line (the start of the event that may continue in the next block)."""
        stamped = self._stamped
        for j in range(n - 1, max(-1, n - 1 - LOOKBACK), -1):
            if stamped[j] or self._head(j) is not None:
                return j
        return n

    def decide_mode(self, n: int) -> None:
        """Is this a log at all? Look at the first lines: a log has mostly head or continuation lines."""
        shaped = seen = 0
        for j in range(n):
            prefix_text = self._text(j)
            if is_blank(prefix_text):
                continue
            seen += 1
            head = self._head(j)
            if head is not None:
                shaped += 1
                self.sample_families[head.family] += 1
            elif is_shaped(prefix_text):
                shaped += 1
            if seen >= 400:
                break
        self.doc_mode = seen > 0 and shaped < DOC_RATIO * seen
        self.known_broker = self.sample_families[BROKER] > 0

    def end_state(self) -> LogEnd:
        return LogEnd(self.known_broker, self.anchor.last_ms, self.anchor.wanted_earlier, self.seq,
                      self.txn_by_client, self.open_rows or [])

    # --- line access --------------------------------------------------------------------------------

    def _cleaned(self, j: int) -> tuple[str, str]:
        got = self._clean[j]
        if got is None:
            raw = self._raw[j]
            if self._plain_block and raw[:1] in _INDENTS and "&" not in raw:
                # An indented line of a plain block (a stack frame): no container prefix or quote
                # marker can start it and there is nothing for ``clean`` to undo.
                got = self._clean[j] = ("", raw if len(raw) <= LINE_CAP else raw[:LINE_CAP])
            else:
                got = self._clean[j] = clean(raw if len(raw) <= LINE_CAP else raw[:LINE_CAP])
        return got

    def _text(self, j: int) -> str:
        return self._cleaned(j)[1]

    def _head(self, j: int) -> Head | None:
        if j in self._heads:
            return self._heads[j]
        text = self._text(j)
        if text and text[0] not in " \t":
            head = self.recognise(text)
        else:
            # A log pasted as an indented block (Markdown's four spaces, an RST literal block):
            # its lines are heads once the indentation is off. A trace's frames and a traceback's
            # lines keep being continuations (``_extend`` decides by the indentation of the head).
            stripped = text.lstrip(" \t")
            head = self.recognise(stripped) if stripped and not stripped.startswith(_NOT_HEADS) else None
        self._heads[j] = head
        return head

    # --- grouping ---------------------------------------------------------------------------------------

    def _events(self, hits: np.ndarray, limit: int, byte_starts: list[int], bulk: Classified | None = None) -> int:
        """Emit the events that contain a hit line; return how many lines they span.

        Runs of hit lines ``bulk`` classified (pruned events, chatter) are applied at once.
        """
        claimed = 0
        prev_end = 0
        stamped = self._stamped
        hit_list = hits.tolist()
        runs = bulk.runs() if bulk is not None else {}
        k, n = 0, len(hit_list)
        while k < n:
            h0 = hit_list[k]
            end = runs.get(k)
            if end is not None and h0 >= prev_end and bulk.known_broker == self.known_broker:  # type: ignore[union-attr]
                claimed += self._apply_run(bulk, hits, k, end)  # type: ignore[arg-type]
                prev_end = hit_list[end - 1] + 1
                k = end
                continue
            k += 1
            if h0 < prev_end:
                continue
            if not stamped[h0] and PROMPT.match(self._text(h0)):
                claimed += 1  # a pasted command line is not evidence (its output is), nor an unreadable line
                self.ctx.note("shell command lines")
                prev_end = h0 + 1
                continue
            if self.fast and stamped[h0] and (h0 + 1 >= limit or stamped[h0 + 1]):
                done = self._single(h0, byte_starts)
                if done >= 0:
                    claimed += done
                    prev_end = h0 + 1
                    continue
            h = h0
            while h > prev_end and not stamped[h] and self._head(h) is None:
                h -= 1
            if not stamped[h] and self._head(h) is None and (is_blank(self._text(h)) or PROMPT.match(self._text(h))):
                h = h0  # no start line above, only prose, a command line or blank lines: the evidence is its own event
            head = self._head(h)
            if head is not None and head.family == TOOL and "table" in head.fields:
                end = self._table(h, head, limit, byte_starts)
                claimed += end - h
                prev_end = end
                if h0 < end:
                    continue
                h = h0  # the hit follows the table: it starts an event of its own
            e = self._extend(h, limit)
            if h0 >= e:
                h = h0
                e = self._extend(h, limit)
            claimed += self._emit(h, e, byte_starts)
            prev_end = e
        return claimed

    def _extend(self, h: int, limit: int) -> int:
        """End (exclusive) of the event starting at line ``h``.

        An unindented line that names an error starts an event of its own unless it is part of
        a trace (an exception header under a Java or Python log line): a pasted error must not
        be glued onto the chatter above it. librdkafka's lines never continue, so after one
        only wrapped text does.
        """
        prefix = self._cleaned(h)[0]
        one_line: bool | None = None  # a librdkafka line: read only when a shaped line follows
        free = 0
        j = h + 1
        stop = min(limit, h + MAX_EVENT_LINES)
        stamped = self._stamped
        # An event whose head is indented (a log pasted as an indented block) ends at the next line
        # indented no deeper that has a head; deeper lines continue it, as frames do. Prose above an
        # indented block ends at its first line with a head.
        headless = self._head(h) is None
        head_indent = 0 if headless else _indent(self._text(h))
        # Runs of indented lines are taken at once under an unindented head.
        frames = prefix == "" and self._plain_block and not headless and not head_indent
        while j < stop:
            if stamped[j]:
                break  # a line that starts with a timestamp starts the next event
            pfx, text = self._cleaned(j)
            if pfx != prefix:
                break
            if is_blank(text):
                k = j + 1
                while k < stop and is_blank(self._text(k)):
                    k += 1
                if k < stop and self._continues_after_blank(k, prefix):
                    j = k
                    continue
                break
            if text[0] in " \t":
                if (headless or head_indent and _indent(text) <= head_indent) and self._head(j) is not None:
                    break
                j = self._indented_run(j + 1, stop) if frames else j + 1
                continue
            if self._head(j) is not None or starts_new_event(text):
                break
            if is_shaped(text):
                if one_line is None:
                    head = self._head(h)
                    one_line = head is not None and head.family == LIBRDKAFKA
                if one_line:
                    break
                j += 1
                continue
            if _ERRORISH.search(text):
                break
            if free < MAX_FREE_LINES:
                free += 1
                j += 1
                continue
            break
        return j

    def _indented_run(self, j: int, stop: int) -> int:
        """End of the indented, non-blank lines from ``j`` (a trace's frames): each continues the
        event, as the loop of ``_extend`` would decide one by one (in a plain block, without a prefix)."""
        raw = self._raw
        while j < stop:
            line = raw[j]
            if line[:1] not in _INDENTS or "&" in line:
                break
            stripped = line.strip()
            if not stripped or stripped.startswith("```"):
                break  # blank for grouping: the loop decides
            j += 1
        return j

    def _continues_after_blank(self, k: int, prefix: str) -> bool:
        pfx, text = self._cleaned(k)
        return pfx == prefix and (text[0] in " \t" or (is_shaped(text) and self._head(k) is None))

    # --- output -----------------------------------------------------------------------------------------

    def _emit(self, h: int, e: int, byte_starts: list[int]) -> int:
        first = self._text(h)
        rest = [self._text(j) for j in range(h + 1, e)]
        line, byte = self.line_no + h, self.base + byte_starts[h]
        if self.fast and e - h <= MAX_TEMPLATE_LINES and first[:1] not in _INDENTS:
            # A template is learned only from an event whose first line has a layout's head.
            done = self._templated(h, e, "\n".join([first, *rest]) if rest else first, line, byte)
            if done >= 0:
                return done
        head = self._head(h)
        ev = RawEvent(line, byte, e - h, head, first, rest)
        if self._stamps:
            self._settle_anchor()
        time_ms = self.anchor.resolve(head.stamp) if head is not None else -1
        built = full_row(ev, (self.ctx.file_id, line, byte, e - h, self.seq, time_ms), self.known_broker)
        if built is None:
            return 0  # broker chatter: its lines count as other log lines
        if head is None and e - h > 1 and built[0][_ERRORS]:
            built = self._at_error_line(built, h, e, byte_starts)
        self._add(*built)
        self._claimed_blank += sum(1 for j in range(h + 1, e) if self._raw[j] in ("", "\r"))
        return e - h

    def _at_error_line(self, built: tuple[tuple, str], h: int, e: int, byte_starts: list[int]) -> tuple[tuple, str]:
        """A paragraph with no log head (prose, a pasted trace without its log line) is cited at the
        first of its lines that names the error, not at its opening words."""
        for j in range(h, e):
            if names_an_error(self._text(j)):
                if j == h:
                    break
                row = list(built[0])
                row[1:4] = [self.line_no + j, self.base + byte_starts[j], e - j]
                if row[_MESSAGE] == self._text(h).strip()[:MESSAGE_CHARS]:  # quoted too, unless a trace header was
                    row[_MESSAGE] = self._text(j).strip()[:MESSAGE_CHARS]
                return tuple(row), built[1]
        return built

    def _templated(self, h: int, e: int, text: str, line: int, byte: int) -> int:
        """An event of lines ``h:e`` through its template (``text``: its cleaned lines joined):
        the lines it claims, 0 for chatter, -1 if it needs a full parse."""
        done = self._by_shape(text, line, byte, e - h)
        if done <= 0:
            return done
        self._claimed_blank += sum(1 for j in range(h + 1, e) if self._raw[j] in ("", "\r"))
        return e - h

    def _single(self, j: int, byte_starts: list[int]) -> int:
        """A one-line event through its line shape: 1 if emitted, 0 if chatter, -1 if it needs a full parse."""
        raw = self._raw[j]
        plain = raw[:1] in _PLAIN_FIRST and (self._plain_block or (
            raw.isascii() and "\\" not in raw and "\x1b" not in raw and not raw.endswith("\r")))
        text = raw if plain else self._text(j)
        return self._by_shape(text, self.line_no + j, self.base + byte_starts[j], 1)

    def _by_shape(self, text: str, line: int, byte: int, lines: int) -> int:
        """An event of ``lines`` lines through its template: 1 if taken (a row, or pruned), 0 if
        chatter, -1 if it needs a full parse."""
        shape = self.templates.lookup(text, self.known_broker)
        if shape is UNCACHEABLE:
            return -1
        if shape is DROPPED:
            return 0
        if self.prune is not None and self.prune.keeps(shape) is False:
            self._pruned(shape, text)  # type: ignore[arg-type]
            return 1
        if self._stamps:
            self._settle_anchor()
        time_ms = shape.time_ms(text)  # type: ignore[union-attr]
        if time_ms == -2:
            time_ms = self.anchor.resolve(shape.stamp(text))  # type: ignore[union-attr]
        elif time_ms >= 0:
            self.anchor.last_ms = time_ms
        row = shape.row(self.ctx.file_id, line, byte, self.seq, time_ms, text)  # type: ignore[union-attr]
        self._add(row if lines == 1 else row[:3] + (lines,) + row[4:], shape.family)  # type: ignore[union-attr]
        return 1

    def _pruned(self, shape: Shape, text: str) -> None:
        """A line no rule can match (:mod:`prune`): all its row would have changed, but the row.

        Its timestamp is read only if a later row needs the anchor (``_settle_anchor``): most
        of a log is such lines, and reading a stamp costs more than the rest of the line.
        """
        if shape.ts_slice is not None:
            self._stamps.append((shape, text))
        if shape.names_client:
            client, txn = shape.ids(text)
            if client and txn:
                self.txn_by_client[client] = txn
        self.seq += 1
        self._pruned_events += 1
        if shape.family not in self.families:
            self._saw_family(shape.family)

    def _apply_run(self, bulk: Classified, hits: np.ndarray, k0: int, k1: int) -> int:
        """Hits ``k0:k1`` (classified lines, in a row): what ``_single`` does to each, at once.

        Chatter lines change nothing; pruned ones advance the sequence, leave their stamps for
        the anchor and their ids for the client map, in line order.
        """
        pruned = bulk.kinds[k0:k1] == PRUNED
        count = int(np.count_nonzero(pruned))
        if not count:
            return 0
        lines = hits[k0:k1][pruned]
        sids = bulk.shape_ids[k0:k1][pruned]
        self.seq += count
        self._pruned_events += count
        if not bulk.families <= self.families:
            first = np.unique(sids, return_index=True)[1]
            for sid in sids[np.sort(first)].tolist():
                if bulk.shapes[sid].family not in self.families:
                    self._saw_family(bulk.shapes[sid].family)
        line_list, sid_list = lines.tolist(), sids.tolist()
        self._stamps.append(PrunedRun(self._raw, line_list, sid_list, bulk.shapes))
        naming = bulk.names_client[sids]
        if naming.any():
            txn_by_client = self.txn_by_client
            for client, txn in client_ids(bulk.ids, self._raw, lines[naming].tolist(), sids[naming].tolist()):
                if client and txn:
                    txn_by_client[client] = txn
        return count

    def _settle_anchor(self) -> None:
        """The anchor as the deferred stamps would have left it.

        A full date sets the anchor whatever came before, so the last line with one decides;
        only when the last stamps lack a valid date (a time of day, a bad date) are they all
        replayed in order, as they would have been read.
        """
        stamps = self._stamps
        for shape, text in _newest_first(stamps):
            if shape.second is not None:
                time_ms = shape.time_ms(text)
                if time_ms >= 0:
                    self.anchor.last_ms = time_ms
                    break
                continue  # an invalid date in a fixed layout leaves the anchor alone
            stamp = shape.stamp(text)
            if stamp.ms >= 0:
                self.anchor.last_ms = stamp.ms
                break
            for earlier, line in _in_order(stamps):
                time_ms = earlier.time_ms(line)
                if time_ms == -2:
                    self.anchor.resolve(earlier.stamp(line))
                elif time_ms >= 0:
                    self.anchor.last_ms = time_ms
            break
        stamps.clear()

    def _table(self, h: int, head: Head, limit: int, byte_starts: list[int]) -> int:
        """Rows of a tool table starting at header line ``h``; return the end of the table."""
        table = head.fields["table"]
        assert isinstance(table, Table)
        j = h + 1
        rows = 0
        while j < limit:
            row = parse_row(table, self._text(j))
            if row is None:
                break
            self._tool_row(table, row, j, byte_starts)
            rows += 1
            j += 1
        if rows == 0:
            self._tool_row(table, {}, h, byte_starts)  # an empty table is a result too (no hanging transactions)
        return j

    def _tool_row(self, table: Table, row: dict[str, str], j: int, byte_starts: list[int]) -> None:
        values = dict(_TOOL_DEFAULTS)
        values.update(row_fields(table, row) if row else {})
        values.update({
            "file_id": self.ctx.file_id, "line": self.line_no + j, "byte": self.base + byte_starts[j], "lines": 1,
            "seq": self.seq, "source": "tool", "library": table.library, "logger": table.command,
            "message": " ".join(self._text(j).split())[:1000],
        })
        self._add(tuple(values[c] for c in COLUMNS), TOOL)

    def _add(self, row: tuple, family: str) -> None:
        client = row[_CLIENT]
        if client:
            txn = row[_TXN]
            if txn:
                self.txn_by_client[client] = txn
            elif client in self.txn_by_client:
                row = row[:_TXN] + (self.txn_by_client[client],) + row[_TXN + 1:]
            elif self.open_rows is not None:
                self.open_rows.append(self.seq)
        self.sink.row("log_events", row)
        self.seq += 1
        if family not in self.families:
            self._saw_family(family)

    def _saw_family(self, family: str) -> None:
        self.families.add(family)
        self.ctx.saw_kind("log/" + family)
        if family == BROKER:
            self.known_broker = True

    def note_truncated(self) -> None:
        self.ctx.note("long lines cut to 64 KiB")

    def finish(self, name_kind: bool = True) -> None:
        if self.other:
            if self.doc_mode:
                self.ctx.skip("not a log line", self.other)
            else:
                self.ctx.note("other log lines", self.other)
        if name_kind and not self.ctx.report.kinds:
            families = [f for f, _ in self.sample_families.most_common() if f != TOOL]
            self.ctx.saw_kind("log/" + (families[0] if families else TEXT))


#: A free line that names an error (an exception, an UPPER_SNAKE error name, a client's error object).
_ERRORISH = re.compile(
    r"[A-Za-z](?:Exception|Error)\b|\b_?[A-Z]{2,}(?:_[A-Z]{2,})+\b|KafkaError\{|\b(?:Local|Broker|kafka server): [A-Z]"
)
_CLIENT = COLUMNS.index("client_id")
_ERRORS = COLUMNS.index("errors")
_MESSAGE = COLUMNS.index("message")
_TXN = COLUMNS.index("transactional_id")
#: First characters of a stamped line that cannot carry a container prefix.
_PLAIN_FIRST = frozenset("0123456789[%")
#: First characters of a continuation line (a space or a tab: no container prefix starts so).
_INDENTS = (" ", "\t")
#: How an indented line that is a trace's or a traceback's own line starts (never a log line's head).
_NOT_HEADS = ("at ", "...", "Caused by", "Suppressed:", "File \"", "|", "^", "~", "goroutine ", "}", ")", "]", "#")


def _indent(text: str) -> int:
    """How many spaces and tabs start the line."""
    return len(text) - len(text.lstrip(" \t"))


_TOOL_DEFAULTS = {c: ("" if c in ("level", "client_id", "transactional_id", "group_id", "topic", "error", "errors",
                                  "exception", "root_cause", "exceptions", "state_from", "state_to", "txn_state")
                      else -1) for c in COLUMNS}
_TOOL_DEFAULTS["time"] = -1


def _newest_first(stamps: list) -> Iterator[tuple[Shape, str]]:
    for entry in reversed(stamps):
        if entry.__class__ is PrunedRun:
            yield from entry.newest_first()
        else:
            yield entry


def _in_order(stamps: list) -> Iterator[tuple[Shape, str]]:
    for entry in stamps:
        if entry.__class__ is PrunedRun:
            yield from entry.in_order()
        else:
            yield entry


def _line_starts(data: bytes) -> np.ndarray:
    """Byte offset of every line start in ``data`` (which ends with a newline)."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    starts = np.empty(len(ends), dtype=np.int64)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    return starts
