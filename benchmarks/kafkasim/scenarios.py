"""Scenario scripts: each one sets producers loose on a `Sim` to make one thing happen.

Scenarios compose: several can run on the same simulated cluster (staggered in time), and the
ground truth stays right because it is recorded by the model when things happen, not by the
script. Every case also gets light healthy background traffic, so diagnoses are checked against
false positives too.
"""

from __future__ import annotations

import uuid
from typing import Callable

from .log import TopicPartition
from .model import ID_EXPIRATION_MS, Process, Producer, Sim
from .util import txn_partition

MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


class Ctx:
    """Topics shared by the scenarios of one case, created on first use."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.topics: dict[str, list[TopicPartition]] = {}

    def topic(self, name: str, partitions: int) -> list[TopicPartition]:
        if name not in self.topics:
            self.topics[name] = self.sim.create_topic(name, partitions)
        return self.topics[name]


Scenario = Callable[[Sim, Ctx, int], None]


# -- building blocks ---------------------------------------------------------------------------

def colocated_ids(prefix: str, count: int, like: str | None = None) -> list[str]:
    """Transactional ids that share one `__transaction_state` partition (with `like`, if given)."""
    groups: dict[int, list[str]] = {}
    target = txn_partition(like) if like else None
    i = 0
    while True:
        name = f"{prefix}{i}"
        n = txn_partition(name)
        if target is None or n == target:
            groups.setdefault(n, []).append(name)
            if len(groups[n]) == count:
                return groups[n]
        i += 1

def transactions(sim: Sim, prod: Producer, tps: list[TopicPartition], count: int, *,
                 per_txn: tuple[int, int] = (1, 3), records: tuple[int, int] = (1, 6),
                 gap: tuple[int, int] = (60, 900), abort_at: frozenset[int] = frozenset(),
                 group: str | None = None) -> Process:
    """`count` transactions over random partitions of `tps`; stops at the first error."""
    for i in range(count):
        prod.begin()
        for tp in sim.rng.sample(tps, min(len(tps), sim.rng.randint(*per_txn))):
            if prod.send(tp, sim.rng.randint(*records)) is None:
                return
            yield sim.jitter(1, 25)
        if group and prod.send_offsets(group):
            return
        yield sim.jitter(5, 60)
        if (prod.abort() if i in abort_at else prod.commit()):
            return
        yield sim.jitter(*gap)


def idempotent_writes(sim: Sim, prod: Producer, tps: list[TopicPartition], count: int,
                      gap: tuple[int, int] = (20, 400)) -> Process:
    """Plain idempotent traffic: non-transactional batches with sequences."""
    yield from prod.init()
    for _ in range(count):
        prod.send(sim.rng.choice(tps), sim.rng.randint(1, 8))
        yield sim.jitter(*gap)


def txn_service(sim: Sim, prod: Producer, tps: list[TopicPartition], count: int, **kw: object) -> Process:
    """init + a run of transactions."""
    yield from prod.init()
    yield from transactions(sim, prod, tps, count, **kw)  # type: ignore[arg-type]


def background(sim: Sim, ctx: Ctx, start: int, duration: int = 6 * MINUTE) -> None:
    """Healthy neighbours: an idempotent producer and a transactional consume-transform-produce job."""
    orders, events = ctx.topic("orders", 3), ctx.topic("events", 2)
    clicks = Producer(sim, "clickstream", codec="gzip")
    sim.spawn(idempotent_writes(sim, clicks, orders + events, duration // 2000, gap=(1000, 3000)), start)
    sync = Producer(sim, "inventory-sync", txn_id="inventory-sync", codec="lz4")
    sim.spawn(txn_service(sim, sync, orders, duration // 10000, gap=(5000, 15000), group="inventory-sync"),
              start + sim.jitter(100, 900))


# -- scenarios ---------------------------------------------------------------------------------

def commit(sim: Sim, ctx: Ctx, start: int) -> None:
    """Healthy multi-partition commits with sendOffsetsToTransaction."""
    tps = ctx.topic("orders", 3) + ctx.topic("payment-events", 2)
    prod = Producer(sim, "order-service-0", txn_id="order-service-0", codec="lz4")
    sim.spawn(txn_service(sim, prod, tps, 15, per_txn=(1, 3), group="order-service"), start)


def client_abort(sim: Sim, ctx: Ctx, start: int) -> None:
    """The application aborts some of its own transactions (healthy)."""
    tps = ctx.topic("payment-events", 2)
    prod = Producer(sim, "payment-processor", txn_id="payment-processor")
    sim.spawn(txn_service(sim, prod, tps, 10, abort_at=frozenset({2, 5, 6})), start)


def fencing(sim: Sim, ctx: Ctx, start: int) -> None:
    """A second instance with the same transactional.id starts while the first has an open transaction."""
    tps = ctx.topic("orders", 3)
    txn_id = "order-enricher"
    first = Producer(sim, "order-enricher#1", txn_id=txn_id)
    second = Producer(sim, "order-enricher#2", txn_id=txn_id)

    def zombie() -> Process:
        yield from first.init()
        yield from transactions(sim, first, tps, 3)
        first.begin()
        first.send(tps[0], 3)
        yield sim.jitter(5, 20)
        first.send(tps[1], 2)
        yield sim.jitter(15_000, 25_000)  # long GC pause / network partition
        if first.send(tps[0], 2) is not None:
            first.commit()

    def replacement() -> Process:
        yield from second.init()  # fences: PrepareAbort/CompleteAbort at E+1, then Empty at E+2
        yield from transactions(sim, second, tps, 6)

    sim.spawn(zombie(), start)
    sim.spawn(replacement(), start + 6_000 + sim.jitter(0, 2_000))


def timeout(sim: Sim, ctx: Ctx, start: int) -> None:
    """An open transaction outlives transaction.timeout.ms; the coordinator aborts it."""
    tps = ctx.topic("payment-events", 2)
    txn_id = "ledger-writer"
    stalled = Producer(sim, "ledger-writer#1", txn_id=txn_id, timeout_ms=30_000)

    def run() -> Process:
        yield from stalled.init()
        yield from transactions(sim, stalled, tps, 2)
        stalled.begin()
        stalled.send(tps[1], 4)
        yield sim.jitter(60_000, 80_000)  # stuck downstream call, longer than the timeout
        if stalled.send(tps[1], 1) is None or stalled.commit():
            restarted = Producer(sim, "ledger-writer#2", txn_id=txn_id, timeout_ms=30_000)
            yield sim.jitter(2_000, 6_000)
            yield from restarted.init()  # Empty at E+2
            yield from transactions(sim, restarted, tps, 4)

    sim.spawn(run(), start)


def hanging(sim: Sim, ctx: Ctx, start: int) -> None:
    """Data lands on a partition the coordinator never registered: no marker ever comes."""
    tps = ctx.topic("orders", 3)
    prod = Producer(sim, "billing-ledger", txn_id="billing-ledger")
    neighbour = Producer(sim, "shipment-updater", txn_id="shipment-updater")

    def run() -> Process:
        yield from prod.init()
        yield from transactions(sim, prod, tps[:2], 2)
        prod.begin()
        prod.send(tps[0], 2)
        yield sim.jitter(2, 10)
        prod.send(tps[2], 3, register=False)  # AddPartitionsToTxn lost (pre-KIP-890 race)
        yield sim.jitter(10, 40)
        prod.commit()
        yield sim.jitter(200, 600)
        yield from transactions(sim, prod, tps[:2], 3)

    sim.spawn(run(), start)
    sim.spawn(txn_service(sim, neighbour, [tps[2]], 8, abort_at=frozenset({4}), gap=(2_000, 9_000)),
              start + 1_000)


def lost_marker(sim: Sim, ctx: Ctx, start: int) -> None:
    """A committed two-partition transaction whose COMMIT marker never reaches one partition."""
    tps = ctx.topic("payment-events", 2)
    txn_id = "settlement-batch"
    prod = Producer(sim, "settlement-batch", txn_id=txn_id)

    def run() -> Process:
        yield from prod.init()
        yield from transactions(sim, prod, tps, 2, per_txn=(2, 2))
        prod.begin()
        prod.send(tps[0], 3)
        yield sim.jitter(2, 10)
        prod.send(tps[1], 3)
        yield sim.jitter(10, 30)
        sim.coordinator.metas[txn_id].drop_markers.add(tps[1])
        prod.commit()
        yield sim.jitter(300, 900)
        yield from transactions(sim, prod, [tps[0]], 3)

    sim.spawn(run(), start)
    sim.spawn(idempotent_writes(sim, Producer(sim, "audit-log"), [tps[1]], 12, gap=(500, 3000)), start + 2_000)


def expiration(sim: Sim, ctx: Ctx, start: int) -> None:
    """The id is idle longer than transactional.id.expiration.ms, then comes back with a new producerId."""
    tps = ctx.topic("invoices", 1)
    txn_id = "invoice-exporter"
    first = Producer(sim, "invoice-exporter#1", txn_id=txn_id)
    sim.spawn(txn_service(sim, first, tps, 3), start)
    later = Producer(sim, "invoice-exporter#2", txn_id=txn_id)
    sim.spawn(txn_service(sim, later, tps, 3), start + ID_EXPIRATION_MS + 2 * DAY + sim.jitter(0, HOUR))
    for i, other in enumerate(colocated_ids("invoice-backfill-", 2, like=txn_id)):
        one_off = Producer(sim, other, txn_id=other)  # expires in the same pass: one batch, two tombstones
        sim.spawn(txn_service(sim, one_off, tps, 1), start + 3_000 + i * 500)


def expired_zombie(sim: Sim, ctx: Ctx, start: int) -> None:
    """The old producerId resumes after its id expired; its orphan transaction is aborted by an operator."""
    tps = ctx.topic("invoices", 1)
    txn_id = "report-generator"
    prod = Producer(sim, "report-generator", txn_id=txn_id)
    tp = tps[0]

    def run() -> Process:
        yield from txn_service(sim, prod, tps, 2)
        yield ID_EXPIRATION_MS + DAY + sim.jitter(0, HOUR)
        prod.begin()
        resumed = prod.send(tp, 3, register=False)  # the coordinator no longer maps this id
        first = resumed.base_offset if resumed else -1
        entry = sim.record("expired-id-zombie", category="expired-transactional-id", finding=True,
                           transactional_id=txn_id, producer_id=prod.pid, epoch=prod.epoch, topic=tp[0],
                           partition=tp[1], first_offset=first, resume_ms=sim.now)
        yield sim.jitter(5, 30)
        entry["client_error"] = prod.commit() or "none"  # INVALID_PRODUCER_ID_MAPPING
        yield 3 * HOUR + sim.jitter(0, HOUR)
        state = sim.partitions[tp].producers[prod.pid]
        marker = sim.partitions[tp].append_marker(prod.pid, prod.epoch, "ABORT", state.coordinator_epoch, sim.now)
        entry.update(aborted_by="kafka-transactions.sh abort", marker_offset=marker.base_offset if marker else -1,
                     abort_ms=sim.now)

    sim.spawn(run(), start)
    neighbour = Producer(sim, "invoice-archiver")
    sim.spawn(idempotent_writes(sim, neighbour, tps, 20, gap=(1_000, 5_000)),
              start + ID_EXPIRATION_MS + DAY + 4 * HOUR)


def unstable_ids(sim: Sim, ctx: Ctx, start: int) -> None:
    """Every start of the application uses a fresh random transactional.id."""
    tps = ctx.topic("events", 2)
    ids: list[str] = []
    t = start
    for i in range(24):
        txn_id = f"stream-app-{uuid.UUID(int=sim.rng.getrandbits(128), version=4)}"
        ids.append(txn_id)
        prod = Producer(sim, f"stream-app#{i}", txn_id=txn_id)
        sim.spawn(txn_service(sim, prod, tps, sim.rng.randint(1, 3), gap=(100, 400)), t)
        t += sim.jitter(2 * MINUTE, 8 * MINUTE)
    sim.record("unstable-transactional-ids", category="config-misuse", finding=True, prefix="stream-app-",
               count=len(ids), transactional_ids=ids, epoch=0)


def sequence_gap(sim: Sim, ctx: Ctx, start: int) -> None:
    """An idempotent producer's sequence jumps forward on one partition (lost batches)."""
    tp = ctx.topic("events", 2)[0]
    prod = Producer(sim, "metrics-pusher")

    def run() -> Process:
        yield from prod.init()
        for i in range(20):
            if i == 11:
                expected = prod.seqs.get(tp, 0)
                jump = sim.jitter(3, 40)
                batch = prod.send(tp, sim.rng.randint(1, 4), base_sequence=expected + jump)
                sim.record("sequence-gap", category="out-of-order-sequence", finding=True, transactional_id=None,
                           producer_id=prod.pid, epoch=prod.epoch, topic=tp[0], partition=tp[1],
                           offset=batch.base_offset if batch else -1, expected_sequence=expected,
                           sequence=expected + jump)
            else:
                prod.send(tp, sim.rng.randint(1, 4))
            yield sim.jitter(50, 500)

    sim.spawn(run(), start)


def sequence_duplicate(sim: Sim, ctx: Ctx, start: int) -> None:
    """A batch with an already-written sequence range appears again at a later offset."""
    tp = ctx.topic("events", 2)[1]
    prod = Producer(sim, "metrics-pusher-dup")

    def run() -> Process:
        yield from prod.init()
        sent = []
        for i in range(20):
            if i == 9 and sent:
                old = sent[-2]
                dup = prod.send(tp, old.count, base_sequence=old.base_sequence, payloads=None)
                prod.seqs[tp] = (sent[-1].last_sequence + 1)
                sim.record("sequence-duplicate", category="out-of-order-sequence", finding=True,
                           transactional_id=None, producer_id=prod.pid, epoch=prod.epoch, topic=tp[0],
                           partition=tp[1], offset=dup.base_offset if dup else -1,
                           original_offset=old.base_offset, sequence=old.base_sequence)
            else:
                b = prod.send(tp, sim.rng.randint(1, 4))
                if b is not None:
                    sent.append(b)
            yield sim.jitter(50, 500)

    sim.spawn(run(), start)


def restart(sim: Sim, ctx: Ctx, start: int) -> None:
    """Rolling restarts reuse the same transactional.id: epoch + 1 each time (healthy)."""
    tps = ctx.topic("orders", 3)
    t = start
    for i in range(3):
        prod = Producer(sim, f"cart-service#{i}", txn_id="cart-service-0")
        sim.spawn(txn_service(sim, prod, tps, 3, gap=(100, 500)), t)
        t += sim.jitter(40_000, 90_000)


def txnlog_compaction(sim: Sim, ctx: Ctx, start: int) -> None:
    """Older `__transaction_state` records were compacted away: offsets have gaps (healthy)."""
    tps = ctx.topic("orders", 3)
    for i, txn_id in enumerate(colocated_ids("pricing-", 3)):
        prod = Producer(sim, txn_id, txn_id=txn_id)
        sim.spawn(txn_service(sim, prod, tps, 6, gap=(200, 1500)), start + i * 700)
    sim.finalizers.append(compact_transaction_log)


def invalid_transition(sim: Sim, ctx: Ctx, start: int) -> None:
    """A PrepareCommit record was lost in a coordinator failover: the log walks Ongoing -> CompleteCommit."""
    tps = ctx.topic("orders", 3)
    prod = Producer(sim, "fraud-scorer", txn_id="fraud-scorer")
    sim.spawn(txn_service(sim, prod, tps, 6, gap=(200, 900)), start)
    sim.finalizers.append(lambda s: drop_prepare_record(s, "fraud-scorer", 3))


# -- post-run log surgery ----------------------------------------------------------------------

def compact_transaction_log(sim: Sim) -> None:
    """Log cleaner: below the cleaner point keep only the newest record of each key."""
    from .log import Segment

    for log in sim.coordinator.logs.values():
        batches = log.batches()
        if len(batches) < 4:
            continue
        point = batches[int(len(batches) * 0.6)].base_offset
        newest: dict[str, int] = {}
        for b in batches:
            for r in b.records:
                if r.offset < point:
                    newest[r.key] = r.offset
        kept = []
        for b in batches:
            if b.base_offset < point:
                b.records = [r for r in b.records if newest.get(r.key) == r.offset]
                if not b.records:
                    continue
                if any(r.value is None for r in b.records) and sim.era.batch_layout == "3.2":
                    b.delete_horizon = sim.now + DAY
            kept.append(b)
        _relayout(log, kept, Segment)
    sim.record("compacted-transaction-log", category=None, finding=False,
               partitions=sorted(sim.coordinator.logs))


def drop_prepare_record(sim: Sim, txn_id: str, nth: int) -> None:
    """Remove the nth PrepareCommit of `txn_id`; later records move up one offset (truncate + re-append)."""
    from .log import Segment

    log = sim.coordinator.log_for(txn_id)
    seen = 0
    batches = log.batches()
    for i, b in enumerate(batches):
        r = b.records[0]
        if r.key == txn_id and r.value is not None and getattr(r.value, "state", "") == "PrepareCommit":
            seen += 1
            if seen == nth:
                for later in batches[i + 1:]:
                    for rec in later.records:
                        rec.offset -= 1
                    later.base_offset -= 1
                    later.last_offset -= 1
                del batches[i]
                log.next_offset -= 1
                _relayout(log, batches, Segment)
                sim.record("invalid-state-transition", category="invalid-state-transition", finding=True,
                           transactional_id=txn_id, producer_id=r.value.producer_id,
                           epoch=r.value.producer_epoch, from_state="Ongoing", to_state="CompleteCommit",
                           transaction_log_partition=log.partition, offset=b.base_offset,
                           lost_record="PrepareCommit")
                return


def _relayout(log: object, batches: list, segment_cls: type) -> None:
    """Recompute positions after batches were removed (the cleaner rewrites segments)."""
    seg = segment_cls(batches[0].base_offset if batches else 0)
    seg.base_offset = log.segments[0].base_offset  # type: ignore[attr-defined]
    pos = 0
    for b in batches:
        b.position = pos
        pos += b.size
    seg.batches, seg.size = batches, pos
    log.segments = [seg]  # type: ignore[attr-defined]


SCENARIOS: dict[str, Scenario] = {
    "commit": commit,
    "client-abort": client_abort,
    "fencing": fencing,
    "timeout": timeout,
    "hanging": hanging,
    "lost-marker": lost_marker,
    "expiration": expiration,
    "expired-zombie": expired_zombie,
    "unstable-ids": unstable_ids,
    "sequence-gap": sequence_gap,
    "sequence-duplicate": sequence_duplicate,
    "restart": restart,
    "txnlog-compaction": txnlog_compaction,
    "invalid-transition": invalid_transition,
}

#: `mixed` composes these on one cluster; the log-surgery scenarios stay separate.
MIXED = ("commit", "client-abort", "fencing", "timeout", "hanging", "lost-marker", "unstable-ids",
         "sequence-gap", "sequence-duplicate", "restart", "expiration", "expired-zombie")


def scenario_names() -> list[str]:
    return [*SCENARIOS, "mixed"]


def expand(spec: str) -> list[str]:
    """`fencing+timeout` composes; `mixed` is the big composition."""
    names = list(MIXED) if spec == "mixed" else spec.split("+")
    for n in names:
        if n not in SCENARIOS:
            raise KeyError(f"unknown scenario {n!r}; choose from {', '.join(scenario_names())}")
    return names


def populate(sim: Sim, spec: str, with_background: bool = True) -> Ctx:
    """Create topics and processes for a (possibly composed) scenario spec."""
    ctx = Ctx(sim)
    start = sim.now + 1_000
    if with_background:
        background(sim, ctx, start)
    for i, name in enumerate(expand(spec)):
        SCENARIOS[name](sim, ctx, start + 2_000 + i * 45_000)
    return ctx
