"""Producer history across spans: epoch changes per producer id and per-topic populations.

Epoch changes say when a producer was re-initialised or fenced; a topic whose transactional
producer ids each write exactly one transaction at epoch 0 says its transactional.ids are made
per start (or a producer is made per transaction), which defeats fencing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .registry import EPOCH_CHANGES, TOPIC_PRODUCERS


def build_epoch_changes(spans: pd.DataFrame) -> pd.DataFrame:
    """One row per change of data epoch of a producer id, in time (or offset) order.

    Under protocol v2 every transaction bumps the epoch, so v2 producers only contribute rows
    where the epoch went *down* (a write at an older epoch).
    """
    if spans.empty:
        return pd.DataFrame(columns=list(EPOCH_CHANGES.columns))
    s = spans[spans["batches"] > 0].copy()
    s["_t"] = s["first_time"].where(s["first_time"] >= 0, s["end_time"])
    s = s.sort_values(["producer_id", "_t", "topic", "partition", "first_offset"], kind="stable").reset_index(drop=True)
    pid = s["producer_id"]
    same = pid.eq(pid.shift(1))
    prev = s.shift(1)
    changed = same & (s["producer_epoch"] != prev["producer_epoch"])
    changed &= (s["protocol"] != "v2") | (s["producer_epoch"] < prev["producer_epoch"])
    # The previous transaction aborted by the coordinator at an epoch in between explains the jump.
    explained = (
        (prev["ended_by"] == "coordinator")
        & (prev["marker_epoch"] > prev["producer_epoch"])
        & (prev["marker_epoch"] < s["producer_epoch"])
    )
    idx = np.flatnonzero(changed.to_numpy())
    cur, before = s.iloc[idx], prev.iloc[idx]
    tid = cur["transactional_id"].where(cur["transactional_id"] != "", before["transactional_id"].fillna(""))
    out = pd.DataFrame({
        "producer_id": cur["producer_id"].astype(np.int64), "transactional_id": tid,
        "topic": cur["topic"], "partition": cur["partition"].astype(np.int64),
        "from_epoch": before["producer_epoch"].astype(np.int64), "producer_epoch": cur["producer_epoch"].astype(np.int64),
        "jump": (cur["producer_epoch"] - before["producer_epoch"]).astype(np.int64), "protocol": cur["protocol"],
        "time": cur["first_time"].astype(np.int64), "prev_time": before["end_time"].astype(np.int64),
        "gap_ms": np.where((cur["first_time"] >= 0) & (before["end_time"] >= 0), cur["first_time"] - before["end_time"], -1),
        "explained_by_abort": explained.iloc[idx].astype(bool),
        "file_id": cur["file_id"].astype(np.int64), "line": cur["first_line"].astype(np.int64), "byte": cur["first_byte"].astype(np.int64),
        "prev_file_id": before["file_id"].astype(np.int64), "prev_line": before["first_line"].astype(np.int64),
        "prev_byte": before["first_byte"].astype(np.int64),
    })
    return out[list(EPOCH_CHANGES.columns)].reset_index(drop=True)


def build_topic_producers(spans: pd.DataFrame) -> pd.DataFrame:
    """Per topic: how many transactional producer ids wrote one transaction at epoch 0 and no more."""
    if spans.empty:
        return pd.DataFrame(columns=list(TOPIC_PRODUCERS.columns))
    rows = []
    for topic, g in spans.groupby("topic", sort=True):
        per_pid = g.groupby("producer_id").agg(
            max_epoch=("producer_epoch", "max"),
            epochs=("producer_epoch", "nunique"),
            protocol=("protocol", "first"),
        )
        # A transaction over several partitions is one span per partition: count spans per partition.
        per_partition = g.groupby(["producer_id", "partition"]).size().groupby(level=0).max()
        single = (per_pid["epochs"] == 1) & (per_pid["max_epoch"] == 0) & (per_partition == 1)
        reinit = (per_pid["max_epoch"] > 0) & (per_pid["protocol"] == "v1")
        multi = ~single & ~reinit
        times = g["first_time"][g["first_time"] >= 0]
        ends = g["end_time"][g["end_time"] >= 0]
        first = int(times.min()) if len(times) else -1
        last = int(ends.max()) if len(ends) else -1
        example = g.iloc[0]
        total = len(per_pid)
        rows.append({
            "topic": topic, "transactional_producers": total, "single_txn_epoch0": int(single.sum()),
            "reinitialised": int(reinit.sum()), "multi_txn_producers": int(multi.sum()),
            "share_single": float(single.sum()) / total if total else 0.0,
            "window_ms": last - first if first >= 0 and last >= 0 else -1,
            "first_time": first, "last_time": last,
            "file_id": int(example.file_id), "line": int(example.first_line), "byte": int(example.first_byte),
        })
    return pd.DataFrame(rows, columns=list(TOPIC_PRODUCERS.columns))
