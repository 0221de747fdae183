"""One timeline per transactional.id from every kind of evidence.

On call, the question is "what happened to orders-tx-3, in order": the coordinator's state
changes, the data partitions' first writes and markers, the client's errors and the broker's
decisions, side by side. Events are joined by transactional.id, or by producer id when the
coordinator's records (or a log line naming both) map the producer id to an id.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

TIMELINE_COLUMNS = (
    "key", "time", "source", "kind", "transactional_id", "producer_id", "producer_epoch", "topic", "partition",
    "text", "file_id", "line",
)


def _producer_ids(tables: dict[str, pd.DataFrame]) -> dict[int, str]:
    """producer id -> transactional.id, from coordinator records and log lines naming both."""
    mapping: dict[int, str] = {}
    coord = tables.get("coordinator_txns")
    if coord is not None and not coord.empty:
        mapping.update(zip(coord["producer_id"].astype(int).tolist(), coord["transactional_id"].tolist()))
    ids = tables.get("transactional_ids")
    if ids is not None and not ids.empty:
        mapping.update(zip(ids["producer_id"].astype(int).tolist(), ids["transactional_id"].tolist()))
    logs = tables.get("log_events")
    if logs is not None and not logs.empty:
        both = logs[(logs["producer_id"] >= 0) & (logs["transactional_id"] != "")]
        for pid, tid in zip(both["producer_id"].astype(int).tolist(), both["transactional_id"].tolist()):
            mapping.setdefault(pid, tid)
    return mapping


def _coordinator_rows(records: pd.DataFrame | None) -> list[dict]:
    rows: list[dict] = []
    if records is None or records.empty:
        return rows
    for r in records.itertuples(index=False):
        t = r.last_update_ms if r.last_update_ms >= 0 else r.record_time
        if r.tombstone:
            text = "coordinator expired the transactional.id (tombstone)"
            t = r.record_time if r.record_time >= 0 else t
        else:
            parts = f" partitions {r.partitions}" if r.partitions else ""
            text = f"coordinator: {r.state} (producer id {r.producer_id}, epoch {r.producer_epoch}){parts}"
        rows.append({"time": int(t), "source": "coordinator", "kind": r.state or "tombstone",
                     "transactional_id": r.transactional_id, "producer_id": int(r.producer_id),
                     "producer_epoch": int(r.producer_epoch), "topic": "", "partition": -1, "text": text,
                     "file_id": int(r.file_id), "line": int(r.line)})
    return rows


def _span_rows(spans: pd.DataFrame | None) -> list[dict]:
    rows: list[dict] = []
    if spans is None or spans.empty:
        return rows
    for s in spans.itertuples(index=False):
        base = {"source": "data", "transactional_id": s.transactional_id, "producer_id": int(s.producer_id),
                "producer_epoch": int(s.producer_epoch), "topic": s.topic, "partition": int(s.partition)}
        if s.batches > 0:
            rows.append({**base, "time": int(s.first_time), "kind": "first-write",
                         "text": f"first write to {s.topic}-{s.partition} at offset {s.first_offset} (epoch {s.producer_epoch})",
                         "file_id": int(s.file_id), "line": int(s.first_line)})
        if s.marker_offset >= 0:
            who = f", the {s.ended_by}'s decision" if s.ended_by in ("producer", "coordinator") else ""
            rows.append({**base, "time": int(s.marker_time), "kind": s.marker or "marker",
                         "text": f"{s.marker} marker on {s.topic}-{s.partition} at offset {s.marker_offset} "
                                 f"(epoch {s.marker_epoch}{who})",
                         "file_id": int(s.marker_file_id), "line": int(s.marker_line)})
        elif s.state == "open":
            rows.append({**base, "time": int(s.partition_end_time), "kind": "still-open",
                         "text": f"still open on {s.topic}-{s.partition} since offset {s.first_offset}",
                         "file_id": int(s.file_id), "line": int(s.first_line)})
    return rows


def _log_rows(logs: pd.DataFrame | None) -> list[dict]:
    rows: list[dict] = []
    if logs is None or logs.empty:
        return rows
    for e in logs.itertuples(index=False):
        label = " ".join(x for x in (e.level, e.error or e.exception) if x)
        who = e.client_id or e.library
        rows.append({"time": int(e.time), "source": e.source or "log", "kind": e.error or e.level or "log",
                     "transactional_id": e.transactional_id, "producer_id": int(e.producer_id),
                     "producer_epoch": int(e.producer_epoch), "topic": e.topic, "partition": int(e.partition),
                     "text": f"{who}: {label}: {e.message}"[:300] if label else f"{who}: {e.message}"[:300],
                     "file_id": int(e.file_id), "line": int(e.line)})
    return rows


def _only_keys(table: pd.DataFrame | None, keys: set[str], pid_to_tid: dict[int, str]) -> pd.DataFrame | None:
    """The rows that can end up under one of ``keys`` (a superset: the exact choice is made on the events).

    A row is keyed by its transactional.id, else by the id its producer id maps to, else by
    ``producer <id>``; on a large dump most spans belong to other ids, and building their events
    only to drop them would cost seconds.
    """
    if table is None or table.empty:
        return table
    pids = {int(k.split(" ", 1)[1]) for k in keys if k.startswith("producer ") and k.split(" ", 1)[1].isdigit()}
    pids |= {pid for pid, tid in pid_to_tid.items() if tid in keys}
    keep = table["transactional_id"].isin(keys) | table["producer_id"].isin(pids)
    return table[keep]


def build_timeline(
    tables: dict[str, pd.DataFrame],
    records: pd.DataFrame | None = None,
    keys: Iterable[str] | None = None,
    include_data: bool = True,
    producer_ids: Iterable[int] = (),
) -> pd.DataFrame:
    """All events keyed by transactional.id (or ``producer <id>``), in time order within each key.

    ``records`` are the raw __transaction_state rows; ``keys`` limits the result to those keys.
    ``producer_ids`` adds the events of those producer ids wherever they are keyed (a producer
    with a transactional.id is keyed by it), and the events of their transactional ids that name
    no producer id (a client's log line about its transactional.id).
    """
    pid_to_tid = _producer_ids(tables)
    logs, spans = tables.get("log_events"), tables.get("spans")
    if keys is not None and not producer_ids:
        keys = set(keys)
        records, logs, spans = (_only_keys(t, keys, pid_to_tid) for t in (records, logs, spans))
    rows = _coordinator_rows(records) + _log_rows(logs)
    if include_data:
        rows += _span_rows(spans)
    if not rows:
        return pd.DataFrame(columns=list(TIMELINE_COLUMNS))
    frame = pd.DataFrame(rows)
    tid = frame["transactional_id"].fillna("").astype(str)
    by_pid = frame["producer_id"].map(lambda p: pid_to_tid.get(int(p), "")).astype(str)
    tid = tid.where(tid != "", by_pid)
    frame["transactional_id"] = tid
    frame["key"] = np.where(tid != "", tid, np.where(frame["producer_id"] >= 0, "producer " + frame["producer_id"].astype(str), ""))
    frame = frame[frame["key"] != ""]
    pids = {int(p) for p in producer_ids}
    if keys is not None or pids:
        wanted = frame["key"].isin(set(keys or ()))
        if pids:
            own = frame["producer_id"].isin(pids)
            their_ids = set(frame.loc[own & (frame["transactional_id"] != ""), "transactional_id"])
            wanted |= own | ((frame["producer_id"] < 0) & frame["transactional_id"].isin(their_ids))
        frame = frame[wanted]
    frame = frame.assign(_t=np.where(frame["time"] >= 0, frame["time"], np.iinfo(np.int64).max))
    frame = frame.sort_values(["key", "_t", "file_id", "line"], kind="stable").drop(columns="_t")
    return frame[list(TIMELINE_COLUMNS)].reset_index(drop=True)
