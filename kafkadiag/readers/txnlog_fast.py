"""`__transaction_state` records of a `--transaction-log-decoder` dump, a run of lines at a time.

Such a dump is a batch line and one record line per coordinator state change, hundreds of
thousands of them, and the line parser read them at about 25 MB/s. Here the record lines of a
run are matched by one RE2 pass over the block (through Arrow) and become rows as whole columns;
their batch lines take the data fast path.

The line parser (:mod:`dumplog_parser`, with :func:`txnlog_decode.decode_decoder_text`) stays the
reference: a run is taken here only where each record line has one of the decoder's one-line
shapes, ends without a carriage return, and is followed by a batch line (so no continuation line
can belong to it), and where no batch is a control batch. The text shape of Kafka 2.2 - 4.0 (with
or without the ``transaction_metadata::`` prefix, any partition-set wrapper) is decoded here over
whole columns; the JSON shape of 4.1+ has each key and value decoded by the line parser's own
decoder, only the line framing being read here. Anything else (tombstones, raw bytes, odd ids,
numbers too large for their column) is left to the line parser, line by line. Tested equal, era
by era.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafkadiag.readers.dumplog_fast import BATCH, RECORD, ScannedBlock, fast_line, line_array
from kafkadiag.readers.dumplog_lines import parse_record
from kafkadiag.readers.txnlog_decode import decode_decoder_text, join_partitions, text_shape
from kafkadiag.tables import TXN_RECORDS

#: One text-decoder record line, newline included (a line ending in CR does not match).
_RECORD_LINE = (
    r"^\| offset: (?P<offset>-?\d+) (?P<time_word>CreateTime|LogAppendTime): (?P<time>-?\d+) "
    r"(?P<size_word>keySize|keysize): -?\d+ (?:valueSize|valuesize): -?\d+ sequence: -?\d+ headerKeys: \[\] "
    r"key: (?P<prefix>transaction_metadata::)?transactionalId=(?P<id>[^ \n]*) "
    r"payload: producerId:(?P<pid>-?\d+),producerEpoch:(?P<epoch>-?\d+),state=(?P<state>\w+),"
    r"partitions=(?P<parts>[^\n]*),txnLastUpdateTimestamp=(?P<update>-?\d+),txnTimeoutMs=(?P<timeout>-?\d+)\n$"
)
#: One JSON-decoder record line (4.1+): the framing; the key and value go to the line parser's decoder.
_JSON_RECORD_LINE = (
    r"^\| offset: (?P<offset>-?\d+) (?P<time_word>CreateTime|LogAppendTime): (?P<time>-?\d+) "
    r"(?P<size_word>keySize|keysize): -?\d+ (?:valueSize|valuesize): -?\d+ sequence: -?\d+ headerKeys: \[\] "
    r"key: (?P<key>\{\"type\":\"0\"[^ \n]*\}) payload: (?P<payload>\{[^\n]*\})\n$"
)
#: Fewer pairs than this are not worth a pass: the line parser takes them.
MIN_PAIRS = 8
_INT32 = (-(1 << 31), (1 << 31) - 1)


@dataclass
class TxnRun:
    """Lines ``start..end-1``: batch line, record line, batch line, ... (the last a record line)."""

    start: int
    end: int
    columns: dict[str, np.ndarray]  # TXN_RECORDS values but for the section's own columns


def txn_runs(sb: ScannedBlock, a: int, b: int) -> list[TxnRun]:
    """The runs of lines ``a..b-1`` this module reads, in order (the other lines are the parser's)."""
    cls = sb.cls
    if b - a < 3 or sb.batches is None:
        return []
    lines = np.arange(a, b - 2)
    pair = (cls[a:b - 2] == BATCH) & (cls[a + 1:b - 1] == RECORD) & (cls[a + 2:b] == BATCH)
    if not pair.any():
        return []
    pair &= _plain_batches(sb, lines)
    starts = lines[pair]
    if len(starts) < MIN_PAIRS:
        return []
    lines_of_records = pc.take(line_array(sb.block), pa.array(starts + 1))
    runs: list[TxnRun] = []
    for pattern, decode in ((_RECORD_LINE, _columns), (_JSON_RECORD_LINE, _json_columns)):
        records = pc.extract_regex(lines_of_records, pattern)
        matched = np.asarray(records.is_valid())
        for lo, hi in _consecutive(starts, matched):
            if hi - lo < MIN_PAIRS:
                continue
            columns = decode(records[lo:hi])
            if columns is None:
                continue
            rec_lines = starts[lo:hi] + 1
            runs.append(TxnRun(int(starts[lo]), int(rec_lines[-1]) + 1, {"line": rec_lines, **columns}))
    return sorted(runs, key=lambda run: run.start)


def _plain_batches(sb: ScannedBlock, lines: np.ndarray) -> np.ndarray:
    """Lines that are batch lines of non-control batches with no marker (False elsewhere)."""
    bc = sb.batches
    assert bc is not None
    j = np.searchsorted(sb.batch_idx, lines)
    j = np.minimum(j, len(sb.batch_idx) - 1)
    is_batch_line = sb.batch_idx[j] == lines
    control = np.asarray(bc.values["is_control"])[j] if "is_control" in bc.values else np.zeros(len(j), dtype=bool)
    return is_batch_line & ~control.astype(bool) & (bc.marker_idx[j] < 0)


def _consecutive(starts: np.ndarray, matched: np.ndarray) -> list[tuple[int, int]]:
    """Index ranges of ``starts`` whose pairs follow one another (two lines apart), all matched."""
    if not len(starts):
        return []
    continues = matched & np.r_[False, (np.diff(starts) == 2) & matched[:-1]]  # extends the run before it
    first = matched & ~continues
    last = matched & ~np.r_[continues[1:], False]
    return list(zip(np.flatnonzero(first).tolist(), (np.flatnonzero(last) + 1).tolist()))


def _ints(field: pa.Array, bounds: tuple[int, int] | None = None) -> np.ndarray | None:
    try:
        values = pc.cast(field, pa.int64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        return None  # beyond 64 bits: the line parser counts it as a skip
    if bounds is not None and len(values) and (values.min() < bounds[0] or values.max() > bounds[1]):
        return None
    return values


def _columns(records: pa.StructArray) -> dict[str, np.ndarray] | None:
    """The decoded values of matched record lines, as the line parser would decode them."""
    ints = {name: _ints(records.field(name)) for name in ("offset", "time", "pid", "update", "timeout")}
    epoch = _ints(records.field("epoch"), _INT32)
    if epoch is None or any(v is None for v in ints.values()):
        return None
    parts_text = records.field("parts").dictionary_encode()
    joined = [join_partitions(p.decode("utf-8", "replace")) for p in parts_text.dictionary.to_pylist()]
    index = parts_text.indices.to_numpy(zero_copy_only=False)
    names = np.array([j[0] for j in joined], dtype=object)
    return {
        "offset": ints["offset"], "record_time": ints["time"],
        "transactional_id": _shared_strings(records.field("id"), "utf-8"),
        "producer_id": ints["pid"], "producer_epoch": epoch.astype(np.int32),
        "state": _shared_strings(records.field("state"), "ascii"),
        "partitions": names[index], "last_update_ms": ints["update"], "timeout_ms": ints["timeout"],
        "_layout": _layouts(records),
        "_decoded_shapes": _text_shapes(pc.binary_length(records.field("prefix")).to_numpy(zero_copy_only=False) > 0,
                                        np.array([j[1] for j in joined], dtype=object)[index]),
    }


def _shared_strings(field: pa.Array, encoding: str) -> np.ndarray:
    """The field decoded, one interned ``str`` per distinct value.

    A transactional.id and a state name recur in every record of an id: 700,000 records held
    that many copies of each (about 100 MB), where ~100,000 distinct ids need a tenth of it.
    """
    encoded = field.dictionary_encode()
    words = np.array([sys.intern(w.decode(encoding, "replace")) for w in encoded.dictionary.to_pylist()], dtype=object)
    return words[encoded.indices.to_numpy(zero_copy_only=False)]


def _layouts(records: pa.StructArray) -> np.ndarray:
    """What a record line's own era evidence depends on: its timestamp word and size-word case."""
    return np.array([f"{t}/{w}" for t, w in zip(records.field("time_word").to_pylist(),
                                               records.field("size_word").to_pylist())], dtype=object)


def _text_shapes(prefixed: np.ndarray, wrapper: np.ndarray) -> np.ndarray:
    """The era evidence ``decode_decoder_text`` notes for each text record."""
    out = np.empty(len(prefixed), dtype=object)
    out[:] = [(text_shape(p, w),) for p, w in zip(prefixed.tolist(), wrapper.tolist())]
    return out


def _json_columns(records: pa.StructArray) -> dict[str, np.ndarray] | None:
    """JSON records: each key and value decoded by the line parser's decoder; None if any is not a row."""
    offsets, times = _ints(records.field("offset")), _ints(records.field("time"))
    if offsets is None or times is None:
        return None
    decoded = [decode_decoder_text(k, v) for k, v in zip(records.field("key").to_pylist(), records.field("payload").to_pylist())]
    if any(d.skip or d.values.get("tombstone") for d in decoded):
        return None
    out: dict[str, np.ndarray] = {"offset": offsets, "record_time": times}
    for column in TXN_RECORDS.columns:
        if column.name in _OWN_COLUMNS:
            continue
        values = [d.values.get(column.name, column.default) for d in decoded]
        if column.dtype == "object":
            out[column.name] = np.array(values, dtype=object)
            continue
        if np.dtype(column.dtype).kind in "iu":
            info = np.iinfo(np.dtype(column.dtype))
            if any(not isinstance(v, int) or not info.min <= v <= info.max for v in values):
                return None  # the line parser counts such a row as a skip
        out[column.name] = np.array(values, dtype=column.dtype)
    out["_layout"] = _layouts(records)
    shapes = np.empty(len(decoded), dtype=object)
    shapes[:] = [d.shapes for d in decoded]
    out["_decoded_shapes"] = shapes
    return out


#: The columns a run's rows take from the section and the record line, not from the decoder.
_OWN_COLUMNS = frozenset({"file_id", "line", "byte", "log_partition", "offset", "record_time"})


def emit_run(parser, block, run: TxnRun, eras) -> None:  # noqa: ANN001 - the dump parser and its block
    """The run's record rows to the sink, in line order, with their era evidence."""
    cols = run.columns
    n = len(cols["line"])
    file_id, _topic, _partition, _segment = parser.batch_context()
    # Era evidence in the order the line parser notes it: a record line's own shapes, then its
    # decoded shape, at the first line of each kind.
    kinds = np.array([f"{layout}|{','.join(shapes)}" for layout, shapes in zip(cols["_layout"], cols["_decoded_shapes"])],
                     dtype=object)
    _unique, first = np.unique(kinds, return_index=True)
    for i in sorted(first.tolist()):
        for shape in parse_record(fast_line(block, int(cols["line"][i]))).shapes:
            eras.add(shape)
        for shape in cols["_decoded_shapes"][i]:
            eras.add(shape)
    values = {
        "file_id": np.full(n, file_id, dtype=np.int32),
        "line": cols["line"] + block.first_line,
        "byte": block.starts[cols["line"]] + block.base_byte,
        "log_partition": np.full(n, parser.txn_partition, dtype=np.int32),
        **{k: v for k, v in cols.items() if not k.startswith("_") and k != "line"},
    }
    out = {}
    for column in TXN_RECORDS.columns:
        if column.name in values:
            out[column.name] = np.asarray(values[column.name], dtype=object if column.dtype == "object" else column.dtype)
        else:
            out[column.name] = np.full(n, column.default, dtype=object if column.dtype == "object" else column.dtype)
    parser.sink.columns(TXN_RECORDS.name, out)
