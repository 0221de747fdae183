"""Generate `kafka-dump-log.sh` text of a chosen era from the documented format strings.

The shapes follow ``shared/reference/dump-log-format.md`` §2-§4 (built from the format strings,
not copied from any dump). ``Batch`` objects carry the truth so tests can compare parsed rows with
what was written.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# era -> (batch line layout, record line layout, codec case, starting-offset header)
ERAS: dict[str, tuple[str, str, str, str]] = {
    "0.11.0.0": ("v011", "deep-noepoch", "upper", "Starting offset"),
    "1.1": ("v011", "deep", "upper", "Starting offset"),
    "2.0.0": ("v200", "deep", "upper", "Starting offset"),
    "2.1": ("v201", "deep", "upper", "Starting offset"),
    "2.5": ("v22", "pipe-lower", "upper", "Starting offset"),
    "2.8": ("v22", "superset", "upper", "Starting offset"),
    "3.1": ("v22", "reduced", "lower", "Starting offset"),
    "3.6": ("v32", "reduced", "lower", "Log starting offset"),
}
PIPE_ERAS = ("2.5", "2.8", "3.1", "3.6")


@dataclass
class Record:
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    sequence: int


@dataclass
class Batch:
    base_offset: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    transactional: bool
    marker: str  # "" data, COMMIT / ABORT
    coordinator_epoch: int
    position: int
    size: int
    codec: str
    ts_type: str
    leader_epoch: int
    records: list[Record] = field(default_factory=list)

    @property
    def last_offset(self) -> int:
        return self.records[-1].offset

    @property
    def last_sequence(self) -> int:
        return -1 if self.base_sequence < 0 else self.base_sequence + len(self.records) - 1

    @property
    def max_timestamp(self) -> int:
        return max(r.timestamp for r in self.records)


PAYLOADS: list[bytes] = [
    b"hello world",
    b"order 17 shipped key: fake payload: fake",
    b"{\"id\": 5, \"note\": \"a b c\"}",
    "caf\u00e9 \u2713".encode(),
    b"\x01\x02binary\x00\xff\xfe tail",
    b"",
    b"first line\nsecond line",
    b"a\n\nb after blank",
]


def make_batches(n: int, seed: int = 1, newlines: bool = True, binary: bool = True, start: int = 0) -> list[Batch]:
    """A partition's worth of batches: transactions with markers, idempotent and plain batches."""
    rnd = random.Random(seed)
    payloads = [p for p in PAYLOADS if (newlines or b"\n" not in p) and (binary or not any(c < 32 for c in p))]
    out: list[Batch] = []
    offset = start
    position = 0
    ts = 1700000000000
    seqs: dict[int, int] = {}
    open_txn: dict[int, int] = {}
    while len(out) < n:
        kind = rnd.random()
        pid = rnd.choice([4000, 4001, 4002, 5000, -1])
        epoch = {4000: 3, 4001: 0, 4002: 7, 5000: 1, -1: -1}[pid]
        if pid in open_txn and kind < 0.3:
            marker = rnd.choice(["COMMIT", "ABORT"])
            batch = Batch(offset, pid, epoch, -1, True, marker, rnd.randint(0, 40), position, 78, "none", "CreateTime", 5)
            batch.records.append(Record(offset, ts, None, None, -1))
            del open_txn[pid]
        else:
            txn = pid not in (5000, -1)
            if txn:
                open_txn[pid] = offset
            count = rnd.randint(1, 3)
            seq = seqs.get(pid, 0)
            seqs[pid] = seq + count
            codec = rnd.choice(["none", "none", "lz4", "gzip", "zstd"])
            ts_type = "LogAppendTime" if rnd.random() < 0.1 else "CreateTime"
            batch = Batch(offset, pid, epoch, seq if pid >= 0 else -1, txn, "", -1, position, 0, codec, ts_type, rnd.randint(0, 9))
            for i in range(count):
                key = None if rnd.random() < 0.4 else f"k{rnd.randint(0, 99)}".encode()
                value = None if rnd.random() < 0.03 else rnd.choice(payloads)
                batch.records.append(Record(offset + i, ts + i, key, value, seq + i if pid >= 0 else -1))
            batch.size = 70 + sum(len(r.value or b"") + len(r.key or b"") + 10 for r in batch.records)
        out.append(batch)
        offset = batch.last_offset + 1 + (1 if rnd.random() < 0.05 else 0)
        position += batch.size
        ts += rnd.randint(1, 50)
    return out


def _codec(name: str, case: str) -> str:
    return name.upper() if case == "upper" else name


def batch_line(b: Batch, layout: str, case: str) -> str:
    count = len(b.records)
    t = "true" if b.transactional else "false"
    c = "true" if b.marker else "false"
    ts = f"{b.ts_type}: {b.max_timestamp}"
    head = f"baseOffset: {b.base_offset} lastOffset: {b.last_offset}"
    seqs = (
        f"baseSequence: {b.base_sequence} lastSequence: {b.last_sequence} producerId: {b.producer_id} "
        f"producerEpoch: {b.producer_epoch} partitionLeaderEpoch: {b.leader_epoch}"
    )
    crc = 1000000 + b.base_offset
    codec = _codec(b.codec, case)
    if layout == "v011":
        return f"{head} {seqs} isTransactional: {t} position: {b.position} {ts} isvalid: true size: {b.size} magic: 2 compresscodec: {codec} crc: {crc}"
    if layout == "v200":
        return f"{head} count: {count} {seqs} isTransactional: {t} position: {b.position} {ts} isvalid: true size: {b.size} magic: 2 compresscodec: {codec} crc: {crc}"
    if layout == "v201":
        return f"{head} count: {count} {seqs} isTransactional: {t} isControl: {c} position: {b.position} {ts} isvalid: true size: {b.size} magic: 2 compresscodec: {codec} crc: {crc}"
    horizon = " deleteHorizonMs: OptionalLong.empty" if layout == "v32" else ""
    return (
        f"{head} count: {count} {seqs} isTransactional: {t} isControl: {c}{horizon} position: {b.position} {ts} "
        f"size: {b.size} magic: 2 compresscodec: {codec} crc: {crc} isvalid: true"
    )


def _content(b: Batch, r: Record) -> bytes:
    if b.marker:
        return f" endTxnMarker: {b.marker} coordinatorEpoch: {b.coordinator_epoch}".encode()
    out = b""
    if r.key is not None:
        out += b" key: " + r.key
    if r.value is not None:
        out += b" payload: " + r.value
    return out


def _sizes(b: Batch, r: Record) -> tuple[int, int]:
    if b.marker:
        return 4, 6
    return (len(r.key) if r.key is not None else -1), (len(r.value) if r.value is not None else -1)


def record_line(b: Batch, r: Record, layout: str, case: str) -> bytes:
    ks, vs = _sizes(b, r)
    rts = b.max_timestamp if b.ts_type == "LogAppendTime" else r.timestamp
    ts = f"{b.ts_type}: {rts}"
    codec = _codec(b.codec, case)
    t = "true" if b.transactional else "false"
    if layout in ("deep", "deep-noepoch"):
        epoch = f" producerEpoch: {b.producer_epoch}" if layout == "deep" else ""
        text = (
            f"offset: {r.offset} position: {b.position} {ts} isvalid: true keysize: {ks} valuesize: {vs} magic: 2 "
            f"compresscodec: {codec} producerId: {b.producer_id}{epoch} sequence: {r.sequence} isTransactional: {t} headerKeys: []"
        )
    elif layout == "pipe-lower":
        text = f"| offset: {r.offset} {ts} keysize: {ks} valuesize: {vs} sequence: {r.sequence} headerKeys: []"
    elif layout == "superset":
        text = (
            f"| offset: {r.offset} isValid: true crc: null keySize: {ks} valueSize: {vs} {ts} baseOffset: {b.base_offset} "
            f"lastOffset: {b.last_offset} baseSequence: {b.base_sequence} lastSequence: {b.last_sequence} "
            f"producerEpoch: {b.producer_epoch} partitionLeaderEpoch: {b.leader_epoch} batchSize: {b.size} magic: 2 "
            f"compressType: {codec} position: {b.position} sequence: {r.sequence} headerKeys: []"
        )
    else:
        text = f"| offset: {r.offset} {ts} keySize: {ks} valueSize: {vs} sequence: {r.sequence} headerKeys: []"
    return text.encode() + _content(b, r)


def dump_text(
    era: str,
    batches: list[Batch],
    *,
    deep: bool = True,
    path: str | None = "/var/lib/kafka/data/orders-3/00000000000000000000.log",
    eol: bytes = b"\n",
) -> bytes:
    """The dump of one segment as that era's tool prints it."""
    blayout, rlayout, case, start_header = ERAS[era]
    lines: list[bytes] = []
    if path is not None:
        lines.append(f"Dumping {path}".encode())
        lines.append(f"{start_header}: {batches[0].base_offset if batches else 0}".encode())
    pipe = era in PIPE_ERAS
    for b in batches:
        if pipe or not deep:
            lines.append(batch_line(b, blayout, case).encode())
        if deep:
            for r in b.records:
                lines.append(record_line(b, r, rlayout, case))
    return eol.join(line.replace(b"\n", eol) for line in lines) + eol
