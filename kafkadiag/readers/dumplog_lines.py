"""Parse single `kafka-dump-log.sh` lines of a `.log` dump: batch lines and record lines.

Fields are read as ``name: value`` token pairs rather than by position, so every era's field
order, elided lines (``offset: 0 ... producerId: 0 ...``) and missing fields all parse with one
routine. Keys and payloads are raw bytes that may contain anything, so a record line is split
into its metadata part and its content part before the metadata is tokenised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BATCH_PREFIX = b"baseOffset: "
PIPE_RECORD_PREFIX = b"| offset: "

#: Lines that end a multi-line payload: anything starting like a batch, record or header line.
TERMINATING_PREFIXES = (
    b"baseOffset: ",
    b"| offset: ",
    b"offset: ",
    b"| key: ",
    b"| payload: ",
    b" payload: ",
    b"Dumping ",
    b"Starting offset: ",
    b"Log starting offset: ",
    b"Found ",
    b"Non-consecutive offsets in",
    b"Exception in thread ",
    b"Ignoring unknown file ",
)

TS_TYPES = {b"CreateTime": "CreateTime", b"LogAppendTime": "LogAppendTime", b"NoTimestampType": "NoTimestampType"}

_CODECS = {
    b"NONE": "none",
    b"GZIP": "gzip",
    b"SNAPPY": "snappy",
    b"LZ4": "lz4",
    b"ZSTD": "zstd",
    b"NoCompressionCodec": "none",
    b"GZIPCompressionCodec": "gzip",
    b"SnappyCompressionCodec": "snappy",
    b"LZ4CompressionCodec": "lz4",
    b"ZStdCompressionCodec": "zstd",
}
_SCALA_CODECS = {b"NoCompressionCodec", b"GZIPCompressionCodec", b"SnappyCompressionCodec", b"LZ4CompressionCodec", b"ZStdCompressionCodec"}

_CONTENT = re.compile(
    rb" (?:(key|payload|endTxnMarker|controlType|LeaderChange): |(SnapshotHeader|SnapshotFooter|KRaftVersion|KRaftVoters) )"
)
END_TXN_PATTERN = rb"endTxnMarker: ([^ \t\n\r\f\v]+) coordinatorEpoch: (-?[0-9]+)"
_END_TXN = re.compile(END_TXN_PATTERN)
_CONTROL_TYPE = re.compile(rb"controlType: ([A-Za-z_]+)\((-?\d+)\)")
_KRAFT_SHAPES = {
    "SnapshotHeader": "kraft-snapshot-record",
    "SnapshotFooter": "kraft-snapshot-record",
    "KRaftVersion": "kraft-version-record",
    "KRaftVoters": "kraft-version-record",
}


def is_terminating(line: bytes) -> bool:
    """True when a line would end a payload that spans several physical lines."""
    return line.startswith(TERMINATING_PREFIXES)


def has_content(line: bytes) -> bool:
    """A record line with a key or payload; the lines after it may continue that content."""
    return b" key: " in line or b" payload: " in line


def to_int(value: bytes | None, default: int | None = -1) -> int:
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        return default
    return number if -(1 << 63) <= number < (1 << 63) else default


def to_bool(value: bytes | None, default: bool) -> bool:
    if value == b"true":
        return True
    if value == b"false":
        return False
    return default


def codec_name(value: bytes | None) -> tuple[str, str | None]:
    """Lower-case codec name and the era shape its spelling implies."""
    if value is None:
        return "", None
    name = _CODECS.get(value)
    if name is not None:
        return name, "codec-scala-names" if value in _SCALA_CODECS else "codec-upper"
    text = value.decode("utf-8", "replace")
    return text.lower(), "codec-lower" if text.islower() else None


def pairs(tokens: list[bytes]) -> tuple[dict[bytes, bytes], bool]:
    """``name: value`` pairs of a token list, and whether every token belonged to a pair."""
    names = tokens[0::2]
    if len(tokens) % 2 == 0 and all(len(t) > 1 and t[-1] == 58 for t in names):  # the usual, clean line
        return {name[:-1]: value for name, value in zip(names, tokens[1::2])}, True
    out: dict[bytes, bytes] = {}
    clean = True
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if i + 1 < n and len(tok) > 1 and tok[-1] == 58:  # ':'
            out[tok[:-1]] = tokens[i + 1]
            i += 2
        else:
            clean = False
            i += 1
    return out, clean


def timestamp_of(fields: dict[bytes, bytes]) -> tuple[int, str]:
    for name, label in TS_TYPES.items():
        if name in fields:
            return to_int(fields[name]), label
    return -1, ""


@dataclass(slots=True)
class BatchLine:
    """Fields of one batch line (or legacy shallow message line)."""

    base_offset: int
    last_offset: int
    count: int
    base_sequence: int
    last_sequence: int
    producer_id: int
    producer_epoch: int
    partition_leader_epoch: int
    is_transactional: bool
    is_control: bool
    timestamp: int
    timestamp_type: str
    position: int
    size: int
    magic: int
    codec: str
    is_valid: bool
    shapes: tuple[str, ...]


def control_inferred(is_control: bool | None, is_transactional: bool, base_sequence: int) -> bool:
    """Control bit; before 2.0.1 it is not printed, and only markers are transactional with no sequence."""
    if is_control is not None:
        return is_control
    return is_transactional and base_sequence == -1


def parse_batch(line: bytes) -> BatchLine | None:
    """A v2 batch line of any era (``baseOffset: ...``)."""
    fields, clean = pairs(line.split(b" "))
    base = to_int(fields.get(b"baseOffset"), None)  # type: ignore[arg-type]
    if base is None:
        return None
    ts, ts_type = timestamp_of(fields)
    codec, codec_shape = codec_name(fields.get(b"compresscodec"))
    is_txn = to_bool(fields.get(b"isTransactional"), False)
    base_seq = to_int(fields.get(b"baseSequence"))
    raw_control = fields.get(b"isControl")
    is_control = control_inferred(None if raw_control is None else to_bool(raw_control, False), is_txn, base_seq)
    shapes: list[str] = []
    if codec_shape:
        shapes.append(codec_shape)
    if b"deleteHorizonMs" in fields:
        shapes.append("delete-horizon")
    if clean and b"isvalid" in fields and b"size" in fields:
        keys = list(fields)
        if keys.index(b"isvalid") > keys.index(b"size"):
            shapes.append("batch-isvalid-last" if b"deleteHorizonMs" in fields else "batch-isvalid-last-no-horizon")
        elif b"count" not in fields:
            shapes.append("batch-no-count")
        elif raw_control is None:
            shapes.append("batch-count-no-control")
        else:
            shapes.append("batch-control-isvalid-mid")
    return BatchLine(
        base_offset=base,
        last_offset=to_int(fields.get(b"lastOffset"), base),
        count=to_int(fields.get(b"count")),
        base_sequence=base_seq,
        last_sequence=to_int(fields.get(b"lastSequence")),
        producer_id=to_int(fields.get(b"producerId")),
        producer_epoch=to_int(fields.get(b"producerEpoch")),
        partition_leader_epoch=to_int(fields.get(b"partitionLeaderEpoch")),
        is_transactional=is_txn,
        is_control=is_control,
        timestamp=ts,
        timestamp_type=ts_type,
        position=to_int(fields.get(b"position")),
        size=to_int(fields.get(b"size")),
        magic=to_int(fields.get(b"magic")),
        codec=codec,
        is_valid=to_bool(fields.get(b"isvalid"), True),
        shapes=tuple(shapes),
    )


def parse_legacy_shallow(fields: dict[bytes, bytes], clean: bool) -> BatchLine:
    """A magic 0/1 shallow line: ``offset: O position: P <TS>: T ... size: S magic: M ...``."""
    offset = to_int(fields.get(b"offset"))
    ts, ts_type = timestamp_of(fields)
    codec, codec_shape = codec_name(fields.get(b"compresscodec"))
    shapes: list[str] = [codec_shape] if codec_shape else []
    if clean and b"isvalid" in fields:
        keys = list(fields)
        shapes.append("legacy-shallow-isvalid-last" if keys.index(b"isvalid") > keys.index(b"size") else "legacy-shallow-isvalid-mid")
    return BatchLine(
        base_offset=offset,
        last_offset=offset,
        count=-1,
        base_sequence=-1,
        last_sequence=-1,
        producer_id=-1,
        producer_epoch=-1,
        partition_leader_epoch=-1,
        is_transactional=False,
        is_control=False,
        timestamp=ts,
        timestamp_type=ts_type,
        position=to_int(fields.get(b"position")),
        size=to_int(fields.get(b"size")),
        magic=to_int(fields.get(b"magic")),
        codec=codec,
        is_valid=to_bool(fields.get(b"isvalid"), True),
        shapes=tuple(shapes),
    )


def end_txn_marker(text: bytes, pos: int = 0, endpos: int | None = None) -> tuple[str, int, None] | None:
    """``endTxnMarker: COMMIT coordinatorEpoch: 7`` within ``text[pos:endpos]``."""
    m = _END_TXN.search(text, pos, len(text) if endpos is None else endpos)
    if m is None:
        return None
    return m.group(1).decode("ascii", "replace"), to_int(m.group(2)), None


def control_of(text: bytes) -> tuple[str, int, str | None] | None:
    """Control record text on a record line: (marker name, coordinator epoch, era shape)."""
    if b"endTxnMarker: " in text:
        found = end_txn_marker(text)
        if found is not None:
            return found
    if b"controlType: " in text:
        m = _CONTROL_TYPE.search(text)
        if m:
            name = m.group(1).decode("ascii")
            if name == "UNKNOWN":
                name = f"UNKNOWN({int(m.group(2))})"
            return name, -1, None
    if b" LeaderChange: " in text:
        return "LeaderChange", -1, "leader-change"
    for name, shape in _KRAFT_SHAPES.items():
        if b" " + name.encode() + b" " in text:
            return name, -1, shape
    return None


@dataclass(slots=True)
class RecordLine:
    """Fields of one record (deep-iteration) line, any era."""

    offset: int
    timestamp: int
    timestamp_type: str
    key_size: int
    value_size: int
    sequence: int
    producer_id: int
    producer_epoch: int
    is_transactional: bool | None  # None: not printed
    position: int
    magic: int
    codec: str
    is_valid: bool
    control: tuple[str, int, str | None] | None
    key: bytes | None
    payload: bytes | None
    shapes: tuple[str, ...]


def split_content(line: bytes) -> tuple[bytes, bytes | None, bytes | None, tuple[str, int, str | None] | None]:
    """Split a record line into metadata, key, payload and control text."""
    m = _CONTENT.search(line)
    if m is None:
        return line, None, None, None
    meta = line[: m.start()]
    word = m.group(1)
    if word == b"key":
        start = m.end()
        cut = line.find(b" payload: ", start)
        if cut < 0:
            return meta, line[start:], None, None
        return meta, line[start:cut], line[cut + 10 :], None
    if word == b"payload":
        return meta, None, line[m.end() :], None
    return meta, None, None, control_of(line[m.start() :])


def parse_record(line: bytes) -> RecordLine:
    """A record line: ``| offset: ...`` (2.2+), ``offset: ...`` (0.10-2.1), or a skip-metadata line."""
    meta, key, payload, control = split_content(line)
    body = meta[2:] if meta.startswith(b"| ") else meta
    fields, clean = pairs(body.split(b" ")) if body.strip() else ({}, True)
    return record_from_parts(line, body, key, payload, control, fields, clean)


def record_from_parts(
    line: bytes,
    meta: bytes,
    key: bytes | None,
    payload: bytes | None,
    control: tuple[str, int, str | None] | None,
    fields: dict[bytes, bytes],
    clean: bool,
) -> RecordLine:
    """Build a record from an already split line (metadata without the ``| `` prefix)."""
    shapes: list[str] = []
    ts, ts_type = timestamp_of(fields)
    codec_raw = fields.get(b"compresscodec", fields.get(b"compressType"))
    codec, codec_shape = codec_name(codec_raw)
    if codec_shape:
        shapes.append(codec_shape)
    if control is not None and control[2]:
        shapes.append(control[2])
    if b"valueSize" in fields:
        key_size = to_int(fields.get(b"keySize"))
        value_size = to_int(fields[b"valueSize"])
    else:
        key_size = to_int(fields.get(b"keysize"))
        value_size = to_int(fields.get(b"valuesize", fields.get(b"payloadsize")))
    is_valid = to_bool(fields.get(b"isvalid", fields.get(b"isValid")), True)
    if b"isValid" in fields and b"isvalid" in fields:  # 2.8 legacy: record CRC check is the second one
        is_valid = to_bool(fields[b"isvalid"], True) and to_bool(fields[b"isValid"], True)
    raw_txn = fields.get(b"isTransactional")
    return RecordLine(
        offset=to_int(fields.get(b"offset")),
        timestamp=ts,
        timestamp_type=ts_type,
        key_size=key_size,
        value_size=value_size,
        sequence=to_int(fields.get(b"sequence")),
        producer_id=to_int(fields.get(b"producerId")),
        producer_epoch=to_int(fields.get(b"producerEpoch")),
        is_transactional=None if raw_txn is None else to_bool(raw_txn, False),
        position=to_int(fields.get(b"position")),
        magic=to_int(fields.get(b"magic")),
        codec=codec,
        is_valid=is_valid,
        control=control,
        key=key,
        payload=payload,
        shapes=tuple(shapes) + _record_shapes(line, fields, clean, meta),
    )


def _record_shapes(line: bytes, fields: dict[bytes, bytes], clean: bool, meta: bytes) -> tuple[str, ...]:
    if line.startswith(b"| offset: "):
        if b"batchSize" in fields:
            return ("pipe-record-superset",)
        if b"keySize" in fields:
            if meta.endswith(b"}"):
                return ("pipe-record-camel", "legacy-record-brace")
            if b"isValid" in fields and b"crc" in fields:
                return ("pipe-record-camel", "legacy-record-no-brace")
            return ("pipe-record-camel",)
        if b"keysize" in fields:
            return ("pipe-record-lower",)
        return ()
    if line.startswith(b"offset: "):
        if b"payloadsize" in fields:
            return ("message-payloadsize",)
        if b"producerId" in fields and clean:
            return ("deep-record", "deep-record-epoch" if b"producerEpoch" in fields else "deep-record-no-epoch")
        if b"producerEpoch" in fields:
            return ("deep-record", "deep-record-epoch")
        if b"keysize" in fields or b"producerId" in fields:
            return ("deep-record",)
        return ()
    if line.startswith(b"| key: "):
        return ("skip-metadata-key",)
    if line.startswith(b"| payload: "):
        return ("skip-metadata-pipe-payload",)
    if line.startswith(b" payload: "):
        return ("skip-metadata-space-payload",)
    return ()
