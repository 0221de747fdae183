"""Streaming generator of one large, busy data-partition dump (for throughput benchmarks).

It never holds more than about a megabyte of text: producers are tiny state records, payloads
come from a precomputed pool, and text is flushed in chunks. The traffic mix is ~200 producers:
mostly transactional ones committing, some aborting, a few that open a transaction and go
silent (hanging), and idempotent non-transactional producers. Era formatting is the same code
the scenario renderer uses.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from . import eras as fmt
from .eras import Era, get_era
from .log import Batch
from .payloads import payload_pool
from .util import MARKER_BATCH_SIZE, batch_size, zigzag_len

FLUSH_BATCHES = 400  # batches per write (~0.5-1 MB of text)
#: The simulated producers' transaction.timeout.ms (the client default): the summary counts the
#: committed transactions that lasted 80 % of it or longer (those a timeout would soon have hit).
TIMEOUT_MS = 60_000


@dataclass(slots=True)
class BulkProducer:
    """Just enough producer state to keep epochs, sequences and open transactions consistent."""

    pid: int
    txn: bool
    codec: str
    hanging: bool = False
    epoch: int = 0
    seq: int = 0
    open_first: int = -1
    first_time: int = -1  # the open transaction's earliest batch timestamp
    remaining: int = 0
    silent: bool = False


@dataclass(slots=True)
class PoolEntry:
    """A payload with its printed suffix and the size-relevant constants precomputed."""

    suffix: str
    key_len: int
    value_len: int
    headers: str
    record_size: int


def parse_size(text: str) -> int:
    """`1GB`, `500MB`, `5 MiB`, `1048576` -> bytes (decimal units for KB/MB/GB, binary for KiB...)."""
    t = text.strip().upper().replace(" ", "")
    units = {"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "KB": 10**3, "MB": 10**6, "GB": 10**9,
             "K": 10**3, "M": 10**6, "G": 10**9, "B": 1}
    for unit, mult in units.items():
        if t.endswith(unit):
            return int(float(t[: -len(unit)]) * mult)
    return int(t)


def _pool(era: Era, rng: random.Random, print_data: bool) -> list[PoolEntry]:
    out = []
    for p in payload_pool(rng, 4096, 50, 300, tricky_rate=0.004, tombstone_rate=0.002):
        const = 1 + zigzag_len(p.key_len) + max(p.key_len, 0) + zigzag_len(p.value_len) + max(p.value_len, 0)
        const += zigzag_len(len(p.headers)) + sum(zigzag_len(k) + k + zigzag_len(v) + v for k, v in p.header_sizes)
        suffix = fmt.data_suffix(era, p.key, p.value) if print_data else ""
        body = const + 2  # + one byte each for timestampDelta and offsetDelta
        out.append(PoolEntry(suffix + "\n", p.key_len, p.value_len, ",".join(p.headers), body + zigzag_len(body)))
    return out


def _producers(rng: random.Random, count: int, pid_base: int = 0) -> list[BulkProducer]:
    """~72% transactional, ~25% idempotent, a few that will hang (producer ids from ``pid_base`` + 1000)."""
    pids = [pid_base + pid for pid in rng.sample(range(1000, 60000), count)]
    codecs = ("none", "none", "none", "lz4", "gzip")
    out = []
    for i, pid in enumerate(pids):
        kind = i % 40
        txn = kind < 29 or kind >= 39
        out.append(BulkProducer(pid, txn, rng.choice(codecs), hanging=(kind == 39 and i < 200),
                                epoch=rng.randrange(0, 40) if txn else 0, seq=rng.randrange(0, 5000)))
    return out


class BulkWriter:
    """Writes batches of one partition as dump text; counts what it wrote for the summary."""

    def __init__(self, era: Era, out: BinaryIO, seed: int, producers: int, deep: bool, print_data: bool,
                 segment_bytes: int, path_prefix: str, pid_base: int = 0, pool: list[PoolEntry] | None = None) -> None:
        self.era = era
        self.out = out
        self.rng = random.Random(seed)
        self.deep = deep or (print_data and era.print_implies_deep)
        self.print_batch = (not self.deep) or era.batch_lines_in_deep
        self.pool = pool if pool is not None else _pool(era, random.Random(seed + 1), print_data and self.deep)
        self.producers = _producers(self.rng, producers, pid_base)
        self.segment_bytes = segment_bytes
        self.path_prefix = path_prefix
        self.record = fmt.record_formatter(era)
        self.protocol = era.protocol
        self.now = era.start_ms + self.rng.randrange(0, 86_400_000)
        self.offset = 0
        self.position = 0
        self.leader_epoch = self.rng.randrange(0, 20)
        self.coordinator_epoch = self.rng.randrange(0, 30)
        self.buf: list[str] = []
        self.written = 0
        self.stats = {"batches": 0, "records": 0, "commits": 0, "aborts": 0, "segments": 0,
                      "committed_near_timeout": 0}
        self.end_time = -1  # the latest batch timestamp written
        self.segments: list[int] = []
        self._pool_i = 0
        self._new_segment()

    def _new_segment(self) -> None:
        self.position = 0
        self.segments.append(self.offset)
        self.stats["segments"] += 1
        self.buf.append(fmt.header(self.era, f"{self.path_prefix}/{self.offset:020d}.log", self.offset))

    def _place(self, size: int) -> int:
        """Byte position of the next batch, rolling to a new segment when this one is full."""
        if self.position + size > self.segment_bytes and self.position > 0:
            self._new_segment()
        return self.position

    def _emit(self, b: Batch, lines: list[str]) -> None:
        if self.print_batch:
            self.buf.append(fmt.batch_line(self.era, b) + "\n")
        self.buf.extend(lines)
        self.position += b.size
        self.offset = b.last_offset + 1
        self.stats["batches"] += 1
        self.end_time = max(self.end_time, b.max_timestamp)

    def data_batch(self, p: BulkProducer) -> None:
        """A data batch of 1-10 records from producer `p`."""
        rand, pool = self.rng.random, self.pool
        n = 1 + int(rand() ** 2 * 10)
        ts0 = self.now - int(rand() * 30)
        step = int(rand() * 4)
        entries = []
        raw = 0
        idx = self._pool_i
        for _ in range(n):
            idx = (idx + 2654435761) & 4095
            e = pool[idx]
            raw += e.record_size  # offset and timestamp deltas stay below 64: one varint byte each
            entries.append(e)
        self._pool_i = idx
        base, seq = self.offset, p.seq
        size = batch_size(raw, p.codec)
        last_ts = ts0 + (n - 1) * step
        b = Batch(base, base + n - 1, seq, (seq + n - 1) % 2147483648, p.pid, p.epoch, self.leader_epoch, p.txn,
                  False, self._place(size), last_ts, size, p.codec, self.rng.getrandbits(32),
                  entries)  # type: ignore[arg-type]
        if self.deep:
            ctx = fmt.record_context(self.era, b)
            rec = self.record
            lines = [rec(ctx, base + i, ts0 + i * step, e.key_len, e.value_len, (seq + i) % 2147483648, e.headers)
                     + e.suffix for i, e in enumerate(entries)]
        else:
            lines = []
        self._emit(b, lines)
        p.seq = (seq + n) % 2147483648
        if p.txn:
            p.first_time = last_ts if p.open_first < 0 else min(p.first_time, last_ts)
        if p.txn and p.open_first < 0:
            p.open_first = base
        self.stats["records"] += n

    def marker(self, p: BulkProducer, commit: bool) -> None:
        """End `p`'s open transaction (v2: the marker carries epoch + 1, sequences restart)."""
        epoch = p.epoch + 1 if self.protocol == 2 else p.epoch
        b = Batch(self.offset, self.offset, -1, -1, p.pid, epoch, self.leader_epoch, True, True,
                  self._place(MARKER_BATCH_SIZE), self.now, MARKER_BATCH_SIZE, "none", self.rng.getrandbits(32), [None])  # type: ignore[list-item]
        lines = []
        if self.deep:
            ctx = fmt.record_context(self.era, b)
            lines.append(self.record(ctx, b.base_offset, self.now, 4, 6, -1, "")
                         + fmt.marker_suffix("COMMIT" if commit else "ABORT", self.coordinator_epoch) + "\n")
        self._emit(b, lines)
        if commit and self.now - p.first_time >= TIMEOUT_MS * 0.8:
            self.stats["committed_near_timeout"] += 1
        p.open_first, p.first_time = -1, -1
        if self.protocol == 2:
            p.epoch, p.seq = epoch, 0
        self.stats["commits" if commit else "aborts"] += 1

    def step(self) -> None:
        """One producer action: write data, or end a transaction, or restart."""
        rand = self.rng.random
        p = self.producers[int(rand() * len(self.producers))]
        self.now += int(rand() * 4)
        if p.silent:
            return
        if not p.txn:
            self.data_batch(p)
            return
        if p.open_first < 0:
            if rand() < 0.0005:  # restart with the same transactional.id: epoch + 1
                p.epoch, p.seq = p.epoch + 1, 0
            p.remaining = int(rand() * 4)
            self.data_batch(p)
            return
        if p.remaining > 0:
            p.remaining -= 1
            self.data_batch(p)
            return
        if p.hanging and rand() < 0.3:
            p.silent = True  # never writes again: its open transaction hangs
            return
        self.marker(p, rand() >= 0.05)

    def flush(self) -> None:
        data = "".join(self.buf).encode("utf-8")
        self.out.write(data)
        self.written += len(data)
        self.buf.clear()

    def open_transactions(self) -> list[dict]:
        return [{"producer_id": p.pid, "epoch": p.epoch, "first_offset": p.open_first, "hanging": p.silent,
                 "first_time": p.first_time} for p in self.producers if p.open_first >= 0]


def generate_bulk(path: str | Path, size: int | str, era: str = "3.3", seed: int = 1, producers: int = 200,
                  deep: bool = True, print_data: bool = True, segment_bytes: int = 1 << 27,
                  topic: str = "clickstream", partition: int = 0,
                  data_dir: str = "/var/lib/kafka/data", pid_base: int = 0) -> dict:
    """Stream about `size` bytes of dump text to `path`; returns (and writes next to it) a summary.

    ``pid_base`` shifts the producer ids: partitions generated separately (each with its own
    clock and epochs) must not share producer ids, or one id's epochs would go back in time
    across files, which is what a zombie producer looks like.
    """
    size_bytes = parse_size(size) if isinstance(size, str) else int(size)
    the_era = get_era(era)
    started = time.perf_counter()
    path = Path(path)
    with open(path, "wb") as out:
        w = BulkWriter(the_era, out, seed, producers, deep, print_data, segment_bytes,
                       f"{data_dir}/{topic}-{partition}", pid_base)
        while w.written < size_bytes:
            for _ in range(FLUSH_BATCHES):
                w.step()
            w.flush()
    elapsed = time.perf_counter() - started
    summary = {
        "format": "kafkadiag-sim-bulk/1", "era": the_era.name, "kafka_version": the_era.version, "seed": seed,
        "protocol": the_era.protocol, "topic": topic, "partition": partition, "producers": producers,
        "deep_iteration": w.deep, "print_data_log": print_data, "requested_bytes": size_bytes,
        "bytes": w.written, "seconds": round(elapsed, 3), "mb_per_s": round(w.written / 1e6 / max(elapsed, 1e-9), 1),
        "segments": w.segments, **w.stats, "endTxnMarker_lines": w.stats["commits"] + w.stats["aborts"],
        "open_transactions": w.open_transactions(), "end_time": w.end_time, "timeout_ms": TIMEOUT_MS,
    }
    Path(str(path) + ".expected.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary
