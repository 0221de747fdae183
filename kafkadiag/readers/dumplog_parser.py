"""The line-by-line parser of `kafka-dump-log.sh` text: every shape, every era, with state.

This is the reference reader. It handles headers, batch and record lines of every era,
multi-line payloads, control markers, `__transaction_state` records, companion-file dumps and
the tool's warnings. The vectorised fast path (``dumplog_fast``) only takes over stretches of
plain batch/record lines and must produce exactly the rows this parser would.

State that crosses lines: the current file section (from ``Dumping``), a control batch waiting
for its marker line, a group of 0.11-2.1 record lines forming one batch, and a record whose
content may continue on following lines.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from kafkadiag.readers.base import ReadContext
from kafkadiag.readers.blocks import LINE_CAP
from kafkadiag.readers.dumplog_lines import (
    BATCH_PREFIX,
    PIPE_RECORD_PREFIX,
    TERMINATING_PREFIXES,
    RecordLine,
    control_of,
    has_content,
    pairs,
    parse_batch,
    parse_record,
    parse_legacy_shallow,
    record_from_parts,
    split_content,
    to_int,
)
from kafkadiag.readers.eras import EraTracker
from kafkadiag.readers.sink import Sink
from kafkadiag.readers.snapshot_lines import is_index_entry, parse_snapshot, parse_txnindex
from kafkadiag.readers import txnlog_decode as txn
from kafkadiag.tables import ABORTED_TXNS, BATCHES, SNAPSHOT_ENTRIES, TXN_RECORDS, TXN_TOPIC


_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)(?:\.[0-9A-Za-z]+-(?:delete|future|stray))?$")
_FILE_NAME_TP = re.compile(r"^(?P<topic>[A-Za-z0-9._-]*[A-Za-z_][A-Za-z0-9._-]*?)-(?P<partition>\d{1,6})(?:[._].*)?$")
_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}")  # dump-2024-01-05.txt names a day, not a partition
_SEGMENT_NAME = re.compile(r"^(\d+)\.")
_FOLLOWED = re.compile(rb"^\s+(-?\d+) is followed by -?\d+\s*$")
_STACK = re.compile(rb"^(?:\s+at \S|\s+\.\.\. \d+ more|Caused by: |Suppressed: |\s+Suppressed: |[\w$.]+(?:Exception|Error)(?::|$))")
_SECTION_KINDS = {
    "snapshot": "dump-log/snapshot",
    "txnindex": "dump-log/txnindex",
    "index": "dump-log/index",
    "timeindex": "dump-log/index",
}
_RECOGNISED_PREFIXES = (
    b"Mismatches in :",
    b"  Index offset: ",
    b"  Index timestamp: ",
    b"The following indexed offsets are not found in the log.",
    b"Indexed offset: ",
    b"Found timestamp mismatch in :",
    b"Found out of order timestamp in :",
    b"KRaft bootstrap snapshot",
    b"Snapshot end offset: ",
    b"kafka.serializer.",
    b"org.apache.kafka.tools.api.",
)
_SNAPSHOT_ERRORS = (b"Snapshot file '", b"Snapshot is corrupt", b"Snapshot contained an unknown file version", b"Snapshot failed schema validation")
_COMMAND_FILES = re.compile(rb"--files[ =]+(\S+)")  # a pasted `kafka-dump-log.sh --files X` command
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 13))


def topic_partition(text: str) -> tuple[str, int] | None:
    """``orders-3`` -> ("orders", 3)."""
    m = _PARTITION_DIR.match(text)
    return (m.group("topic"), int(m.group("partition"))) if m else None


def fallback_topic_partition(ctx: ReadContext) -> tuple[str, int]:
    """Topic-partition from ``--partition`` or, failing that, a file name like ``orders-3.txt``."""
    if ctx.options.partition:
        tp = topic_partition(ctx.options.partition.strip())
        if tp:
            return tp
    name = os.path.basename(ctx.path.replace("\\", "/"))
    m = _FILE_NAME_TP.match(name)
    if m and not _DATE_LIKE.search(name):
        return m.group("topic"), int(m.group("partition"))
    return "", -1


@dataclass
class _Pending:
    """A record whose key/payload may continue on the next lines."""

    record: RecordLine | None  # None: a data record, content not needed
    line: int = -1
    byte: int = -1
    mode: str = ""  # "decoder" or "raw"
    extra: list[bytes] = field(default_factory=list)  # continuation lines, raw (CR kept)
    cr: bool = False  # the record's own line ended with CR
    kept: int = 0  # bytes of continuation kept (capped: content needed is small)


@dataclass
class _Group:
    """Consecutive 0.11-2.1 deep record lines of one batch (same position)."""

    first: RecordLine
    line: int
    byte: int
    last: RecordLine
    max_ts: int
    valid: bool


@dataclass(frozen=True)
class SectionState:
    """The file section a line belongs to, as the ``Dumping`` line (or content) set it."""

    topic: str
    partition: int
    segment: int
    section: str
    section_txn: bool | None


class DumpParser:
    """Feeds lines, keeps the cross-line state, appends rows to the sink."""

    def __init__(self, ctx: ReadContext, sink: Sink, eras: EraTracker) -> None:
        self.ctx = ctx
        self.sink = sink
        self.eras = eras
        self.file_id = ctx.file_id
        self.fallback = fallback_topic_partition(ctx)
        self.topic, self.partition = self.fallback
        self.segment = -1
        self.snapshot_offset = -1
        self.section = ""
        self.section_txn: bool | None = None
        self._data_kind_pending = False
        self.await_marker: list | None = None
        self.group: _Group | None = None
        self.pending: _Pending | None = None
        self.pipe_shape_budget = 64
        self._reset_section_txn()

    # -- section state -------------------------------------------------------------------

    def section_state(self) -> SectionState:
        """Where the parser is: enough to resume reading at a later batch line of the same section."""
        return SectionState(self.topic, self.partition, self.segment, self.section, self.section_txn)

    def resume(self, state: SectionState) -> None:
        """Continue a section that began before this reader's first line (reading one range of a file)."""
        self.topic, self.partition, self.segment = state.topic, state.partition, state.segment
        self.section, self.section_txn = state.section, state.section_txn

    def _reset_section_txn(self) -> None:
        self.section_txn = (self.topic == TXN_TOPIC) if self.topic else None

    @property
    def txn_partition(self) -> int:
        return self.partition if self.topic in (TXN_TOPIC, "") else -1

    def decide_txn(self, is_txn: bool) -> None:
        if self.section_txn is None:
            self.section_txn = is_txn
            if self._data_kind_pending:
                self._data_kind_pending = False
                self.ctx.saw_kind("dump-log/transaction-state" if is_txn else "dump-log/data")

    def saw_batch(self) -> None:
        if self.section_txn is None:
            self._data_kind_pending = True
        else:
            self.ctx.saw_kind("dump-log/transaction-state" if self.section_txn else "dump-log/data")

    def close_section(self) -> None:
        self.flush()
        if self._data_kind_pending:
            self._data_kind_pending = False
            self.ctx.saw_kind("dump-log/data")

    def flush(self) -> None:
        """Finish everything that waits for a following line."""
        if self.await_marker is not None:
            self._emit_batch(self.await_marker)
            self.await_marker = None
        if self.pending is not None:
            self._finish_pending()
        if self.group is not None:
            self._finish_group()

    # -- entry point ---------------------------------------------------------------------

    def feed(self, raw: bytes, line_no: int, byte: int, truncated: bool = False) -> None:
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if self.await_marker is not None:
            row = self.await_marker
            self.await_marker = None
            if line.startswith(PIPE_RECORD_PREFIX):
                ctl = control_of(line)
                if ctl is not None:
                    row[self._MARKER] = ctl[0]
                    row[self._COORD] = ctl[1]
                    row[self._MARKER_LINE] = line_no
                    row[self._MARKER_BYTE] = byte
                    if ctl[2]:
                        self.eras.add(ctl[2])
            self._emit_batch(row)
        if self.pending is not None:
            if not line.startswith(TERMINATING_PREFIXES):
                pending = self.pending
                if pending.record is not None and pending.kept < LINE_CAP:
                    pending.extra.append(raw)
                    pending.kept += len(raw) + 1
                return
            self._finish_pending()
        if line.startswith(BATCH_PREFIX):
            if self.group is not None:
                self._finish_group()
            self._batch(line, line_no, byte)
        elif line.startswith(PIPE_RECORD_PREFIX):
            if self.group is not None:
                self._finish_group()
            self._pipe_record(line, line_no, byte, raw)
        elif line.startswith(b"offset: "):
            self._offset_line(line, line_no, byte, raw)
        else:
            if self.group is not None:
                self._finish_group()
            self._other(line, line_no, byte, raw, truncated)

    # -- batches -------------------------------------------------------------------------

    _MARKER_LINE = BATCHES.names.index("marker_line")
    _MARKER_BYTE = BATCHES.names.index("marker_byte")
    _MARKER = BATCHES.names.index("marker")
    _COORD = BATCHES.names.index("coordinator_epoch")

    def _batch_row(self, line_no: int, byte: int, b) -> list:
        return [
            self.file_id, line_no, byte, -1, -1, self.topic, self.partition, self.segment,
            b.base_offset, b.last_offset, b.count, b.base_sequence, b.last_sequence, b.producer_id,
            b.producer_epoch, b.partition_leader_epoch, b.is_transactional, b.is_control,
            "UNKNOWN" if b.is_control else "", -1, b.timestamp, b.timestamp_type, b.position,
            b.size, b.magic, b.codec, b.is_valid,
        ]

    def _emit_batch(self, row: list) -> None:
        self.sink.row(BATCHES.name, tuple(row))

    def _batch(self, line: bytes, line_no: int, byte: int) -> None:
        b = parse_batch(line)
        if b is None:
            self.ctx.skip("unparsable batch line")
            return
        for shape in b.shapes:
            self.eras.add(shape)
        self.saw_batch()
        row = self._batch_row(line_no, byte, b)
        if b.is_control:
            self.await_marker = row
        else:
            self._emit_batch(row)

    # -- records -------------------------------------------------------------------------

    def _content_record(self, line: bytes, line_no: int, byte: int, raw: bytes, record: RecordLine | None) -> None:
        """A record with key/payload: decide whether it is a transaction-log record."""
        if self.section_txn is False:
            self.pending = _Pending(None)
            return
        if record is None:
            record = parse_record(line)
            self._record_shapes(record)
        mode = ""
        if record.key is not None and txn.is_txn_key(record.key):
            mode = "decoder"
        elif record.key is not None and txn.raw_key_id(record.key, record.key_size) is not None:
            mode = "raw"
        if mode:
            self.decide_txn(True)
            self.ctx.saw_kind("dump-log/transaction-state")
            self.pending = _Pending(record, line_no, byte, mode, cr=raw.endswith(b"\r"))
            return
        if self.section_txn:
            self.ctx.skip("unrecognised transaction record")
        else:
            self.decide_txn(False)
        self.pending = _Pending(None)

    def _record_shapes(self, record: RecordLine) -> None:
        for shape in record.shapes:
            self.eras.add(shape)

    def _pipe_record(self, line: bytes, line_no: int, byte: int, raw: bytes) -> None:
        record = None
        if self.pipe_shape_budget > 0:
            self.pipe_shape_budget -= 1
            record = parse_record(line)
            self._record_shapes(record)
        if has_content(line):
            self._content_record(line, line_no, byte, raw, record)

    def _offset_line(self, line: bytes, line_no: int, byte: int, raw: bytes) -> None:
        tokens = line.split(b" ")
        if is_index_entry(tokens):
            if self.group is not None:
                self._finish_group()
            self.ctx.saw_kind("dump-log/index")
            return
        meta, key, payload, control = split_content(line)
        fields, clean = pairs(meta.split(b" "))
        if b"size" in fields and not (fields.keys() & {b"keysize", b"valuesize", b"payloadsize", b"keySize"}):
            if self.group is not None:
                self._finish_group()
            b = parse_legacy_shallow(fields, clean)
            for shape in b.shapes:
                self.eras.add(shape)
            self.saw_batch()
            self._emit_batch(self._batch_row(line_no, byte, b))
            return
        record = record_from_parts(line, meta, key, payload, control, fields, clean)
        self._record_shapes(record)
        self._add_to_group(record, line_no, byte)
        if key is not None or payload is not None:
            self._content_record(line, line_no, byte, raw, record)

    def _add_to_group(self, record: RecordLine, line_no: int, byte: int) -> None:
        g = self.group
        if (
            g is not None
            and record.control is None
            and g.first.control is None
            and record.position >= 0
            and record.position == g.first.position
        ):
            g.last = record
            g.max_ts = max(g.max_ts, record.timestamp)
            g.valid = g.valid and record.is_valid
            return
        if g is not None:
            self._finish_group()
        self.group = _Group(record, line_no, byte, record, record.timestamp, record.is_valid)
        if record.control is not None:
            self._finish_group()

    def _finish_group(self) -> None:
        g = self.group
        self.group = None
        if g is None:
            return
        first, last = g.first, g.last
        ctl = first.control
        is_txn = first.is_transactional
        if is_txn is None:
            is_txn = ctl is not None and ctl[0] in ("COMMIT", "ABORT")
        self.saw_batch()
        self.sink.row(
            BATCHES.name,
            (
                self.file_id, g.line, g.byte, g.line if ctl else -1, g.byte if ctl else -1,
                self.topic, self.partition, self.segment, first.offset, last.offset, -1,
                first.sequence, last.sequence, first.producer_id, first.producer_epoch, -1,
                is_txn, ctl is not None, ctl[0] if ctl else "", ctl[1] if ctl else -1,
                g.max_ts, first.timestamp_type, first.position, -1, first.magic, first.codec, g.valid,
            ),
        )

    def _finish_pending(self) -> None:
        p = self.pending
        self.pending = None
        if p is None or p.record is None:
            return
        rec = p.record
        if p.mode == "decoder":
            payload = rec.payload
            if payload is not None and p.extra:
                payload = b"\n".join([payload] + [x.rstrip(b"\r") for x in p.extra])
            decoded = txn.decode_decoder_text(rec.key or b"", payload)
        else:
            decoded = self._decode_raw(p)
        for shape in decoded.shapes:
            self.eras.add(shape)
        if decoded.skip:
            self.ctx.skip(decoded.skip)
            return
        self._emit_txn(decoded.values, p.line, p.byte, rec.offset, rec.timestamp)

    def _decode_raw(self, p: _Pending) -> txn.TxnDecoded:
        rec = p.record
        assert rec is not None
        payload = rec.payload
        if payload is None or not p.extra:
            return txn.decode_raw(rec.key or b"", payload, rec.key_size, rec.value_size) or txn.TxnDecoded(skip="undecodable transaction key bytes")
        first = payload + (b"\r" if p.cr else b"")
        variants = [
            b"\n".join([first] + p.extra),
            b"\n".join([payload] + [x.rstrip(b"\r") for x in p.extra]),
        ]
        result = None
        for value in variants:
            result = txn.decode_raw(rec.key or b"", value, rec.key_size, rec.value_size)
            if result is not None and not result.skip:
                return result
        return result or txn.TxnDecoded(skip="undecodable transaction key bytes")

    def _emit_txn(self, values: dict, line_no: int, byte: int, offset: int, record_time: int) -> None:
        row = {
            "file_id": self.file_id,
            "line": line_no,
            "byte": byte,
            "log_partition": self.txn_partition,
            "offset": offset,
            "record_time": record_time,
        }
        row.update(values)
        self.sink.row(TXN_RECORDS.name, tuple(row.get(c.name, c.default) for c in TXN_RECORDS.columns))

    # -- everything else -----------------------------------------------------------------

    def _other(self, line: bytes, line_no: int, byte: int, raw: bytes, truncated: bool) -> None:
        if not line.strip():
            return
        if line.startswith(b"Dumping "):
            self._dumping(line[8:].decode("utf-8", "replace").strip())
        elif line.startswith(b"Starting offset: ") or line.startswith(b"Log starting offset: "):
            self.eras.add("log-starting-offset" if line[0:1] == b"L" else "starting-offset")
            value = to_int(line.rsplit(b" ", 1)[-1].strip(), -1)
            if self.segment < 0:
                self.segment = value
        elif line.startswith((b"| key: ", b"| payload: ", b" payload: ")):
            self._skip_metadata_record(line, line_no, byte, raw)
        elif line.startswith(b"producerId: "):
            self._snapshot(line, line_no, byte)
        elif line.startswith(b"version: "):
            self._txnindex(line, line_no, byte)
        elif line.startswith(b"timestamp: ") and is_index_entry(line.split(b" ")):
            self.ctx.saw_kind("dump-log/index")
        elif line.startswith(b"Found ") and b" invalid bytes at the end of " in line:
            self.ctx.note("invalid bytes at end of segment")
        elif line.startswith(b"Non-consecutive offsets in"):
            self.eras.add("non-consecutive-colon" if line.startswith(b"Non-consecutive offsets in :") else "non-consecutive-no-colon")
            self.ctx.note("non-consecutive offsets")
        elif _FOLLOWED.match(line):
            if _FOLLOWED.match(line).group(1) == b"-1":  # type: ignore[union-attr]
                self.eras.add("java-port")
        elif line.startswith(b"Exception in thread ") or _STACK.match(line):
            self.ctx.note("stack trace")
        elif line.startswith(b"Ignoring unknown file "):
            self.ctx.note("ignored unknown file")
        elif line.startswith(_SNAPSHOT_ERRORS):
            self.ctx.note("snapshot error")
        elif line.startswith(_RECOGNISED_PREFIXES):
            pass
        elif line.endswith(b" is empty."):
            self.eras.add("index-empty")
        elif line.endswith(b" passed sanity check."):
            pass
        elif b"kafka-dump-log" in line or b"DumpLogSegments" in line:
            m = _COMMAND_FILES.search(line)
            if m and b"," not in m.group(1):
                self._dumping(m.group(1).decode("utf-8", "replace").strip("'\""))
        elif txn.is_console_line(line):
            self._console(line, line_no, byte)
        else:
            self.ctx.skip(_skip_reason(line, truncated))

    def _dumping(self, path: str) -> None:
        self.close_section()
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        name = parts[-1] if parts else path
        suffix = name.rsplit(".", 1)[-1] if "." in name else ""
        self.section = {"log": "log", "index": "index", "timeindex": "timeindex", "txnindex": "txnindex", "snapshot": "snapshot", "checkpoint": "checkpoint"}.get(suffix, "unknown")
        tp = topic_partition(parts[-2]) if len(parts) >= 2 else None
        self.topic, self.partition = tp if tp else self.fallback
        m = _SEGMENT_NAME.match(name)
        number = int(m.group(1)) if m else -1
        self.segment = number if self.section != "snapshot" else -1
        self.snapshot_offset = number if self.section == "snapshot" else -1
        self._reset_section_txn()
        if self.section in _SECTION_KINDS:
            self.ctx.saw_kind(_SECTION_KINDS[self.section])
        elif self.section == "log" and self.section_txn is not None:
            self.ctx.saw_kind("dump-log/transaction-state" if self.section_txn else "dump-log/data")

    def _skip_metadata_record(self, line: bytes, line_no: int, byte: int, raw: bytes) -> None:
        record = parse_record(line)
        self._record_shapes(record)
        if record.key is not None or record.payload is not None:
            self._content_record(line, line_no, byte, raw, record)

    def _snapshot(self, line: bytes, line_no: int, byte: int) -> None:
        parsed = parse_snapshot(line.rstrip())
        if parsed is None:
            self.ctx.skip("unparsable snapshot line")
            return
        values, shapes = parsed
        for shape in shapes:
            self.eras.add(shape)
        self.ctx.saw_kind("dump-log/snapshot")
        self.sink.row(
            SNAPSHOT_ENTRIES.name,
            (
                self.file_id, line_no, byte, self.topic, self.partition, self.snapshot_offset,
                values["producer_id"], values["producer_epoch"], values["coordinator_epoch"],
                values["current_txn_first_offset"], values["last_timestamp"], values["first_sequence"],
                values["last_sequence"], values["last_offset"],
            ),
        )

    def _txnindex(self, line: bytes, line_no: int, byte: int) -> None:
        values = parse_txnindex(line)
        if values is None:
            self.ctx.skip("unparsable txnindex line")
            return
        self.ctx.saw_kind("dump-log/txnindex")
        self.sink.row(
            ABORTED_TXNS.name,
            (
                self.file_id, line_no, byte, self.topic, self.partition, values["producer_id"],
                values["first_offset"], values["last_offset"], values["last_stable_offset"],
            ),
        )

    def _console(self, line: bytes, line_no: int, byte: int) -> None:
        decoded = txn.decode_console(line)
        if decoded is None:
            self.ctx.skip("unrecognised line")
            return
        if decoded.skip:
            self.ctx.skip(decoded.skip)
            return
        self.ctx.saw_kind("console-consumer/transaction-state")
        self._emit_txn(decoded.values, line_no, byte, -1, -1)

    # -- fast path hand-over ---------------------------------------------------------------

    def batch_context(self) -> tuple[int, str, int, int]:
        return self.file_id, self.topic, self.partition, self.segment

    def expect_continuation(self) -> None:
        """The fast path ended on a data record with content: following odd lines continue it."""
        self.pending = _Pending(None)

    def fast_columns(self, values: dict[str, np.ndarray]) -> None:
        self.sink.columns(BATCHES.name, values)


def _skip_reason(line: bytes, truncated: bool) -> str:
    if truncated:
        return "line too long"
    sample = line[:512]
    odd = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    odd += sample.decode("utf-8", "replace").count("\ufffd")
    if b"\x00" in sample or odd > len(sample) // 8:
        return "binary data"
    return "unrecognised line"
