"""Discrete-event model of Kafka's transaction protocol: clock, coordinator, producers.

Processes are generators that yield delays in milliseconds (SimPy style). The coordinator keeps
one `TxnMeta` per transactional.id and persists every state change to `__transaction_state`;
data partitions receive data batches and COMMIT/ABORT markers. Ground truth (what happened and
why) is appended to `Sim.truth` at the moment it happens, so composed scenarios stay correct.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Callable, Generator

from .eras import Era
from .log import Batch, DataPartition, TopicPartition, TxnLogPartition
from .payloads import Payload, payload_pool
from .util import txn_partition, uvarint_len

TIMEOUT_CHECK_MS = 10_000  # transaction.abort.timed.out.transaction.cleanup.interval.ms
EXPIRY_CHECK_MS = 3_600_000  # transaction.remove.expired.transaction.cleanup.interval.ms
ID_EXPIRATION_MS = 604_800_000  # transactional.id.expiration.ms
TXN_LOG_PARTITIONS = 50
MAX_EPOCH = 32766  # epoch exhaustion point: a new producer id is allocated

Process = Generator[int, None, None]


@dataclass(frozen=True)
class TxnLogValue:
    """A TransactionLogValue as persisted (None partitions = the null array of `Empty`)."""

    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: str
    partitions: tuple[tuple[str, tuple[int, ...]], ...] | None
    last_update_ms: int
    start_ms: int
    version: int = 0
    client_txn_version: int = 0

    def size(self) -> int:
        """Serialized value size for value version 0 or 1 (transaction-log-format.md §4)."""
        parts = self.partitions or ()
        if self.version == 0:
            return 37 + sum(2 + len(t.encode()) + 4 + 4 * len(ps) for t, ps in parts)
        arr = 1 if self.partitions is None else uvarint_len(len(parts) + 1)
        for t, ps in parts:
            n = len(t.encode())
            arr += uvarint_len(n + 1) + n + uvarint_len(len(ps) + 1) + 4 * len(ps) + 1
        tags = 1 + (4 if self.client_txn_version else 0)
        return 17 + arr + 16 + tags

    def partition_names(self) -> list[str]:
        return [f"{t}-{p}" for t, ps in (self.partitions or ()) for p in ps]


def group_partitions(tps: list[TopicPartition]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Group topic-partitions by topic, first-seen order (what the coordinator serialises)."""
    grouped: dict[str, list[int]] = {}
    for topic, part in tps:
        grouped.setdefault(topic, []).append(part)
    return tuple((t, tuple(ps)) for t, ps in grouped.items())


@dataclass
class TxnMeta:
    """Coordinator memory for one transactional.id."""

    txn_id: str
    producer_id: int
    epoch: int
    timeout_ms: int
    client_tv: int
    state: str = "Empty"
    partitions: list[TopicPartition] = field(default_factory=list)
    last_update: int = -1
    start_ms: int = -1
    pending: bool = False
    txn_seq: int = 0
    drop_markers: set[TopicPartition] = field(default_factory=set)
    first_ongoing_ms: int = -1
    timed_out: dict | None = None  # truth entry of a timeout abort, completed by the restart


class PidAllocator:
    """Producer ids come in blocks of 1000 handed to brokers; clients hit different brokers."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.blocks = [rng.randrange(0, 40) * 1000 for _ in range(3)]
        self.used = [0, 0, 0]

    def next(self) -> int:
        i = self.rng.randrange(len(self.blocks))
        if self.used[i] >= 1000:
            self.blocks[i] = max(self.blocks) + 1000
            self.used[i] = 0
        pid = self.blocks[i] + self.used[i]
        self.used[i] += 1
        return pid


class Sim:
    """Clock, event queue and the cluster under simulation."""

    def __init__(self, era: Era, seed: int = 1, protocol: int | None = None,
                 start_ms: int | None = None) -> None:
        self.era = era
        self.seed = seed
        self.rng = random.Random(seed)
        self.protocol = protocol or era.protocol
        self.now = start_ms if start_ms is not None else era.start_ms + self.rng.randrange(0, 86_400_000)
        self.start_ms = self.now
        self._heap: list[tuple[int, int, bool, Callable[[], None]]] = []
        self._seq = 0
        self._foreground = 0
        self.partitions: dict[TopicPartition, DataPartition] = {}
        self.pids = PidAllocator(self.rng)
        self.coordinator = Coordinator(self)
        self.truth: list[dict] = []
        self.producers: list[Producer] = []
        self.payloads = payload_pool(random.Random(seed * 7919 + 1), 512, 40, 260, tricky_rate=0.03,
                                     tombstone_rate=0.01)
        self.finalizers: list[Callable[[Sim], None]] = []

    # -- topology -------------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int) -> list[TopicPartition]:
        """Create an application topic; leader epochs differ per partition."""
        tps = []
        for p in range(partitions):
            part = DataPartition(name, p, self.rng.randrange(0, 12))
            self.partitions[part.tp] = part
            tps.append(part.tp)
        return tps

    # -- events ---------------------------------------------------------------------------
    def at(self, t: int, fn: Callable[[], None], background: bool = False) -> None:
        """Schedule `fn` at absolute time `t`; background events do not keep the run alive."""
        self._seq += 1
        if not background:
            self._foreground += 1
        heapq.heappush(self._heap, (max(t, self.now), self._seq, background, fn))

    def after(self, delay: int, fn: Callable[[], None], background: bool = False) -> None:
        self.at(self.now + int(delay), fn, background)

    def spawn(self, proc: Process, start: int | None = None) -> None:
        """Run a generator process from absolute time `start` (default now); it yields delays in ms."""
        def step() -> None:
            try:
                d = next(proc)
            except StopIteration:
                return
            self.after(max(0, int(d)), step)
        self.at(self.now if start is None else start, step)

    def run(self, until: int | None = None) -> None:
        """Process events until only background checks remain (or `until`)."""
        while self._heap and self._foreground > 0:
            t, _, background, fn = self._heap[0]
            if until is not None and t > until:
                break
            heapq.heappop(self._heap)
            if not background:
                self._foreground -= 1
            self.now = t
            fn()

    def record(self, kind: str, **fields: object) -> dict:
        """Append a ground-truth entry."""
        entry = {"kind": kind, **fields}
        self.truth.append(entry)
        return entry

    def jitter(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick_payloads(self, n: int) -> list[Payload]:
        return [self.payloads[self.rng.randrange(len(self.payloads))] for _ in range(n)]


class Coordinator:
    """Transaction coordinator: state machine, `__transaction_state` writes, markers, checks."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.metas: dict[str, TxnMeta] = {}
        self.logs: dict[int, TxnLogPartition] = {}
        self.coordinator_epochs: dict[int, int] = {}
        self.expired: dict[str, dict] = {}
        self.pid_owner: dict[int, str] = {}
        self.value_version = 1 if (sim.era.json_value_v1 and sim.protocol == 2) else 0
        self.timeout_phase = sim.rng.randrange(TIMEOUT_CHECK_MS)
        self.expiry_phase = sim.rng.randrange(EXPIRY_CHECK_MS)
        self._expiry_due: dict[int, list[tuple[str, int]]] = {}

    # -- persistence ----------------------------------------------------------------------
    def log_for(self, txn_id: str) -> TxnLogPartition:
        n = txn_partition(txn_id, TXN_LOG_PARTITIONS)
        if n not in self.logs:
            self.logs[n] = TxnLogPartition("__transaction_state", n, self.sim.rng.randrange(0, 30))
            self.coordinator_epochs[n] = self.logs[n].leader_epoch
        return self.logs[n]

    def coordinator_epoch(self, txn_id: str) -> int:
        return self.coordinator_epochs[self.log_for(txn_id).partition]

    def _persist(self, meta: TxnMeta, state: str, epoch: int | None = None) -> Batch:
        """Write one state change: a batch with one record, record time within ms of lastUpdate."""
        now = self.sim.now
        meta.state = state
        if epoch is not None:
            meta.epoch = epoch
        meta.last_update = now
        if state == "Empty":
            parts = None
        elif state in ("CompleteCommit", "CompleteAbort"):
            parts = ()
        else:
            parts = group_partitions(meta.partitions)
        tv = 2 if (self.value_version and meta.client_tv == 2) else 0
        start = -1 if state == "Empty" else meta.start_ms
        value = TxnLogValue(meta.producer_id, meta.epoch, meta.timeout_ms, state, parts, now, start,
                            self.value_version, tv)
        log = self.log_for(meta.txn_id)
        batch = log.append_states([(meta.txn_id, value, value.size())], now + self.sim.jitter(0, 2))
        self._maybe_schedule_expiry(meta)
        return batch

    # -- InitProducerId -------------------------------------------------------------------
    def init_producer_id(self, prod: "Producer") -> Process:
        """Handle InitProducerId with client retries; fences an open transaction first."""
        fence_entry: dict | None = None
        while True:
            meta = self.metas.get(prod.txn_id)
            if meta is None:
                self._new_mapping(prod)
                break
            if meta.pending or meta.state in ("PrepareCommit", "PrepareAbort"):
                yield self.sim.jitter(80, 120)  # CONCURRENT_TRANSACTIONS, client backs off
                continue
            if meta.state == "Ongoing":
                fence_entry = self._abort_open(meta, "fencing")
                yield self.sim.jitter(80, 120)
                continue
            self._bump_for_init(meta, prod, fenced=fence_entry)
            break
        meta = self.metas[prod.txn_id]
        prod.set_identity(meta.producer_id, meta.epoch)

    def _new_mapping(self, prod: "Producer") -> None:
        """First InitProducerId for an id (or after it expired): new pid at epoch 0."""
        pid = self.sim.pids.next()
        meta = TxnMeta(prod.txn_id, pid, 0, prod.timeout_ms, prod.protocol)
        self.metas[prod.txn_id] = meta
        self.pid_owner[pid] = prod.txn_id
        self._persist(meta, "Empty")
        gone = self.expired.pop(prod.txn_id, None)
        if gone is not None:
            gone["new_producer_id"] = pid
            gone["new_epoch"] = 0
            gone["returned_ms"] = self.sim.now

    def _bump_for_init(self, meta: TxnMeta, prod: "Producer", fenced: dict | None) -> None:
        """InitProducerId outside a transaction: epoch + 1 (new pid when exhausted)."""
        old_pid, old_epoch = meta.producer_id, meta.epoch
        if meta.epoch >= MAX_EPOCH:
            meta.producer_id, new_epoch = self.sim.pids.next(), 0
            self.pid_owner[meta.producer_id] = meta.txn_id
        else:
            new_epoch = meta.epoch + 1
        meta.timeout_ms, meta.client_tv, meta.partitions = prod.timeout_ms, prod.protocol, []
        self._persist(meta, "Empty", new_epoch)
        if fenced is not None:
            fenced["new_epoch"] = new_epoch
            fenced["new_instance_ms"] = self.sim.now
        elif meta.timed_out is not None:
            meta.timed_out.update(new_epoch=new_epoch, restart_ms=self.sim.now)
            meta.timed_out = None
        else:
            self.sim.record("restart", category=None, finding=False, transactional_id=meta.txn_id,
                            producer_id=meta.producer_id, old_producer_id=old_pid, epoch=old_epoch,
                            new_epoch=new_epoch, time_ms=self.sim.now)

    # -- AddPartitions / EndTxn -----------------------------------------------------------
    def _check(self, prod: "Producer") -> tuple[TxnMeta | None, str]:
        meta = self.metas.get(prod.txn_id)
        if meta is None or meta.producer_id != prod.pid:
            return None, "INVALID_PRODUCER_ID_MAPPING"
        if prod.epoch < meta.epoch:
            return meta, "PRODUCER_FENCED"
        if meta.pending or meta.state in ("PrepareCommit", "PrepareAbort"):
            return meta, "CONCURRENT_TRANSACTIONS"
        return meta, ""

    def add_partitions(self, prod: "Producer", tps: list[TopicPartition]) -> str:
        """AddPartitionsToTxn / AddOffsetsToTxn: `Ongoing` with the grown partition set."""
        meta, err = self._check(prod)
        if err:
            return err
        assert meta is not None
        starting = meta.state != "Ongoing"
        if starting:
            meta.partitions, meta.start_ms = [], self.sim.now
            meta.txn_seq += 1
            meta.first_ongoing_ms = self.sim.now
        new = [tp for tp in tps if tp not in meta.partitions]
        if not new and not starting:
            return ""
        meta.partitions.extend(new)
        self._persist(meta, "Ongoing")
        if starting:
            self._schedule_timeout_probe(meta)
        return ""

    def end_txn(self, prod: "Producer", commit: bool) -> str:
        """EndTxn from the client: Prepare*, markers, Complete* (v2 bumps the epoch)."""
        meta, err = self._check(prod)
        if err:
            return err
        assert meta is not None
        if meta.state != "Ongoing":
            return "" if not prod.txn_tps else "INVALID_TXN_STATE"
        epoch = meta.epoch + 1 if meta.client_tv == 2 else meta.epoch
        outcome = "COMMIT" if commit else "ABORT"
        entry = None
        if not commit:
            entry = self.sim.record("client-abort", category=None, finding=False, transactional_id=meta.txn_id,
                                    producer_id=meta.producer_id, epoch=meta.epoch, marker_epoch=epoch,
                                    time_ms=self.sim.now)
        self._finish(meta, outcome, epoch, entry)
        if meta.client_tv == 2:
            prod.set_identity(meta.producer_id, epoch)
        return ""

    def _abort_open(self, meta: TxnMeta, cause: str) -> dict:
        """Coordinator-initiated abort (fencing or timeout): PrepareAbort at E+1 fences the old producer."""
        epoch = meta.epoch + 1 if self.sim.era.abort_bumps_epoch else meta.epoch
        kind = "fencing" if cause == "fencing" else "coordinator-timeout"
        category = "fencing" if cause == "fencing" else "transaction-timeout"
        entry = self.sim.record(kind, category=category, finding=True, transactional_id=meta.txn_id,
                                producer_id=meta.producer_id, epoch=meta.epoch, abort_epoch=epoch,
                                timeout_ms=meta.timeout_ms, txn_start_ms=meta.first_ongoing_ms,
                                abort_ms=self.sim.now)
        if cause == "timeout":
            entry["deadline_ms"] = meta.first_ongoing_ms + meta.timeout_ms
            meta.timed_out = entry
        self._finish(meta, "ABORT", epoch, entry)
        return entry

    def _finish(self, meta: TxnMeta, outcome: str, epoch: int, entry: dict | None) -> None:
        """Prepare* now, markers a few ms later, Complete* after the markers are written."""
        prepare = "PrepareCommit" if outcome == "COMMIT" else "PrepareAbort"
        self._persist(meta, prepare, epoch)
        meta.pending = True
        pid, tps = meta.producer_id, list(meta.partitions)
        drop, meta.drop_markers = meta.drop_markers, set()
        cepoch = self.coordinator_epoch(meta.txn_id)

        def write_markers() -> None:
            written = []
            for tp in tps:
                part = self.sim.partitions.get(tp)
                if part is None:
                    continue  # __consumer_offsets: markers exist but that log is not dumped
                first = next((e.txn_first_offset for e in part.open_transactions() if e.producer_id == pid), -1)
                if tp in drop:
                    self._lost_marker(meta, tp, pid, epoch, outcome, first)
                    continue
                batch = part.append_marker(pid, epoch, outcome, cepoch, self.sim.now)
                if batch is not None:
                    written.append({"topic": tp[0], "partition": tp[1], "first_offset": first,
                                    "marker_offset": batch.base_offset})
            if entry is not None:
                entry["partitions"] = written
                if written:
                    entry.setdefault("topic", written[0]["topic"])
                    entry.setdefault("partition", written[0]["partition"])
            self.sim.after(self.sim.jitter(1, 4), complete)

        def complete() -> None:
            done = "CompleteCommit" if outcome == "COMMIT" else "CompleteAbort"
            if epoch >= MAX_EPOCH and meta.client_tv == 2:
                meta.producer_id, new_epoch = self.sim.pids.next(), 0
                self.pid_owner[meta.producer_id] = meta.txn_id
            else:
                new_epoch = epoch
            meta.pending = False
            self._persist(meta, done, new_epoch)

        self.sim.after(self.sim.jitter(2, 8), write_markers)

    def _lost_marker(self, meta: TxnMeta, tp: TopicPartition, pid: int, epoch: int, outcome: str,
                     first: int) -> None:
        self.sim.record("lost-marker", category="hanging-transaction", finding=True, transactional_id=meta.txn_id,
                        producer_id=pid, epoch=meta.epoch if meta.client_tv != 2 else epoch - 1,
                        marker_epoch=epoch, outcome=outcome, topic=tp[0], partition=tp[1], first_offset=first,
                        time_ms=self.sim.now)

    # -- periodic checks ------------------------------------------------------------------
    def _schedule_timeout_probe(self, meta: TxnMeta) -> None:
        """The 10 s abort check fires at the first tick strictly after start + timeout."""
        deadline = meta.start_ms + meta.timeout_ms
        k = (deadline - self.timeout_phase) // TIMEOUT_CHECK_MS + 1
        tick = self.timeout_phase + k * TIMEOUT_CHECK_MS
        seq = meta.txn_seq

        def probe() -> None:
            current = self.metas.get(meta.txn_id)
            if current is meta and meta.state == "Ongoing" and meta.txn_seq == seq and not meta.pending:
                self._abort_open(meta, "timeout")
        self.sim.at(tick, probe, background=True)

    def _maybe_schedule_expiry(self, meta: TxnMeta) -> None:
        """Queue the hourly expiration pass that would tombstone this id if it stays idle."""
        if meta.state not in ("Empty", "CompleteCommit", "CompleteAbort"):
            return
        due = meta.last_update + ID_EXPIRATION_MS
        k = -((self.expiry_phase - due) // EXPIRY_CHECK_MS)  # ceil
        tick = self.expiry_phase + k * EXPIRY_CHECK_MS
        waiting = self._expiry_due.setdefault(tick, [])
        if not waiting:
            self.sim.at(tick, lambda: self._expire(tick), background=True)
        waiting.append((meta.txn_id, meta.last_update))

    def _expire(self, tick: int) -> None:
        """Expiration pass: one tombstone batch per `__transaction_state` partition."""
        by_log: dict[int, list[TxnMeta]] = {}
        for txn_id, last in self._expiry_due.pop(tick, []):
            meta = self.metas.get(txn_id)
            if (meta is None or meta.last_update != last or meta.pending
                    or meta.state not in ("Empty", "CompleteCommit", "CompleteAbort")):
                continue
            by_log.setdefault(self.log_for(txn_id).partition, []).append(meta)
        for n, metas in sorted(by_log.items()):
            batch = self.logs[n].append_states([(m.txn_id, None, -1) for m in metas], self.sim.now)
            for m, rec in zip(metas, batch.records):
                del self.metas[m.txn_id]
                self.expired[m.txn_id] = self.sim.record(
                    "expired-transactional-id", category="expired-transactional-id", finding=True,
                    transactional_id=m.txn_id, producer_id=m.producer_id, epoch=m.epoch,
                    last_update_ms=m.last_update, tombstone_ms=self.sim.now,
                    transaction_log_partition=n, tombstone_offset=rec.offset)


class Producer:
    """A client: transactional (with transactional.id) or idempotent-only."""

    def __init__(self, sim: Sim, name: str, txn_id: str | None = None, timeout_ms: int = 60_000,
                 codec: str = "none", protocol: int | None = None) -> None:
        self.sim = sim
        self.name = name
        self.txn_id = txn_id
        self.timeout_ms = timeout_ms
        self.codec = codec
        self.protocol = protocol or sim.protocol
        self.pid = -1
        self.epoch = -1
        self.seqs: dict[TopicPartition, int] = {}
        self.txn_tps: set[TopicPartition] = set()
        self.in_txn = False
        self.error = ""
        sim.producers.append(self)

    @property
    def transactional(self) -> bool:
        return self.txn_id is not None

    def set_identity(self, pid: int, epoch: int) -> None:
        """New pid/epoch from the coordinator: sequences restart at 0."""
        if (pid, epoch) != (self.pid, self.epoch):
            self.seqs = {}
        self.pid, self.epoch = pid, epoch

    def init(self) -> Process:
        """InitProducerId (idempotent producers just get a fresh pid at epoch 0)."""
        if self.transactional:
            yield from self.sim.coordinator.init_producer_id(self)
        else:
            self.set_identity(self.sim.pids.next(), 0)
        yield self.sim.jitter(1, 5)

    def begin(self) -> None:
        self.in_txn, self.txn_tps, self.error = True, set(), ""

    def send(self, tp: TopicPartition, n: int = 1, *, register: bool = True, base_sequence: int | None = None,
             payloads: list[Payload] | None = None) -> Batch | None:
        """Produce one batch of `n` records; registers the partition with the coordinator first."""
        if self.transactional and tp not in self.txn_tps:
            if register:
                err = self.sim.coordinator.add_partitions(self, [tp])
                if err:
                    self.error = err
                    return None
            self.txn_tps.add(tp)
        seq = self.seqs.get(tp, 0) if base_sequence is None else base_sequence
        now = self.sim.now
        stamps = sorted(now - self.sim.rng.randint(0, 15) for _ in range(n))
        batch = self.sim.partitions[tp].append_data(self.pid, self.epoch, seq, self.transactional, self.codec,
                                                    payloads or self.sim.pick_payloads(n), stamps)
        if batch is None:
            self.error = "PRODUCER_FENCED"
            return None
        self.seqs[tp] = (seq + n) % 2147483648
        return batch

    def send_offsets(self, group: str) -> str:
        """sendOffsetsToTransaction: adds the group's `__consumer_offsets` partition."""
        tp = ("__consumer_offsets", txn_partition(group, 50))
        err = self.sim.coordinator.add_partitions(self, [tp])
        if not err:
            self.txn_tps.add(tp)
        return err

    def commit(self) -> str:
        return self._end(True)

    def abort(self) -> str:
        return self._end(False)

    def _end(self, commit: bool) -> str:
        err = self.sim.coordinator.end_txn(self, commit) if self.txn_tps else ""
        self.in_txn, self.txn_tps = False, set()
        return err

