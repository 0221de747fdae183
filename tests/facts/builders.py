"""Small builders of event-table rows for fact tests (the readers have their own tests)."""

from __future__ import annotations

from kafkadiag.config import EffectiveConfig
from kafkadiag.facts.build import CollectedEvents, build_fact_tables
from kafkadiag.tables import BATCHES, TXN_RECORDS

T0 = 1_700_000_000_000


def batch(offset: int, pid: int, epoch: int, *, topic: str = "orders", partition: int = 0, ts: int = -1,
          seq: int = -1, count: int = 1, marker: str = "", tx: bool = True, file_id: int = 0) -> dict:
    control = bool(marker)
    return {
        "file_id": file_id, "line": offset + 3, "byte": offset * 100, "topic": topic, "partition": partition,
        "base_offset": offset, "last_offset": offset + count - 1, "count": count,
        "base_sequence": -1 if control else seq, "last_sequence": -1 if control else (seq + count - 1 if seq >= 0 else -1),
        "producer_id": pid, "producer_epoch": epoch, "is_transactional": tx, "is_control": control,
        "marker": marker, "coordinator_epoch": 0 if control else -1, "timestamp": ts,
    }


def record(tid: str, pid: int, epoch: int, state: str, t: int, *, offset: int, partitions: str = "",
           timeout: int = 60_000, tombstone: bool = False, log_partition: int = 7, client_tv: int = -1,
           value_version: int = -1) -> dict:
    return {
        "file_id": 1, "line": offset + 3, "byte": offset * 100, "log_partition": log_partition, "offset": offset,
        "record_time": t, "transactional_id": tid, "tombstone": tombstone,
        "producer_id": -1 if tombstone else pid, "producer_epoch": -1 if tombstone else epoch,
        "state": "" if tombstone else state, "partitions": partitions, "last_update_ms": -1 if tombstone else t,
        "timeout_ms": -1 if tombstone else timeout, "client_txn_version": client_tv, "value_version": value_version,
    }


def facts(batches: list[dict] = (), records: list[dict] = (), *, config: EffectiveConfig | None = None,
          now_ms: int | None = None, v2_possible: bool = True) -> dict:
    cfg = config or EffectiveConfig.defaults()
    events = CollectedEvents()
    if batches:
        events.add("batches", BATCHES.frame({k: [b.get(k, _default(BATCHES, k)) for b in batches] for k in BATCHES.names}))
    if records:
        events.add("txn_records", TXN_RECORDS.frame({k: [r.get(k, _default(TXN_RECORDS, k)) for r in records] for k in TXN_RECORDS.names}))
    return build_fact_tables(events, cfg.as_mapping(), {k: v.is_default for k, v in cfg.values.items()}, v2_possible, now_ms)


def _default(schema, name):
    return next(c.default for c in schema.columns if c.name == name)
