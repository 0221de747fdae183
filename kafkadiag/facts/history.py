"""Producer history across spans: epoch changes per producer id and per-topic populations.

Epoch changes say when a producer was re-initialised or fenced; a topic whose transactional
producer ids each write exactly one transaction at epoch 0 says its transactional.ids are made
per start (or a producer is made per transaction), which defeats fencing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .registry import EPOCH_CHANGES, TOPIC_PRODUCERS
from .runs import sort_order


def build_epoch_changes(spans: pd.DataFrame) -> pd.DataFrame:
    """One row per change of data epoch of a producer id, in time (or offset) order.

    Under protocol v2 every transaction bumps the epoch, so v2 producers only contribute rows
    where the epoch went *down* (a write at an older epoch).
    """
    if spans.empty:
        return pd.DataFrame(columns=list(EPOCH_CHANGES.columns))
    keep = spans["batches"].to_numpy() > 0
    need = ("producer_id", "producer_epoch", "first_time", "end_time", "topic", "partition", "first_offset",
            "transactional_id", "protocol", "ended_by", "marker_epoch", "file_id", "first_line", "first_byte")
    c = {k: spans[k].to_numpy()[keep] for k in need}
    t = np.where(c["first_time"] >= 0, c["first_time"], c["end_time"])
    order = sort_order((c["first_offset"], c["partition"], t, c["producer_id"]))
    c = {k: v[order] for k, v in c.items()}
    pid, epoch = c["producer_id"], c["producer_epoch"]
    changed = np.zeros(len(pid), dtype=bool)
    changed[1:] = (pid[1:] == pid[:-1]) & (epoch[1:] != epoch[:-1])
    prev_epoch = np.roll(epoch, 1)
    changed &= (c["protocol"] != "v2") | (epoch < prev_epoch)
    idx = np.flatnonzero(changed)
    before = idx - 1
    # The previous transaction aborted by the coordinator at an epoch in between explains the jump.
    explained = (
        (c["ended_by"][before] == "coordinator")
        & (c["marker_epoch"][before] > epoch[before])
        & (c["marker_epoch"][before] < epoch[idx])
    )
    tid = np.where(c["transactional_id"][idx] != "", c["transactional_id"][idx], c["transactional_id"][before])
    cur_time, prev_time = c["first_time"][idx], c["end_time"][before]
    out = pd.DataFrame({
        "producer_id": pid[idx], "transactional_id": tid, "topic": c["topic"][idx], "partition": c["partition"][idx],
        "from_epoch": epoch[before], "producer_epoch": epoch[idx], "jump": epoch[idx] - epoch[before],
        "protocol": c["protocol"][idx], "time": cur_time, "prev_time": prev_time,
        "gap_ms": np.where((cur_time >= 0) & (prev_time >= 0), cur_time - prev_time, -1),
        "explained_by_abort": explained,
        "file_id": c["file_id"][idx], "line": c["first_line"][idx], "byte": c["first_byte"][idx],
        "prev_file_id": c["file_id"][before], "prev_line": c["first_line"][before], "prev_byte": c["first_byte"][before],
    })
    return out[list(EPOCH_CHANGES.columns)].reset_index(drop=True)


def build_topic_producers(spans: pd.DataFrame) -> pd.DataFrame:
    """Per topic: how many transactional producer ids wrote one transaction at epoch 0 and no more."""
    return combine_topic_producers([topic_producer_partials(spans)])


#: Columns of ``topic_producer_partials``: sums, extremes and the example batch's sort key.
_PARTIAL_KEY = ["producer_id", "first_offset", "partition", "marker_offset"]


def topic_producer_partials(spans: pd.DataFrame) -> pd.DataFrame:
    """Per topic, over the spans of some whole producer ids: counts to add up, extremes, an example.

    Everything per producer id is decided here (its spans are all present); what several sets of
    producer ids give is joined by ``combine_topic_producers``, a small step over one row per topic
    and set.
    """
    columns = ["topic", "transactional_producers", "single_txn_epoch0", "reinitialised", "multi_txn_producers",
               "first_time", "last_time", *(f"example_{k}" for k in _PARTIAL_KEY), "file_id", "line", "byte"]
    if spans.empty:
        return pd.DataFrame(columns=columns)
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
        # The example is the first span in the spans table's own order, whatever order g came in.
        example = g.sort_values(_PARTIAL_KEY, kind="stable").iloc[0]
        rows.append({
            "topic": topic, "transactional_producers": len(per_pid), "single_txn_epoch0": int(single.sum()),
            "reinitialised": int(reinit.sum()), "multi_txn_producers": int(multi.sum()),
            "first_time": int(times.min()) if len(times) else -1, "last_time": int(ends.max()) if len(ends) else -1,
            **{f"example_{k}": int(example[k]) for k in _PARTIAL_KEY},
            "file_id": int(example.file_id), "line": int(example.first_line), "byte": int(example.first_byte),
        })
    return pd.DataFrame(rows, columns=columns)


def combine_topic_producers(partials: list[pd.DataFrame]) -> pd.DataFrame:
    """The combine step: one ``topic_producers`` row per topic from the partials of sets of producer ids."""
    filled = [p for p in partials if len(p)]
    if not filled:
        return pd.DataFrame(columns=list(TOPIC_PRODUCERS.columns))
    frame = pd.concat(filled, ignore_index=True)
    rows = []
    for topic, g in frame.groupby("topic", sort=True):
        example = g.sort_values([f"example_{k}" for k in _PARTIAL_KEY], kind="stable").iloc[0]
        total = int(g["transactional_producers"].sum())
        single = int(g["single_txn_epoch0"].sum())
        times = g["first_time"][g["first_time"] >= 0]
        ends = g["last_time"][g["last_time"] >= 0]
        first = int(times.min()) if len(times) else -1
        last = int(ends.max()) if len(ends) else -1
        rows.append({
            "topic": topic, "transactional_producers": total, "single_txn_epoch0": single,
            "reinitialised": int(g["reinitialised"].sum()), "multi_txn_producers": int(g["multi_txn_producers"].sum()),
            "share_single": float(single) / total if total else 0.0,
            "window_ms": last - first if first >= 0 and last >= 0 else -1,
            "first_time": first, "last_time": last,
            "file_id": int(example.file_id), "line": int(example.line), "byte": int(example.byte),
        })
    return pd.DataFrame(rows, columns=list(TOPIC_PRODUCERS.columns))
