"""Partition logs: batches with real offsets, positions and sizes, plus per-producer state.

A data partition keeps what the broker keeps: producer state (epoch, last sequence, open
transaction start), the aborted-transaction index and the last stable offset. That is what makes
`.snapshot` and `.txnindex` dumps and the LSO-holding effect of a hanging transaction come out
right.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .payloads import Payload
from .util import MARKER_BATCH_SIZE, batch_size, pseudo_crc, record_size, txn_key_size, wrap_sequence

TopicPartition = tuple[str, int]


def tp_name(tp: TopicPartition) -> str:
    """`topic-partition` as Kafka prints it."""
    return f"{tp[0]}-{tp[1]}"


@dataclass(slots=True)
class Record:
    """One record of a batch; `value` is text for data and a TxnLogValue for the transaction log."""

    offset: int
    timestamp: int
    key: str | None
    value: object
    key_len: int
    value_len: int
    sequence: int = -1
    headers: tuple[str, ...] = ()
    marker: str | None = None
    coordinator_epoch: int = -1


@dataclass(slots=True)
class Batch:
    """A v2 record batch as the dump tool sees it."""

    base_offset: int
    last_offset: int
    base_sequence: int
    last_sequence: int
    producer_id: int
    producer_epoch: int
    leader_epoch: int
    is_transactional: bool
    is_control: bool
    position: int
    max_timestamp: int
    size: int
    codec: str
    crc: int
    records: list[Record]
    delete_horizon: int | None = None
    valid: bool = True

    @property
    def count(self) -> int:
        return len(self.records)


@dataclass
class Segment:
    """One `.log` file: batches, its byte size and the aborted transactions it indexes."""

    base_offset: int
    batches: list[Batch] = field(default_factory=list)
    size: int = 0
    aborted: list[tuple[int, int, int, int]] = field(default_factory=list)  # pid, first, last, lso


@dataclass
class ProducerEntry:
    """Broker-side producer state of one producer id on one partition."""

    producer_id: int
    epoch: int
    last_sequence: int = -1
    last_offset: int = -1
    offset_delta: int = 0
    last_timestamp: int = -1
    coordinator_epoch: int = -1
    txn_first_offset: int = -1


class Log:
    """Offsets, positions and segment rolls shared by data and transaction-log partitions."""

    def __init__(self, topic: str, partition: int, leader_epoch: int, segment_bytes: int = 1 << 30) -> None:
        self.topic = topic
        self.partition = partition
        self.leader_epoch = leader_epoch
        self.segment_bytes = segment_bytes
        self.segments: list[Segment] = [Segment(0)]
        self.next_offset = 0

    @property
    def tp(self) -> TopicPartition:
        return (self.topic, self.partition)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    def batches(self) -> list[Batch]:
        """All batches of all segments, in offset order."""
        return [b for s in self.segments for b in s.batches]

    def _segment_for(self, size: int) -> Segment:
        """The active segment, rolled when the next batch would overflow it."""
        seg = self.segments[-1]
        if seg.batches and seg.size + size > self.segment_bytes:
            seg = Segment(self.next_offset)
            self.segments.append(seg)
        return seg

    def _append(self, records: list[Record], size: int, *, pid: int, epoch: int, base_seq: int,
                txn: bool, control: bool, codec: str) -> Batch:
        """Place a batch at the log end: assign offsets, position and CRC."""
        seg = self._segment_for(size)
        base = self.next_offset
        for i, rec in enumerate(records):
            rec.offset = base + i
            if base_seq >= 0:
                rec.sequence = wrap_sequence(base_seq + i)
        last = base + len(records) - 1
        last_seq = wrap_sequence(base_seq + len(records) - 1) if base_seq >= 0 else -1
        max_ts = max(r.timestamp for r in records)
        batch = Batch(base, last, base_seq, last_seq, pid, epoch, self.leader_epoch, txn, control,
                      seg.size, max_ts, size, codec, pseudo_crc(self.name, base, pid, epoch, size, max_ts),
                      records)
        seg.batches.append(batch)
        seg.size += size
        self.next_offset = last + 1
        return batch


def data_records(payloads: list[Payload], timestamps: list[int]) -> tuple[list[Record], int]:
    """Records for a data batch and the byte size of the uncompressed record section."""
    base_ts = timestamps[0]
    records, total = [], 0
    for i, (p, ts) in enumerate(zip(payloads, timestamps)):
        total += record_size(i, ts - base_ts, p.key_len, p.value_len, p.header_sizes)
        records.append(Record(-1, ts, p.key, p.value, p.key_len, p.value_len, -1, p.headers))
    return records, total


class DataPartition(Log):
    """A partition of an application topic."""

    def __init__(self, topic: str, partition: int, leader_epoch: int, segment_bytes: int = 1 << 30) -> None:
        super().__init__(topic, partition, leader_epoch, segment_bytes)
        self.producers: dict[int, ProducerEntry] = {}
        self.spans: list[dict] = []
        self._open_spans: dict[int, dict] = {}

    def last_stable_offset(self) -> int:
        """First offset of the oldest open transaction, else the log end."""
        firsts = [e.txn_first_offset for e in self.producers.values() if e.txn_first_offset >= 0]
        return min(firsts) if firsts else self.next_offset

    def open_transactions(self) -> list[ProducerEntry]:
        return [e for e in self.producers.values() if e.txn_first_offset >= 0]

    def append_data(self, pid: int, epoch: int, base_seq: int, txn: bool, codec: str,
                    payloads: list[Payload], timestamps: list[int]) -> Batch | None:
        """Append producer data; None when the broker would reject a stale epoch."""
        entry = self.producers.get(pid)
        if entry is not None and epoch < entry.epoch:
            return None
        records, raw = data_records(payloads, timestamps)
        batch = self._append(records, batch_size(raw, codec), pid=pid, epoch=epoch, base_seq=base_seq,
                             txn=txn, control=False, codec=codec)
        self._update_producer(batch, entry)
        return batch

    def _update_producer(self, batch: Batch, entry: ProducerEntry | None) -> None:
        """Producer state after a data batch: epoch, sequence range, open transaction."""
        if entry is None:
            entry = self.producers[batch.producer_id] = ProducerEntry(batch.producer_id, batch.producer_epoch)
        entry.epoch = batch.producer_epoch
        entry.last_sequence = batch.last_sequence
        entry.last_offset = batch.last_offset
        entry.offset_delta = batch.last_offset - batch.base_offset
        entry.last_timestamp = batch.max_timestamp
        if batch.is_transactional and entry.txn_first_offset < 0:
            entry.txn_first_offset = batch.base_offset
            span = {"topic": self.topic, "partition": self.partition, "producer_id": batch.producer_id,
                    "epoch": batch.producer_epoch, "first_offset": batch.base_offset,
                    "first_ms": batch.max_timestamp}
            self._open_spans[batch.producer_id] = span
            self.spans.append(span)
        if batch.is_transactional:
            span = self._open_spans[batch.producer_id]
            span["last_data_offset"] = batch.last_offset
            span["batches"] = span.get("batches", 0) + 1

    def append_marker(self, pid: int, epoch: int, marker: str, coordinator_epoch: int, ts: int) -> Batch | None:
        """Write a COMMIT/ABORT control batch and close the producer's open transaction."""
        entry = self.producers.get(pid)
        if entry is not None and epoch < entry.epoch:
            return None
        rec = Record(-1, ts, None, None, 4, 6, -1, (), marker, coordinator_epoch)
        batch = self._append([rec], MARKER_BATCH_SIZE, pid=pid, epoch=epoch, base_seq=-1, txn=True,
                             control=True, codec="none")
        if entry is None:
            entry = self.producers[pid] = ProducerEntry(pid, epoch)
        if epoch > entry.epoch:
            entry.epoch, entry.last_sequence, entry.last_offset, entry.offset_delta = epoch, -1, -1, 0
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = ts
        first = entry.txn_first_offset
        entry.txn_first_offset = -1
        self._close_span(pid, batch, marker)
        if marker == "ABORT" and first >= 0:
            self.segments[-1].aborted.append((pid, first, batch.base_offset, self.last_stable_offset()))
        return batch

    def _close_span(self, pid: int, batch: Batch, marker: str) -> None:
        span = self._open_spans.pop(pid, None)
        if span is not None:
            span.update(marker_offset=batch.base_offset, marker_epoch=batch.producer_epoch,
                        outcome="committed" if marker == "COMMIT" else "aborted", end_ms=batch.max_timestamp)


class TxnLogPartition(Log):
    """A partition of `__transaction_state`: one batch per state change, tombstones grouped."""

    def append_states(self, entries: list[tuple[str, object, int]], ts: int) -> Batch:
        """Append (txn_id, TxnLogValue|None, value_size) records as one coordinator batch."""
        records, raw = [], 0
        for i, (txn_id, value, vsize) in enumerate(entries):
            ksize = txn_key_size(txn_id)
            raw += record_size(i, 0, ksize, vsize)
            records.append(Record(-1, ts, txn_id, value, ksize, vsize))
        return self._append(records, batch_size(raw, "none"), pid=-1, epoch=-1, base_seq=-1, txn=False,
                            control=False, codec="none")
