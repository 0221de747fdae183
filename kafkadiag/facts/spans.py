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
from .coordinator import recommend_expiration_array, recommend_timeout_array
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
    default_timeout = int(config["transaction.timeout.ms"])
    timeout_source = "default" if config_is_default.get("transaction.timeout.ms", True) else "config"
    coord_protocol: dict[int, str] = {}
    s["transactional_id"] = ""
    s["coordinator_seen"] = False
    s["timeout_ms"] = default_timeout
    s["timeout_source"] = timeout_source
    s["coord_end"] = ""
    s["coord_cause"] = ""
    if coordinator_txns is not None and not coordinator_txns.empty:
        coord = coordinator_txns.drop_duplicates(["producer_id", "producer_epoch"], keep="last")
        coord_protocol = dict(zip(coord["producer_id"].astype(np.int64), coord["protocol"]))
        tid_by_pid = coord.drop_duplicates("producer_id").set_index("producer_id")["transactional_id"]
        joined = s[["producer_id", "producer_epoch"]].merge(
            coord[["producer_id", "producer_epoch", "transactional_id", "timeout_ms", "ended_by", "cause"]],
            on=["producer_id", "producer_epoch"], how="left",
        )
        seen = joined["transactional_id"].notna().to_numpy()
        s["coordinator_seen"] = seen
        s["transactional_id"] = joined["transactional_id"].fillna(s["producer_id"].map(tid_by_pid)).fillna("").to_numpy()
        known_timeout = seen & (joined["timeout_ms"].fillna(0).to_numpy() > 0)
        s["timeout_ms"] = np.where(known_timeout, joined["timeout_ms"].fillna(0).to_numpy(np.int64), default_timeout)
        s["timeout_source"] = np.where(known_timeout, "coordinator", timeout_source)
        s["coord_end"] = joined["ended_by"].fillna("").to_numpy()
        s["coord_cause"] = joined["cause"].fillna("").to_numpy()

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
    s["zombie"] = _zombie_writes(s)

    # Who ended each transaction, and why.
    s = _ended_by(s)

    if now_ms is not None:
        s["partition_end_time"] = int(now_ms)
    else:
        s["partition_end_time"] = s["tp"].map(pd.Series(partition_end, dtype=np.int64)).fillna(-1).astype(np.int64)
    open_ = s["state"] == "open"
    s["age_ms"] = np.where(open_ & (s["first_time"] >= 0) & (s["partition_end_time"] >= 0), s["partition_end_time"] - s["first_time"], -1)

    committed_long = s[s["state"] == "committed"].groupby("producer_id")["duration_ms"].max()
    timed_out = s[s["cause"] == "timeout"].groupby("producer_id")["timeout_ms"].max()
    wanted = pd.concat([committed_long, timed_out], axis=1).max(axis=1)
    longest = s["producer_id"].map(wanted).fillna(-1).to_numpy(np.int64)
    s["recommended_timeout_ms"] = recommend_timeout_array(longest)
    expiration = int(config["transactional.id.expiration.ms"])
    s["recommended_expiration_ms"] = recommend_expiration_array(s["idle_before_ms"].to_numpy(np.int64), expiration)
    s["marker_file_id"] = s["marker_file_id"].where(s["marker_offset"] >= 0, -1)
    s["orphaned"] = ""  # set by crosscheck.mark_orphaned once coordinator evidence is joined
    out = s[list(SPANS.columns)].copy()
    return out.sort_values(["topic", "partition", "first_offset", "producer_id"], kind="stable").reset_index(drop=True)


def _ended_by(s: pd.DataFrame) -> pd.DataFrame:
    """Who ended each span (producer / coordinator / unknown) and why the coordinator did.

    The coordinator's own records decide when present. Otherwise: under v1 only the coordinator
    writes a marker at a bumped epoch; under v2 every marker is bumped, so an abort counts as the
    coordinator's only when the transaction outlived its timeout or a new instance (higher epoch)
    followed within 30 s.
    """
    open_ = (s["state"] == "open").to_numpy()
    code = s["marker_code"].to_numpy()
    v1 = (s["protocol"] == "v1").to_numpy()
    duration = s["duration_ms"].to_numpy()
    timed_out = (duration >= 0) & (duration >= s["timeout_ms"].to_numpy())
    marker_epoch = s["marker_epoch"].to_numpy()
    new_instance = (s["next_epoch"].to_numpy() > marker_epoch) & (marker_epoch >= 0)
    gap = s["next_gap_ms"].to_numpy()
    abort = code == 2
    bump = s["epoch_bump"].to_numpy()
    # Under v2 the coordinator's markers always carry a bumped epoch; an ABORT at the data epoch
    # was written on an operator's request (kafka-transactions.sh abort), not by a timeout.
    v2_unbumped = (s["protocol"] == "v2").to_numpy() & (bump <= 0)
    by_coordinator = (v1 & (bump > 0)) | (~v1 & ~v2_unbumped & abort & timed_out) | (
        ~v1 & ~v2_unbumped & abort & new_instance & (gap >= 0) & (gap <= 30_000)
    )
    coord_end = s["coord_end"].to_numpy()
    coord_cause = s["coord_cause"].to_numpy()
    said_coordinator = coord_end == "coordinator"
    said_client = coord_end == "client"
    s = s.copy()
    s["ended_by"] = np.select(
        [open_, said_coordinator, said_client, code == 1, by_coordinator, abort | ((code == 3) & v1)],
        ["", "coordinator", "producer", "producer", "coordinator", "producer"],
        default="unknown",
    )
    s["cause"] = np.select(
        [open_, said_coordinator, said_client, code == 1, by_coordinator & timed_out, by_coordinator & new_instance, by_coordinator],
        ["", coord_cause, "", "", "timeout", "new-instance", "coordinator-abort"],
        default="",
    )
    return s


def _zombie_writes(s: pd.DataFrame) -> np.ndarray:
    """Spans whose first data was written after the same producer id had used a higher epoch.

    Each span contributes two facts in time: its data epoch at first_time and its marker epoch at
    marker_time. A span is a zombie write when, strictly before its first_time, some fact of the
    same producer id carried a higher epoch.
    """
    known = (s["first_time"] >= 0) & (s["producer_epoch"] >= 0) & (s["batches"] > 0)
    if not known.any():
        return np.zeros(len(s), dtype=bool)
    facts = pd.concat([
        pd.DataFrame({"producer_id": s["producer_id"], "time": s["first_time"], "epoch": s["producer_epoch"]}),
        pd.DataFrame({"producer_id": s["producer_id"], "time": s["marker_time"], "epoch": s["marker_epoch"]}),
    ], ignore_index=True)
    facts = facts[(facts["time"] >= 0) & (facts["epoch"] >= 0)].sort_values(["producer_id", "time"], kind="stable")
    facts["seen_max"] = facts.groupby("producer_id")["epoch"].cummax()
    facts = facts.drop_duplicates(["producer_id", "time"], keep="last").sort_values("time", kind="stable")
    probe = pd.DataFrame({
        "producer_id": s["producer_id"].astype(np.int64), "time": s["first_time"].astype(np.int64), "row": np.arange(len(s)),
    })[known.to_numpy()].sort_values("time", kind="stable")
    joined = pd.merge_asof(
        probe, facts[["producer_id", "time", "seen_max"]].astype(np.int64), on="time", by="producer_id",
        allow_exact_matches=False, direction="backward",
    )
    out = np.zeros(len(s), dtype=bool)
    seen = joined["seen_max"].fillna(-1).to_numpy(np.int64)
    rows = joined["row"].to_numpy()
    out[rows] = s["producer_epoch"].to_numpy(np.int64)[rows] < seen
    return out
