"""Facts that join two kinds of evidence.

* sequence breaks, labelled with what can excuse them (compaction, separate dump files);
* partitions a prepared transaction in __transaction_state lists, checked against the data
  partition's markers (a missing marker is a hanging transaction even when the coordinator says
  Complete*);
* producer-state snapshots that recorded an open transaction, checked against later markers;
* `.txnindex` entries, which name the ABORT markers a shallow dump does not spell out.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .registry import OPEN_SNAPSHOT_TXNS, PARTITION_GAPS, SEQUENCE_ANOMALIES


def label_sequence_breaks(
    raw: pd.DataFrame,
    tp_keys: list[tuple[str, int]],
    compacted_tps: set[int],
    tid_by_pid: Mapping[int, str],
) -> pd.DataFrame:
    if raw is None or raw.empty:
        return pd.DataFrame(columns=list(SEQUENCE_ANOMALIES.columns))
    out = raw.copy()
    tp = out.pop("tp").to_numpy(np.int64)
    out["topic"] = [tp_keys[t][0] for t in tp]
    out["partition"] = [tp_keys[t][1] for t in tp]
    out["transactional_id"] = out["producer_id"].map(lambda p: tid_by_pid.get(int(p), ""))
    out["compacted"] = [int(t) in compacted_tps for t in tp]
    out["contiguous"] = out["prev_file_id"] == out["file_id"]
    return out[list(SEQUENCE_ANOMALIES.columns)].reset_index(drop=True)


def resolve_unknown_markers(spans: pd.DataFrame, aborted: pd.DataFrame) -> pd.DataFrame:
    """Shallow dumps do not print the marker type; a .txnindex entry ending at the marker names it ABORT."""
    if aborted is None or aborted.empty or spans.empty:
        return spans
    unknown = spans["marker"] == "UNKNOWN"
    if not unknown.any():
        return spans
    keys = set(zip(aborted["topic"], aborted["partition"].astype(int), aborted["producer_id"].astype(int), aborted["last_offset"].astype(int)))
    hit = [
        u and (t, int(p), int(pid), int(mo)) in keys
        for u, t, p, pid, mo in zip(unknown, spans["topic"], spans["partition"], spans["producer_id"], spans["marker_offset"])
    ]
    spans = spans.copy()
    hit_mask = pd.Series(hit, index=spans.index)
    spans.loc[hit_mask, "marker"] = "ABORT"
    spans.loc[hit_mask, "state"] = "aborted"
    return spans


def build_prepared_partitions(
    coordinator_txns: pd.DataFrame,
    spans: pd.DataFrame,
    partition_end: Mapping[tuple[str, int], int],
) -> pd.DataFrame:
    """Each partition of each prepared transaction, with whether the data evidence has its marker."""
    columns = list(PARTITION_GAPS.columns)
    if coordinator_txns is None or coordinator_txns.empty or spans.empty:
        return pd.DataFrame(columns=columns)
    prepared = coordinator_txns[(coordinator_txns["prepare_state"] != "") & (coordinator_txns["partitions"] != "")]
    if prepared.empty:
        return pd.DataFrame(columns=columns)
    by_key: dict[tuple[str, int, int], pd.DataFrame] = {
        (t, int(p), int(pid)): g for (t, p, pid), g in spans.groupby(["topic", "partition", "producer_id"])
    }
    rows = []
    for tx in prepared.itertuples(index=False):
        for tp in tx.partitions.split(","):
            topic, _, part = tp.rpartition("-")
            if not part.lstrip("-").isdigit() or (topic, int(part)) not in partition_end:
                continue
            end = partition_end[(topic, int(part))]
            g = by_key.get((topic, int(part), int(tx.producer_id)))
            marker_seen = False
            first_offset = -1
            span_time = -1
            ev = (-1, -1, -1)
            if g is not None:
                # The span of this transaction: the producer's latest data on the partition at the
                # transaction's epoch written before the prepare (markers only follow a prepare).
                at_epoch = g[g["producer_epoch"] == tx.producer_epoch]
                if tx.prepare_time >= 0:
                    at_epoch = at_epoch[(at_epoch["first_time"] < 0) | (at_epoch["first_time"] <= tx.prepare_time + 1000)]
                if at_epoch.empty:
                    marker_seen = True  # nothing written there: nothing to end
                else:
                    span = at_epoch.sort_values("first_offset").iloc[-1]
                    marker_seen = span.state != "open"
                    if not marker_seen:
                        first_offset = int(span.first_offset)
                        span_time = int(span.first_time)
                    ev = (int(span.file_id), int(span.first_line), int(span.first_byte))
            else:
                marker_seen = True
            rows.append({
                "transactional_id": tx.transactional_id, "producer_id": int(tx.producer_id),
                "producer_epoch": int(tx.producer_epoch), "topic": topic, "partition": int(part),
                "prepare_state": tx.prepare_state, "prepare_time": int(tx.prepare_time),
                "marker_seen": bool(marker_seen),
                "covered": bool(end >= 0 and tx.prepare_time >= 0 and end > tx.prepare_time),
                "first_offset": first_offset, "partition_end_time": int(end),
                "file_id": ev[0], "line": ev[1], "byte": ev[2], "_span_time": span_time,
            })
    frame = pd.DataFrame(rows, columns=columns + ["_span_time"])
    return _one_transaction_per_open_span(frame)[columns].reset_index(drop=True)


def _one_transaction_per_open_span(frame: pd.DataFrame) -> pd.DataFrame:
    """An open span is claimed by the first prepare after its first write (several may be near)."""
    if frame.empty:
        return frame
    missing = frame[~frame["marker_seen"] & (frame["first_offset"] >= 0)].copy()
    rest = frame.drop(missing.index)
    missing["_late"] = (missing["prepare_time"] < missing["_span_time"]) & (missing["_span_time"] >= 0)
    missing = missing.sort_values(["_late", "prepare_time"], kind="stable")
    missing = missing.drop_duplicates(["topic", "partition", "producer_id", "first_offset"], keep="first")
    return pd.concat([rest, missing.drop(columns="_late")]).sort_index()


def build_snapshot_open_txns(
    snapshots: pd.DataFrame,
    spans: pd.DataFrame,
    evidence_end: int,
    max_timeout_ms: int,
) -> pd.DataFrame:
    columns = list(OPEN_SNAPSHOT_TXNS.columns)
    if snapshots is None or snapshots.empty:
        return pd.DataFrame(columns=columns)
    open_ = snapshots[snapshots["current_txn_first_offset"] >= 0]
    rows = []
    for e in open_.itertuples(index=False):
        closed = in_data = False
        if not spans.empty:
            g = spans[(spans["topic"] == e.topic) & (spans["partition"] == e.partition) & (spans["producer_id"] == e.producer_id)]
            closed = bool(((g["marker_offset"] > e.current_txn_first_offset)).any())
            in_data = bool((g["first_offset"] == e.current_txn_first_offset).any())
        rows.append({
            "topic": e.topic, "partition": int(e.partition), "producer_id": int(e.producer_id),
            "producer_epoch": int(e.producer_epoch), "first_offset": int(e.current_txn_first_offset),
            "snapshot_offset": int(e.snapshot_offset), "last_time": int(e.last_timestamp),
            "closed_in_evidence": closed, "in_data": in_data,
            "age_ms": int(evidence_end - e.last_timestamp) if evidence_end >= 0 and e.last_timestamp >= 0 else -1,
            "max_timeout_ms": int(max_timeout_ms),
            "file_id": int(e.file_id), "line": int(e.line), "byte": int(e.byte),
        })
    return pd.DataFrame(rows, columns=columns)


def mark_orphaned(spans: pd.DataFrame, coordinator_txns: pd.DataFrame) -> pd.DataFrame:
    """Open spans the coordinator will never end.

    When the coordinator has completed a transaction of the same producer id after the span's first
    write and holds no open transaction listing the partition, no marker will come: either the
    partition was in that transaction and its marker was lost (``marker-lost``), or the producer
    wrote without registering the partition with the coordinator (``unregistered``: a zombie or a
    client bug; the hanging transactions KIP-890 prevents).
    """
    spans = spans.copy(deep=False)  # only the orphaned column changes, and it is replaced whole
    orphaned = np.full(len(spans), "", dtype=object)
    spans["orphaned"] = orphaned
    if spans.empty or coordinator_txns is None or coordinator_txns.empty:
        return spans
    open_ = (spans["state"] == "open").to_numpy()
    if not open_.any():
        return spans
    done = coordinator_txns[coordinator_txns["complete_time"] >= 0]
    latest_done = done.groupby("producer_id")["complete_time"].max()
    still_open: dict[int, set[str]] = {}
    listed_done: dict[tuple[int, int], set[str]] = {}
    for tx in coordinator_txns.itertuples(index=False):
        parts = set(p for p in tx.partitions.split(",") if p)
        if not tx.complete_state:
            still_open.setdefault(int(tx.producer_id), set()).update(parts)
        else:
            listed_done.setdefault((int(tx.producer_id), int(tx.producer_epoch)), set()).update(parts)
    labels = []
    for row in spans.loc[open_, ["producer_id", "producer_epoch", "topic", "partition", "first_time"]].itertuples(index=False):
        tp = f"{row.topic}-{row.partition}"
        pid = int(row.producer_id)
        finished = latest_done.get(pid, -1)
        if finished < 0 or (row.first_time >= 0 and finished < row.first_time) or tp in still_open.get(pid, set()):
            labels.append("")
        elif tp in listed_done.get((pid, int(row.producer_epoch)), set()):
            labels.append("marker-lost")
        else:
            labels.append("unregistered")
    orphaned[open_] = labels
    spans["orphaned"] = orphaned
    return spans
