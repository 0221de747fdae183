"""Producer history across spans: epoch changes per producer id and per-topic populations.

Epoch changes say when a producer was re-initialised or fenced; a topic whose transactional
producer ids each write exactly one transaction at epoch 0 says its transactional.ids are made
per start (or a producer is made per transaction), which defeats fencing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .registry import EPOCH_CHANGES, TOPIC_PRODUCERS
from .runs import roll, sort_order


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
    prev_epoch = roll(epoch, 1)
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
    # One vectorised pass over all topics (a loop per topic cost ~10 ms each: 10k partitions of
    # one topic each took minutes).
    per_pid = spans.groupby(["topic", "producer_id"], sort=True).agg(
        max_epoch=("producer_epoch", "max"),
        epochs=("producer_epoch", "nunique"),
        protocol=("protocol", "first"),
    )
    # A transaction over several partitions is one span per partition: count spans per partition.
    per_pid["per_partition"] = spans.groupby(["topic", "producer_id", "partition"]).size().groupby(level=[0, 1]).max()
    single = (per_pid["epochs"] == 1) & (per_pid["max_epoch"] == 0) & (per_pid["per_partition"] == 1)
    reinit = (per_pid["max_epoch"] > 0) & (per_pid["protocol"] == "v1")
    per_pid = per_pid.assign(single=single.astype("int64"), reinit=reinit.astype("int64"),
                             multi=(~single & ~reinit).astype("int64"))
    counts = per_pid.groupby(level="topic", sort=True).agg(
        transactional_producers=("max_epoch", "size"), single_txn_epoch0=("single", "sum"),
        reinitialised=("reinit", "sum"), multi_txn_producers=("multi", "sum"))
    first_time = spans["first_time"].where(spans["first_time"] >= 0).groupby(spans["topic"], sort=True).min()
    last_time = spans["end_time"].where(spans["end_time"] >= 0).groupby(spans["topic"], sort=True).max()
    # The example is the first span in the spans table's own order, whatever order the spans came in.
    examples = (spans.sort_values(["topic", *_PARTIAL_KEY], kind="stable").drop_duplicates("topic", keep="first")
                .set_index("topic"))
    out = pd.DataFrame({
        "topic": counts.index,
        **{c: counts[c].astype("int64").to_numpy() for c in counts.columns},
        "first_time": first_time.reindex(counts.index).fillna(-1).astype("int64").to_numpy(),
        "last_time": last_time.reindex(counts.index).fillna(-1).astype("int64").to_numpy(),
        **{f"example_{k}": examples[k].reindex(counts.index).astype("int64").to_numpy() for k in _PARTIAL_KEY},
        "file_id": examples["file_id"].reindex(counts.index).astype("int64").to_numpy(),
        "line": examples["first_line"].reindex(counts.index).astype("int64").to_numpy(),
        "byte": examples["first_byte"].reindex(counts.index).astype("int64").to_numpy(),
    })
    return out[columns].reset_index(drop=True)


def combine_topic_producers(partials: list[pd.DataFrame]) -> pd.DataFrame:
    """The combine step: one ``topic_producers`` row per topic from the partials of sets of producer ids."""
    filled = [p for p in partials if len(p)]
    if not filled:
        return pd.DataFrame(columns=list(TOPIC_PRODUCERS.columns))
    frame = pd.concat(filled, ignore_index=True)
    by_topic = frame.groupby("topic", sort=True)
    sums = by_topic[["transactional_producers", "single_txn_epoch0", "reinitialised", "multi_txn_producers"]].sum()
    first = frame["first_time"].where(frame["first_time"] >= 0).groupby(frame["topic"], sort=True).min()
    last = frame["last_time"].where(frame["last_time"] >= 0).groupby(frame["topic"], sort=True).max()
    first = first.reindex(sums.index).fillna(-1).astype("int64")
    last = last.reindex(sums.index).fillna(-1).astype("int64")
    examples = (frame.sort_values(["topic", *(f"example_{k}" for k in _PARTIAL_KEY)], kind="stable")
                .drop_duplicates("topic", keep="first").set_index("topic").reindex(sums.index))
    total = sums["transactional_producers"].astype("int64")
    single = sums["single_txn_epoch0"].astype("int64")
    out = pd.DataFrame({
        "topic": sums.index,
        "transactional_producers": total.to_numpy(), "single_txn_epoch0": single.to_numpy(),
        "reinitialised": sums["reinitialised"].astype("int64").to_numpy(),
        "multi_txn_producers": sums["multi_txn_producers"].astype("int64").to_numpy(),
        "share_single": np.where(total > 0, single / total.where(total > 0, 1), 0.0).astype(float),
        "window_ms": np.where((first >= 0) & (last >= 0), last - first, -1).astype("int64"),
        "first_time": first.to_numpy(), "last_time": last.to_numpy(),
        "file_id": examples["file_id"].astype("int64").to_numpy(),
        "line": examples["line"].astype("int64").to_numpy(),
        "byte": examples["byte"].astype("int64").to_numpy(),
    })
    return out[list(TOPIC_PRODUCERS.columns)].reset_index(drop=True)
