"""Vectorised reading of 0.11 – 2.1 deep-iteration dumps: one line per record, batches by position.

Before 2.2, ``kafka-dump-log --deep-iteration`` printed no batch line: every record line carries
its producer id, epoch, sequence and transactional flag, and the records of one batch share the
batch's ``position`` (``dump-log-format.md`` §4.1). The line parser regroups them one line at a
time; most public incident dumps are of that era, so it is worth the fast path too.

A block's record lines are checked against the era's whole line shape in one RE2 pass (fixed
metadata fields, header keys without spaces, then key/payload, an end-transaction marker or
nothing). Their metadata, cut before ``headerKeys:``, is parsed as one space-separated table by
Arrow's CSV reader with typed columns, and the batches are regrouped with numpy: a new batch
starts at a control record, after one, or where the position changes, exactly as the line
parser's ``_add_to_group`` decides. Anything else on a line keeps it on the line parser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kafkadiag.readers.blocks import Block
from kafkadiag.readers.dumplog_fast import CSV_PIECE_BYTES, dict_column
from kafkadiag.readers.dumplog_lines import TS_TYPES, codec_name, end_txn_marker

#: Fewer record lines than this in a block: the line parser is as quick.
MIN_RECORDS = 256
_PREFIX = b"offset: "
_LINE = (
    r"^offset: -?\d+ position: -?\d+ (?:CreateTime|LogAppendTime|NoTimestampType): -?\d+ isvalid: (?:true|false) "
    r"keysize: -?\d+ valuesize: -?\d+ magic: \d+ compresscodec: [A-Za-z0-9_]+ producerId: -?\d+ (?:producerEpoch: -?\d+ )?"
    r"sequence: -?\d+ isTransactional: (?:true|false) headerKeys: \[[^ \]\n\r]*\]"
    r"(?: key: | payload: | endTxnMarker: [^ \n\r]+ coordinatorEpoch: -?\d+\n|\n)"
)
_CSV = pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, double_quote=False)


@dataclass
class LegacyColumns:
    """The block's record lines the fast path read (``idx``, in line order) and their values."""

    idx: np.ndarray  # line indices
    run_end: np.ndarray  # per entry of ``idx``: end (exclusive, a line index) of its run of consecutive record lines
    offset: np.ndarray
    position: np.ndarray
    timestamp: np.ndarray
    timestamp_type: np.ndarray  # object
    is_valid: np.ndarray
    magic: np.ndarray
    codec: np.ndarray  # object
    producer_id: np.ndarray
    producer_epoch: np.ndarray
    sequence: np.ndarray
    is_transactional: np.ndarray
    control: np.ndarray  # bool
    marker: np.ndarray  # object: the marker name of a control record, else ""
    coordinator_epoch: np.ndarray
    content: np.ndarray  # bool: a key or payload (the lines after it may continue it)
    shapes: tuple[str, ...]  # era evidence, in the order the line parser would add it

    def rank(self, line: int) -> int:
        return int(np.searchsorted(self.idx, line))


def scan_legacy(block: Block, lines: pa.Array) -> LegacyColumns | None:
    """Parse the block's 0.11 – 2.1 record lines at once; None when there are too few or they differ in shape."""
    data = block.data
    if (pc.sum(pc.starts_with(lines, pattern=_PREFIX.decode())).as_py() or 0) < MIN_RECORDS:
        return None
    fast = np.asarray(pc.match_substring_regex(lines, _LINE), dtype=bool)
    idx = np.flatnonzero(fast)
    if len(idx) < MIN_RECORDS:
        return None
    chosen = lines.take(pa.array(idx.astype(np.int32)))
    starts = block.starts[idx]
    # The checked shape has no ``]`` before the header keys' own: each line's table row ends there.
    cuts = np.asarray(pc.find_substring(chosen, "]")) + 1
    after = starts + cuts
    view = memoryview(data)
    table_text = b"\n".join([view[s:e] for s, e in zip(starts.tolist(), after.tolist())]) + b"\n"
    view.release()
    first = bytes(data[int(starts[0]):int(after[0])]).split(b" ")
    epoch = b"producerEpoch:" in first
    table = _read(table_text, len(first), epoch)
    if table is None or table.num_rows != len(idx):
        return None
    col = lambda i: table.column(f"c{i}").to_numpy()  # noqa: E731
    seq = _sequence_column(epoch)
    # after the ``]``: `` key: ``, `` payload: ``, `` endTxnMarker: `` or the newline
    u8 = np.frombuffer(data, dtype=np.uint8, count=block.size)
    control = u8[np.minimum(after + 1, block.size - 1)] == ord("e")
    content = (u8[after] == ord(" ")) & ~control
    marker = np.full(len(idx), "", dtype=object)
    coordinator = np.full(len(idx), -1, dtype=np.int64)
    for r in np.flatnonzero(control).tolist():
        line = bytes(data[int(starts[r]):int(block.ends[idx[r]])])
        found = end_txn_marker(line, int(cuts[r]))
        if found is None:
            return None
        marker[r], coordinator[r] = found[0], found[1]
    codecs, codec_shapes = _codecs(table.column("c15"))
    labels = _labels(table.column("c4"))
    if codecs is None or labels is None:
        return None
    # as the line parser adds them: the first line's codec spelling, the record shapes, later spellings
    shapes = [*codec_shapes[:1], "deep-record", "deep-record-epoch" if epoch else "deep-record-no-epoch", *codec_shapes[1:]]
    breaks = np.flatnonzero(np.diff(idx) != 1)
    ends = np.append(idx[breaks] + 1, idx[-1] + 1) if len(idx) else idx
    run_end = np.repeat(ends, np.diff(np.concatenate(([0], breaks + 1, [len(idx)]))))
    return LegacyColumns(
        idx=idx, run_end=run_end, offset=col(1), position=col(3), timestamp=col(5), timestamp_type=labels,
        is_valid=col(7).astype(bool, copy=False), magic=col(13), codec=codecs, producer_id=col(17),
        producer_epoch=col(19) if epoch else np.full(len(idx), -1, dtype=np.int64),
        sequence=col(seq), is_transactional=col(seq + 2).astype(bool, copy=False),
        control=control, marker=marker, coordinator_epoch=coordinator,
        content=content, shapes=tuple(dict.fromkeys(shapes)),
    )


def _sequence_column(epoch: bool) -> int:
    """Column of ``sequence``'s value: ``offset: O position: P <ts>: T isvalid: V keysize: K valuesize: S
    magic: M compresscodec: C producerId: I [producerEpoch: E] sequence: Q isTransactional: X``."""
    return 21 if epoch else 19


def _read(text: bytes, ncols: int, epoch: bool) -> pa.Table | None:
    """The metadata table, typed; None when a value does not parse (the block goes line by line)."""
    seq = _sequence_column(epoch)
    ints = [1, 3, 5, 9, 11, 13, 17, seq] + ([19] if epoch else [])
    bools = [7, seq + 2]
    types: dict[str, pa.DataType] = {f"c{i}": pa.int64() for i in ints}
    types.update({f"c{i}": pa.bool_() for i in bools})
    types["c4"] = pa.dictionary(pa.int32(), pa.string())
    types["c15"] = pa.dictionary(pa.int32(), pa.string())
    convert = pacsv.ConvertOptions(column_types=types, include_columns=list(types), null_values=[], true_values=["true"],
                                   false_values=["false"], strings_can_be_null=False, quoted_strings_can_be_null=False)
    read = pacsv.ReadOptions(column_names=[f"c{i}" for i in range(ncols)], block_size=CSV_PIECE_BYTES, use_threads=False)
    try:
        return pacsv.read_csv(pa.BufferReader(text), read_options=read, parse_options=_CSV, convert_options=convert)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _codecs(column: pa.ChunkedArray) -> tuple[np.ndarray | None, list[str]]:
    """Lower-case codec names, and the era shapes of their spellings in order of first appearance."""
    names = dict_column(column, lambda text: codec_name(text.encode())[0])
    if names is None:
        return None, []
    raw = dict_column(column, lambda text: text)
    shapes: dict[str, None] = {}
    if raw is not None and len(raw):
        _, first = np.unique(raw, return_index=True)
        for i in np.sort(first).tolist():
            shape = codec_name(str(raw[i]).encode())[1]
            if shape:
                shapes[shape] = None
    return names, list(shapes)


def _labels(column: pa.ChunkedArray) -> np.ndarray | None:
    return dict_column(column, lambda text: TS_TYPES.get(text[:-1].encode()) if text.endswith(":") else None)
