"""Vectorised reading of the batch lines of a block: the path that makes 1 GB dumps fast.

Within one dump every batch line has the same fields in the same order (the tool prints them
from one format string per release), so a block's batch lines form a space-separated table with
a constant column count. They are gathered into one contiguous buffer (Arrow ``take`` over a
binary array of all lines) and parsed by Arrow's CSV reader with typed columns; blocks are
scanned in parallel threads. Field names are taken from the block's first batch line; the typed
parse is the shape check for the rest: a line with another column count or a field of the wrong
kind fails the parse, and the block then goes through the line parser instead (the only field
orders with equal column counts, 2.0.1-2.1 and 2.2-3.1, differ in the type of two columns).
Record lines are only looked at after control batches (for the marker) and where a line that is
neither batch nor record line appears (to tell payload continuation lines from other text).

The results must equal the line parser's exactly; ``tests/readers/test_readers_fast_path.py``
holds the two to it on generated dumps of several eras.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from kafkadiag.readers.blocks import LINE_CAP, Block
from kafkadiag.readers.dumplog_lines import (
    BATCH_PREFIX,
    END_TXN_PATTERN,
    PIPE_RECORD_PREFIX,
    TS_TYPES,
    codec_name,
    control_of,
    has_content,
    is_terminating,
    to_int,
)

OTHER, BATCH, RECORD = 0, 1, 2
MIN_FAST_BATCHES = 256  # fewer batch lines than this: the line parser is as quick
MAX_BATCH_LINE = 4096
MAX_OTHER_FRACTION = 0.25  # more odd lines than this: the block is not a plain data dump

_INT_FIELDS = {
    b"baseOffset": "base_offset",
    b"lastOffset": "last_offset",
    b"count": "count",
    b"baseSequence": "base_sequence",
    b"lastSequence": "last_sequence",
    b"producerId": "producer_id",
    b"producerEpoch": "producer_epoch",
    b"partitionLeaderEpoch": "partition_leader_epoch",
    b"position": "position",
    b"size": "size",
    b"magic": "magic",
}
_BOOL_FIELDS = {b"isTransactional": "is_transactional", b"isControl": "is_control", b"isvalid": "is_valid"}
_IGNORED_FIELDS = {b"crc", b"deleteHorizonMs"}
_DERIVED_FROM = frozenset({"base_offset", "base_sequence", "is_transactional", "is_control"})
_TS_NAMES = {name + b":" for name in TS_TYPES}


@dataclass
class Layout:
    """Column positions of the fields of one era's batch line."""

    ncols: int
    ints: dict[str, int]
    bools: dict[str, int]
    codec: int | None
    ts_name: int | None
    shapes: tuple[str, ...]
    ts_label: bool = True  # parse the timestamp type name (only needed for ``timestamp_type``)
    codec_shape: str | None = None  # era evidence of the codec spelling on the layout's own line
    names: tuple[str, ...] = ()  # the field name of every even column (``name:``), as the first line has them

    def only(self, wanted: frozenset[str] | None) -> Layout:
        """The layout parsing only ``wanted`` columns and those the fast path derives others from.

        Without ``codec``, the era evidence its spelling gives is taken from the block's first
        batch line (one dump is printed by one tool version, so the spelling never changes).
        """
        if wanted is None:
            return self
        keep = wanted | _DERIVED_FROM
        return replace(
            self,
            codec=self.codec if "codec" in keep else None,
            shapes=self.shapes if "codec" in keep or self.codec_shape is None else self.shapes + (self.codec_shape,),
            ints={k: v for k, v in self.ints.items() if k in keep},
            bools={k: v for k, v in self.bools.items() if k in keep},
            ts_name=self.ts_name if "timestamp" in keep or "timestamp_type" in keep else None,
            ts_label="timestamp_type" in keep,
        )


def layout_of(line: bytes) -> Layout | None:
    """Layout of a clean batch line; None when it has unknown fields, elisions or odd tokens."""
    tokens = line.split(b" ")
    if len(tokens) % 2 or len(tokens) < 4:
        return None
    ints: dict[str, int] = {}
    bools: dict[str, int] = {}
    codec = ts_name = None
    names: list[bytes] = []
    for i in range(0, len(tokens), 2):
        name = tokens[i]
        if len(name) < 2 or not name.endswith(b":"):
            return None
        key = name[:-1]
        if key in names:
            return None
        names.append(key)
        if key in _INT_FIELDS:
            ints[_INT_FIELDS[key]] = i + 1
        elif key in _BOOL_FIELDS:
            bools[_BOOL_FIELDS[key]] = i + 1
        elif key == b"compresscodec":
            codec = i + 1
        elif name in _TS_NAMES:
            if ts_name is not None:
                return None
            ts_name = i
        elif key not in _IGNORED_FIELDS:
            return None
    if "base_offset" not in ints:
        return None
    shapes: list[str] = []
    if b"deleteHorizonMs" in names:
        shapes.append("delete-horizon")
    if b"isvalid" in names and b"size" in names:
        if names.index(b"isvalid") > names.index(b"size"):
            shapes.append("batch-isvalid-last" if b"deleteHorizonMs" in names else "batch-isvalid-last-no-horizon")
        elif b"count" not in names:
            shapes.append("batch-no-count")
        elif b"isControl" not in names:
            shapes.append("batch-count-no-control")
        else:
            shapes.append("batch-control-isvalid-mid")
    codec_shape = codec_name(tokens[codec])[1] if codec is not None else None
    return Layout(len(tokens), ints, bools, codec, ts_name, tuple(shapes), codec_shape=codec_shape,
                  names=tuple(t.decode("latin-1") for t in tokens[0::2]))


@dataclass
class BatchColumns:
    """Parsed values of all batch lines of a block, in line order (schema column names)."""

    values: dict[str, np.ndarray]
    marker: np.ndarray  # object
    coordinator_epoch: np.ndarray
    marker_idx: np.ndarray  # line index of the marker record, -1 none
    shapes: tuple[str, ...]


@dataclass
class ScannedBlock:
    """A block with its lines classified and, when possible, its batch lines parsed."""

    block: Block
    cls: np.ndarray  # uint8 per line: OTHER, BATCH, RECORD
    batch_idx: np.ndarray  # line indices of batch lines
    special: np.ndarray  # line indices of lines the line parser must see
    batches: BatchColumns | None
    record_sample: bytes | None = None  # first record line, for era evidence
    legacy: object = None  # ``dumplog_legacy.LegacyColumns`` of a block of 0.11 - 2.1 record lines


def fast_line(block: Block, i: int) -> bytes:
    """Line i as the line parser sees it (capped at LINE_CAP, CR removed)."""
    start = int(block.starts[i])
    end = int(block.ends[i])
    line = bytes(block.data[start : min(end, start + LINE_CAP)])
    return line[:-1] if line.endswith(b"\r") else line


def _word(prefix: bytes) -> tuple[np.uint64, np.uint64, np.uint64]:
    """A prefix of 9 to 16 bytes as two little-endian words plus the mask of the second."""
    head, tail = np.frombuffer(prefix.ljust(16, b"\0"), dtype="<u8")
    mask = np.uint64((1 << (8 * (len(prefix) - 8))) - 1)
    return head, tail & mask, mask


_BATCH_WORD = _word(BATCH_PREFIX)
_RECORD_WORD = _word(PIPE_RECORD_PREFIX)


def classify(block: Block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line classes by their first bytes: batch line, ``| offset:`` record line, anything else.

    The first 16 bytes of every line are gathered at once and compared as two 64-bit words;
    the few lines too close to the block end for a 16-byte gather are checked one by one.
    """
    size = block.size
    starts = block.starts
    arr = np.frombuffer(block.data, dtype=np.uint8, count=size)
    cls = np.zeros(block.nlines, dtype=np.uint8)
    room = int(np.searchsorted(starts, size - 16, side="right"))
    if room:
        words = arr[starts[:room, None] + np.arange(16)].view("<u8")
        head, tail = words[:, 0], words[:, 1]
        for value, (want_head, want_tail, mask) in ((BATCH, _BATCH_WORD), (RECORD, _RECORD_WORD)):
            hit = head == want_head
            hit &= (tail & mask) == want_tail
            cls[:room][hit] = value
    data = block.data
    for i in range(room, block.nlines):
        line = data[int(starts[i]) : int(block.ends[i])]
        if line.startswith(BATCH_PREFIX):
            cls[i] = BATCH
        elif line.startswith(PIPE_RECORD_PREFIX):
            cls[i] = RECORD
    return cls, np.flatnonzero(cls == BATCH), np.flatnonzero(cls == RECORD)


def _special_lines(block: Block, cls: np.ndarray) -> np.ndarray | None:
    """Lines that are neither batch/record lines nor continuation lines of a payload."""
    other = np.flatnonzero(cls == OTHER)
    if len(other) > MAX_OTHER_FRACTION * max(block.nlines, 1):
        return None
    if not len(other):
        return other
    primary = np.where(cls != OTHER, np.arange(block.nlines), -1)
    prev_primary = np.maximum.accumulate(primary)
    special: list[int] = []
    content: dict[int, bool] = {}
    for i in other.tolist():
        p = int(prev_primary[i])
        if p < 0 or cls[p] != RECORD:
            special.append(i)
            continue
        if p not in content:
            content[p] = has_content(fast_line(block, p))
        if not content[p] or is_terminating(fast_line(block, i)):
            special.append(i)
    return np.array(special, dtype=np.int64)


_CSV_PARSE = pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, double_quote=False)
#: Arrow parses a block's batch lines in pieces of this size. Parsing a whole 4 MB block at once
#: keeps a working set that two cores' parsers together do not fit in the shared cache: on two
#: cores, two processes each parsed at 620-640 MB/s against 790 MB/s alone (1.58x together);
#: in 1 MB pieces, 755-775 MB/s each (1.92x), and as fast alone. The result has one chunk per piece.
CSV_PIECE_BYTES = 1 << 20


def line_array(block: Block) -> pa.BinaryArray:
    """All lines of the block (each with its newline) as one Arrow array over the block buffer."""
    offsets = np.empty(block.nlines + 1, dtype=np.int32)  # blocks are far below 2 GiB
    offsets[:-1] = block.starts
    offsets[-1] = block.ends[-1] + 1
    return pa.Array.from_buffers(pa.binary(), block.nlines, [None, pa.py_buffer(offsets), pa.py_buffer(block.data)])


def _read_table(lines: pa.BinaryArray, block: Block, batch_idx: np.ndarray, layout: Layout) -> pa.Table | None:
    total = int((block.ends[batch_idx] + 1 - block.starts[batch_idx]).sum())
    buf = lines.take(pa.array(batch_idx.astype(np.int32))).buffers()[2].slice(0, total)
    names = [f"c{i}" for i in range(layout.ncols)]
    types: dict[str, pa.DataType] = {}
    for col in layout.ints.values():
        types[f"c{col}"] = pa.int64()
    if layout.ts_name is not None:
        types[f"c{layout.ts_name + 1}"] = pa.int64()
        if layout.ts_label:
            types[f"c{layout.ts_name}"] = pa.dictionary(pa.int32(), pa.string())
    for col in layout.bools.values():
        types[f"c{col}"] = pa.bool_()
    name_columns = [f"c{i}" for i in range(0, layout.ncols, 2) if f"c{i}" not in types]
    for column in name_columns:  # every line must name its fields as the first one does
        types[column] = pa.dictionary(pa.int32(), pa.binary())
    if layout.codec is not None:
        types[f"c{layout.codec}"] = pa.dictionary(pa.int32(), pa.string())
    convert = pacsv.ConvertOptions(
        column_types=types,
        include_columns=list(types),
        null_values=[],
        true_values=["true"],
        false_values=["false"],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    read = pacsv.ReadOptions(column_names=names, block_size=CSV_PIECE_BYTES, use_threads=False)
    try:
        table = pacsv.read_csv(pa.BufferReader(buf), read_options=read, parse_options=_CSV_PARSE, convert_options=convert)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.num_rows != len(batch_idx) or not _names_agree(table, name_columns, layout.names):
        return None
    return table


_TS_LABELS = frozenset(name.decode() + ":" for name in TS_TYPES)


def _names_agree(table: pa.Table, columns: list[str], names: tuple[str, ...]) -> bool:
    """Each name column holds the first line's name only (any timestamp type where it has one)."""
    for column in columns:
        expected = names[int(column[1:]) // 2]
        allowed = _TS_LABELS if expected in _TS_LABELS else {expected}
        for chunk in table.column(column).chunks:
            if not {v.decode("latin-1") for v in chunk.dictionary.to_pylist()} <= allowed:
                return False
    return True


def dict_column(column: pa.ChunkedArray, mapper) -> np.ndarray | None:
    """Map a dictionary-encoded text column through ``mapper`` to an object array."""
    out = np.empty(len(column), dtype=object)
    pos = 0
    for chunk in column.chunks:
        values = [mapper(v) for v in chunk.dictionary.to_pylist()]
        if any(v is None for v in values):
            return None
        lookup = np.array(values + [None], dtype=object)[:-1]
        idx = chunk.indices.to_numpy(zero_copy_only=False)
        out[pos : pos + len(chunk)] = lookup[idx]
        pos += len(chunk)
    return out


def _ts_label(name: str) -> str | None:
    return TS_TYPES.get(name[:-1].encode()) if name.endswith(":") else None


def parse_batches(
    block: Block, cls: np.ndarray, batch_idx: np.ndarray, wanted: frozenset[str] | None = None
) -> BatchColumns | None:
    """Parse every batch line of the block at once; None when they are not one clean table.

    With ``wanted``, columns outside it may be left out of the result.
    """
    if len(batch_idx) < MIN_FAST_BATCHES:
        return None
    if int((block.ends[batch_idx] - block.starts[batch_idx]).max()) > MAX_BATCH_LINE:
        return None
    layout = layout_of(fast_line(block, int(batch_idx[0])))
    if layout is None:
        return None
    layout = layout.only(wanted)
    lines = line_array(block)
    table = _read_table(lines, block, batch_idx, layout)
    if table is None:
        return None
    n = len(batch_idx)
    col = lambda i: table.column(f"c{i}").to_numpy()  # noqa: E731
    values: dict[str, np.ndarray] = {name: col(i) for name, i in layout.ints.items()}
    for name, i in layout.bools.items():
        values[name] = table.column(f"c{i}").to_numpy().astype(bool, copy=False)
    shapes = list(layout.shapes)
    if layout.ts_name is not None:
        if layout.ts_label:
            labels = dict_column(table.column(f"c{layout.ts_name}"), _ts_label)
            if labels is None:
                return None
            values["timestamp_type"] = labels
        values["timestamp"] = col(layout.ts_name + 1)
    else:
        if wanted is None or "timestamp_type" in wanted:
            values["timestamp_type"] = np.full(n, "", dtype=object)
        values["timestamp"] = np.full(n, -1, dtype=np.int64)
    if layout.codec is not None:
        seen: set[str] = set()

        def norm(text: str) -> str:
            name, shape = codec_name(text.encode())
            if shape:
                seen.add(shape)
            return name

        codecs = dict_column(table.column(f"c{layout.codec}"), norm)
        if codecs is None:
            return None
        values["codec"] = codecs
        shapes.extend(sorted(seen))
    elif wanted is None or "codec" in wanted:
        values["codec"] = np.full(n, "", dtype=object)
    base = values["base_offset"]
    if "last_offset" not in values:
        values["last_offset"] = base
    for name in ("count", "base_sequence", "last_sequence", "producer_id", "producer_epoch", "partition_leader_epoch", "position", "size", "magic"):
        if name not in values and (wanted is None or name in wanted or name in _DERIVED_FROM):
            values[name] = np.full(n, -1, dtype=np.int64)
    if "is_transactional" not in values:
        values["is_transactional"] = np.zeros(n, dtype=bool)
    if "is_control" not in values:
        values["is_control"] = values["is_transactional"] & (values["base_sequence"] == -1)
    if "is_valid" not in values and (wanted is None or "is_valid" in wanted):
        values["is_valid"] = np.ones(n, dtype=bool)
    marker, coord, marker_idx = _markers(block, cls, lines, batch_idx, values["is_control"], shapes)
    return BatchColumns(values, marker, coord, marker_idx, tuple(dict.fromkeys(shapes)))


# The line parser's marker pattern, extended to the end of the line so each line matches at most once.
_END_TXN_LINE = re.compile(END_TXN_PATTERN + rb"[^\n]*\n")


def _epochs(texts: list[bytes]) -> np.ndarray | list[int]:
    """Coordinator epochs as integers: numpy converts them at once; out-of-range ones fall back to ``to_int``."""
    try:
        return np.array(texts, dtype=np.bytes_).astype(np.int64)
    except (ValueError, OverflowError):
        return [to_int(epoch) for epoch in texts]


def _markers(
    block: Block, cls: np.ndarray, lines: pa.BinaryArray, batch_idx: np.ndarray, is_control: np.ndarray, shapes: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Marker of each control batch from the record line right after it: one regex pass over those lines."""
    n = len(batch_idx)
    marker = np.full(n, "", dtype=object)
    coord = np.full(n, -1, dtype=np.int64)
    marker_idx = np.full(n, -1, dtype=np.int64)
    ctrl = np.flatnonzero(is_control)
    if not len(ctrl):
        return marker, coord, marker_idx
    marker[ctrl] = "UNKNOWN"
    nxt = batch_idx[ctrl] + 1
    inside = nxt < block.nlines
    ctrl, nxt = ctrl[inside], nxt[inside]
    is_rec = cls[nxt] == RECORD
    ctrl, nxt = ctrl[is_rec], nxt[is_rec]
    if not len(ctrl):
        return marker, coord, marker_idx
    lengths = block.ends[nxt] - block.starts[nxt]
    found: list[tuple[bytes, bytes]] = []
    if int(lengths.max()) <= LINE_CAP:
        total = int(lengths.sum()) + len(nxt)
        text = lines.take(pa.array(nxt.astype(np.int32))).buffers()[2].slice(0, total).to_pybytes()
        found = _END_TXN_LINE.findall(text)  # at most one match per line, so a full count means aligned
    if len(found) == len(nxt):
        labels = {name: name.decode("ascii", "replace") for name in {name for name, _ in found}}
        marker[ctrl] = [labels[name] for name, _ in found]
        coord[ctrl] = _epochs([epoch for _, epoch in found])
        marker_idx[ctrl] = nxt
        return marker, coord, marker_idx
    for r in range(len(nxt)):
        ctl = control_of(fast_line(block, int(nxt[r])))
        if ctl is not None:
            j = int(ctrl[r])
            marker[j] = ctl[0]
            coord[j] = ctl[1]
            marker_idx[j] = nxt[r]
            if ctl[2]:
                shapes.append(ctl[2])
    return marker, coord, marker_idx


def scan_block(block: Block, wanted: frozenset[str] | None = None) -> ScannedBlock:
    """Everything about a block that does not depend on what came before it."""
    cls, batch_idx, record_idx = classify(block)
    special = _special_lines(block, cls)
    batches = None
    if special is not None:
        batches = parse_batches(block, cls, batch_idx, wanted)
    sample = fast_line(block, int(record_idx[0])) if len(record_idx) else None
    return ScannedBlock(
        block=block,
        cls=cls,
        batch_idx=batch_idx,
        special=special if special is not None else np.empty(0, dtype=np.int64),
        batches=batches,
        record_sample=sample,
    )
