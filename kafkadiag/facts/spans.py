"""Transaction spans on data partitions, enriched with what the producer did before and after.

A span alone says "aborted at epoch+1"; whether that was a timeout, a second instance fencing the
first, or normal under transaction protocol v2 depends on the producer's other spans, on the
coordinator's records (when given) and on the effective timeouts. This module turns the merged
partial spans of ``batch_stream`` into the ``spans`` fact table with those answers as columns.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .batch_stream import MARKER_NAMES
from .coordinator import recommend_expiration, recommend_timeout
from .registry import SPANS


def protocol_by_producer(spans: pd.DataFrame, coordinator_protocol: Mapping[int, str], v2_possible: bool) -> pd.Series:
    """v1/v2/unknown per producer id.

    A COMMIT marker can only be written at a bumped epoch under protocol v2 (KIP-890), and only
    at the data epoch under v1, so commits decide. Otherwise the coordinator's evidence decides,
    and dumps from Kafka older than 4.0 can only be v1.
    """
    commits = spans[(spans["marker_code"] == 1) & (spans["producer_epoch"] >= 0)]
    bumped = commits["marker_epoch"] > commits["producer_epoch"]
    v2 = set(commits.loc[bumped, "producer_id"].tolist())
    v1 = set(commits.loc[~bumped, "producer_id"].tolist()) - v2
    out = {}
    for pid in spans["producer_id"].unique().tolist():
        if pid in v2:
            out[pid] = "v2"
        elif pid in v1:
            out[pid] = "v1"
        elif coordinator_protocol.get(pid, "unknown") != "unknown":
            out[pid] = coordinator_protocol[pid]
        else:
            out[pid] = "unknown" if v2_possible else "v1"
    return pd.Series(out, dtype=object)


def build_spans(
    merged: pd.DataFrame,
    tp_keys: list[tuple[str, int]],
    partition_end: Mapping[int, int],
    coordinator_txns: pd.DataFrame,
    config: Mapping[str, int],
    config_is_default: Mapping[str, bool],
    v2_possible: bool,
    now_ms: int | None,
    incomplete_tps: frozenset[int] = frozenset(),
) -> pd.DataFrame:
    """The ``spans`` fact table (registry columns) from merged partial spans.

    ``incomplete_tps`` are partitions whose dump has offset holes (compaction, an excerpt): there
    an open span that its producer later superseded on the same partition most likely had its
    marker in the missing part, so it is "ended" rather than open.
    """
    if merged.empty:
        return pd.DataFrame(columns=list(SPANS.columns))
    s = merged.copy()
    topics = np.array([k[0] for k in tp_keys], dtype=object)
    parts = np.array([k[1] for k in tp_keys], dtype=np.int64)
    tp = s["tp"].to_numpy(np.int64)
    s["topic"] = topics[tp]
    s["partition"] = parts[tp]
    no_data = s["producer_epoch"] < 0
    s.loc[no_data, "producer_epoch"] = s.loc[no_data, "marker_epoch"]
    s["marker"] = s["marker_code"].map(MARKER_NAMES).fillna("")
    has_marker = s["marker_offset"] >= 0
    s["state"] = np.select(
        [~has_marker, s["marker_code"] == 1, s["marker_code"] == 2],
        ["open", "committed", "aborted"],
        default="ended",
    )
    s.loc[~has_marker, ["marker_epoch", "coordinator_epoch", "marker_time"]] = -1
    last_ordinal = s.groupby(["tp", "producer_id"])["ordinal"].transform("max")
    superseded = ~has_marker & (s["ordinal"] < last_ordinal) & s["tp"].isin(list(incomplete_tps))
    s.loc[superseded, "state"] = "ended"
    s["epoch_bump"] = np.where(has_marker & (s["producer_epoch"] >= 0), s["marker_epoch"] - s["producer_epoch"], 0)
    first = s["first_time"].where(s["first_time"] >= 0, s["marker_time"])
    s["first_time"] = first
    s["end_time"] = np.where(has_marker & (s["marker_time"] >= 0), s["marker_time"], s["last_time"])
    s["duration_ms"] = np.where((s["first_time"] >= 0) & (s["end_time"] >= 0), s["end_time"] - s["first_time"], -1)

    # Coordinator evidence: transactional.id, timeout and the coordinator's own verdict per (pid, epoch).
    coord = coordinator_txns
    tid_by_pid: dict[int, str] = {}
    coord_protocol: dict[int, str] = {}
    by_epoch: dict[tuple[int, int], tuple[str, int, str, str]] = {}
    if coord is not None and not coord.empty:
        for row in coord.itertuples(index=False):
            tid_by_pid.setdefault(int(row.producer_id), row.transactional_id)
            coord_protocol.setdefault(int(row.producer_id), row.protocol)
            by_epoch[(int(row.producer_id), int(row.producer_epoch))] = (
                row.transactional_id, int(row.timeout_ms), row.ended_by, row.cause,
            )
    keys = list(zip(s["producer_id"].tolist(), s["producer_epoch"].tolist()))
    matched = [by_epoch.get(k) for k in keys]
    s["coordinator_seen"] = [m is not None for m in matched]
    s["transactional_id"] = [m[0] if m else tid_by_pid.get(k[0], "") for m, k in zip(matched, keys)]
    default_timeout = int(config["transaction.timeout.ms"])
    timeout_source = "default" if config_is_default.get("transaction.timeout.ms", True) else "config"
    s["timeout_ms"] = [m[1] if m and m[1] > 0 else default_timeout for m in matched]
    s["timeout_source"] = [("coordinator" if m and m[1] > 0 else timeout_source) for m in matched]
    coord_end = [m[2] if m else "" for m in matched]
    coord_cause = [m[3] if m else "" for m in matched]

    protocols = protocol_by_producer(s, coord_protocol, v2_possible)
    s["protocol"] = s["producer_id"].map(protocols).fillna("unknown")

    # Producer history across partitions, in time order (offset order when times are unknown).
    s["_sort_time"] = s["first_time"].where(s["first_time"] >= 0, s["end_time"])
    s = s.sort_values(["producer_id", "_sort_time", "tp", "ordinal"], kind="stable").reset_index(drop=True)
    pid = s["producer_id"]
    same_prev = pid.eq(pid.shift(1))
    same_next = pid.eq(pid.shift(-1))
    s["prev_epoch"] = np.where(same_prev, s["producer_epoch"].shift(1, fill_value=-1), -1)
    s["next_epoch"] = np.where(same_next, s["producer_epoch"].shift(-1, fill_value=-1), -1)
    end_known = s["end_time"].where(s["end_time"] >= 0, -1)
    prev_end = end_known.groupby(pid).cummax().groupby(pid).shift(1).fillna(-1).astype(np.int64)
    s["idle_before_ms"] = np.where((prev_end >= 0) & (s["first_time"] >= 0), s["first_time"] - prev_end, -1)
    next_first = s["first_time"].shift(-1, fill_value=-1)
    s["next_gap_ms"] = np.where(same_next & (next_first >= 0) & (s["end_time"] >= 0), next_first - s["end_time"], -1)
    top_epoch = np.maximum(s["producer_epoch"], s["marker_epoch"])
    prev_top = top_epoch.groupby(pid).cummax().groupby(pid).shift(1).fillna(-1).astype(np.int64)
    s["zombie"] = (s["first_time"] >= 0) & (s["producer_epoch"] >= 0) & (s["producer_epoch"] < prev_top) & (s["batches"] > 0)

    # Who ended each transaction, and why.
    s = _ended_by(s, dict(zip(keys, zip(coord_end, coord_cause))))

    s["partition_end_time"] = [
        int(now_ms) if now_ms is not None else int(partition_end.get(int(t), -1)) for t in s["tp"].tolist()
    ]
    open_ = s["state"] == "open"
    s["age_ms"] = np.where(open_ & (s["first_time"] >= 0) & (s["partition_end_time"] >= 0), s["partition_end_time"] - s["first_time"], -1)

    max_timeout = int(config["transaction.max.timeout.ms"])
    committed_long = s[s["state"] == "committed"].groupby("producer_id")["duration_ms"].max()
    timed_out = s[s["cause"] == "timeout"].groupby("producer_id")["timeout_ms"].max()
    wanted = pd.concat([committed_long, timed_out], axis=1).max(axis=1)
    s["recommended_timeout_ms"] = [recommend_timeout(int(wanted.get(p, -1)), max_timeout) for p in s["producer_id"].tolist()]
    expiration = int(config["transactional.id.expiration.ms"])
    s["recommended_expiration_ms"] = [recommend_expiration(int(i), expiration) for i in s["idle_before_ms"].tolist()]
    s["marker_file_id"] = s["marker_file_id"].where(s["marker_offset"] >= 0, -1)
    out = s[list(SPANS.columns)].copy()
    return out.sort_values(["topic", "partition", "first_offset", "producer_id"], kind="stable").reset_index(drop=True)


def _ended_by(s: pd.DataFrame, coordinator: Mapping[tuple[int, int], tuple[str, str]]) -> pd.DataFrame:
    ended_by: list[str] = []
    cause: list[str] = []
    for row in s[["producer_id", "producer_epoch", "state", "marker_code", "epoch_bump", "duration_ms",
                  "timeout_ms", "next_epoch", "marker_epoch", "protocol", "next_gap_ms"]].itertuples(index=False):
        if row.state == "open":
            ended_by.append("")
            cause.append("")
            continue
        verdict = coordinator.get((row.producer_id, row.producer_epoch), ("", ""))
        if verdict[0] == "coordinator":
            ended_by.append("coordinator")
            cause.append(verdict[1])
            continue
        if verdict[0] == "client":
            ended_by.append("producer")
            cause.append("")
            continue
        if row.marker_code == 1:
            ended_by.append("producer")
            cause.append("")
            continue
        timed_out = row.duration_ms >= 0 and row.duration_ms >= row.timeout_ms
        new_instance = row.next_epoch > row.marker_epoch >= 0
        by_coordinator = (row.protocol == "v1" and row.epoch_bump > 0) or (row.protocol != "v1" and row.marker_code == 2 and timed_out)
        if row.protocol != "v1" and row.marker_code == 2 and not timed_out and new_instance and 0 <= row.next_gap_ms <= 30_000:
            by_coordinator = True
        if by_coordinator:
            ended_by.append("coordinator")
            cause.append("timeout" if timed_out else ("new-instance" if new_instance else "coordinator-abort"))
        elif row.marker_code in (2,) or (row.marker_code == 3 and row.protocol == "v1"):
            ended_by.append("producer")
            cause.append("")
        else:
            ended_by.append("unknown")
            cause.append("")
    s = s.copy()
    s["ended_by"] = ended_by
    s["cause"] = cause
    return s
