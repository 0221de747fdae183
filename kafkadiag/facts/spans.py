"""Transaction spans on data partitions, enriched with what the producer did before and after.

A span alone says "aborted at epoch+1"; whether that was a timeout, a second instance fencing the
first, or normal under transaction protocol v2 depends on the producer's other spans, on the
coordinator's records (when given) and on the effective timeouts. This module turns the merged
partial spans of ``batch_stream`` into the ``spans`` fact table with those answers as columns.

Everything is computed on numpy arrays and the frame is built once at the end: a gigabyte of
dump holds hundreds of thousands of spans, and growing a DataFrame column by column would copy
it over and over.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .batch_stream import MARKER_NAMES
from .coordinator import recommend_expiration_array, recommend_timeout_array
from .registry import SPANS
from .labels import select_labels
from .runs import grouped_cummax, roll, run_starts, sort_order

Arrays = dict[str, np.ndarray]

#: Under protocol v2 a new instance shows as a higher epoch this soon after the coordinator's abort.
NEW_INSTANCE_WINDOW_MS = 30_000


def _per_run(values: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Broadcast one value per run back to the rows of the run."""
    return np.repeat(values, np.diff(np.append(starts, n)))


def protocol_by_producer(
    pid: np.ndarray, epoch: np.ndarray, marker_code: np.ndarray, marker_epoch: np.ndarray,
    coordinator_protocol: Mapping[int, str], v2_possible: bool,
) -> np.ndarray:
    """v1/v2/unknown per span's producer id.

    A COMMIT marker can only be written at a bumped epoch under protocol v2 (KIP-890), and only
    at the data epoch under v1, so commits decide. Otherwise the coordinator's evidence decides,
    and dumps from Kafka older than 4.0 can only be v1.
    """
    commit = (marker_code == 1) & (epoch >= 0)
    v2 = np.unique(pid[commit & (marker_epoch > epoch)])
    v1 = np.setdiff1d(np.unique(pid[commit & (marker_epoch <= epoch)]), v2)
    out = np.full(len(pid), "unknown" if v2_possible else "v1", dtype=object)
    by_protocol: dict[str, list[int]] = {}
    for p, proto in coordinator_protocol.items():
        if proto != "unknown":
            by_protocol.setdefault(proto, []).append(p)
    for proto, pids in by_protocol.items():
        out[np.isin(pid, np.array(pids, dtype=np.int64))] = proto
    out[np.isin(pid, v1)] = "v1"
    out[np.isin(pid, v2)] = "v2"
    return out


def _join_coordinator(c: Arrays, coordinator_txns: pd.DataFrame | None, default_timeout: int, timeout_source: str) -> dict:
    """transactional.id, timeout and the coordinator's verdict per span, matched on (producer id, epoch)."""
    n = len(c["producer_id"])
    out = {
        "transactional_id": np.full(n, "", dtype=object),
        "coordinator_seen": np.zeros(n, dtype=bool),
        "timeout_ms": np.full(n, default_timeout, dtype=np.int64),
        "timeout_source": np.full(n, timeout_source, dtype=object),
        "coord_end": np.full(n, "", dtype=object),
        "coord_cause": np.full(n, "", dtype=object),
        "coord_protocol": {},
    }
    if coordinator_txns is None or coordinator_txns.empty:
        return out
    coord = coordinator_txns
    out["coord_protocol"] = dict(zip(coord["producer_id"].astype(np.int64).tolist(), coord["protocol"].tolist()))
    tid_by_pid = dict(zip(coord["producer_id"].astype(np.int64).tolist(), coord["transactional_id"].tolist()))
    joined = _match_transactions(c, coord)
    seen = joined["transactional_id"].notna().to_numpy()
    out["coordinator_seen"] = seen
    tids = joined["transactional_id"].to_numpy(dtype=object)
    fallback = np.array([tid_by_pid.get(int(p), "") for p in c["producer_id"]], dtype=object) if (~seen).any() else tids
    out["transactional_id"] = np.where(seen, tids, fallback)
    timeouts = joined["timeout_ms"].fillna(0).to_numpy(np.int64)
    known = seen & (timeouts > 0)
    out["timeout_ms"] = np.where(known, timeouts, default_timeout)
    out["timeout_source"] = select_labels([known], ["coordinator"], timeout_source)
    out["coord_end"] = joined["ended_by"].fillna("").to_numpy(dtype=object)
    out["coord_cause"] = joined["cause"].fillna("").to_numpy(dtype=object)
    return out


#: Clock skew allowed between the coordinator's and the partition leaders' timestamps.
SKEW_MS = 2_000


def _match_transactions(c: Arrays, coord: pd.DataFrame) -> pd.DataFrame:
    """For each span, the coordinator transaction it belongs to (or none), aligned with the spans.

    Under protocol v1 one producer id and epoch run many transactions, so (producer id, epoch)
    alone is ambiguous. A span with a marker belongs to the transaction whose Prepare* record is
    nearest its marker (markers are written between Prepare* and Complete*); an open span to the
    transaction whose start is nearest its first write. Matches further apart than the clock skew
    allowance plus the transaction's own length are dropped.
    """
    n = len(c["producer_id"])
    right = coord[["producer_id", "producer_epoch", "transactional_id", "timeout_ms", "ended_by", "cause",
                   "start_time", "prepare_time", "complete_time"]].copy()
    right["producer_id"] = right["producer_id"].astype(np.int64)
    right["producer_epoch"] = right["producer_epoch"].astype(np.int64)
    keys = ["producer_id", "producer_epoch"]
    base = pd.DataFrame({"producer_id": c["producer_id"].astype(np.int64), "producer_epoch": c["producer_epoch"].astype(np.int64),
                         "row": np.arange(n)})
    parts = []
    for left_time, right_time in ((c["marker_time"], "prepare_time"), (np.where(c["marker_time"] < 0, c["first_time"], -1), "start_time")):
        left = base.assign(t=np.asarray(left_time, dtype=np.int64))
        left = left[left["t"] >= 0].sort_values("t", kind="stable")
        cand = right[right[right_time] >= 0].assign(t=lambda f: f[right_time].astype(np.int64)).sort_values("t", kind="stable")
        if left.empty or cand.empty:
            continue
        m = pd.merge_asof(left, cand.drop(columns=keys).assign(**{k: cand[k] for k in keys}), on="t", by=keys,
                          direction="nearest", tolerance=SKEW_MS + 60_000)
        parts.append(m)
    matched = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["row"])
    untimed = base[(c["marker_time"] < 0) & (c["first_time"] < 0)].merge(
        right.drop_duplicates(keys, keep="last"), on=keys, how="left")
    both = pd.concat([matched, untimed], ignore_index=True).drop_duplicates("row").set_index("row")
    return both.reindex(range(n))


def build_spans(
    merged: pd.DataFrame,
    tp_keys: list[tuple[str, int]],
    partition_end: Mapping[int, int],
    coordinator_txns: pd.DataFrame | None,
    config: Mapping[str, int],
    config_is_default: Mapping[str, bool],
    v2_possible: bool,
    now_ms: int | None,
    incomplete_tps: frozenset[int] = frozenset(),
) -> pd.DataFrame:
    """The ``spans`` fact table (registry columns) from merged partial spans.

    ``merged`` is sorted by (tp, producer id, ordinal). ``incomplete_tps`` are partitions whose
    dump has offset holes (compaction, an excerpt): there an open span that its producer later
    superseded on the same partition most likely had its marker in the missing part, so it is
    "ended" rather than open.
    """
    if merged.empty:
        return pd.DataFrame(columns=list(SPANS.columns))
    c: Arrays = {name: merged[name].to_numpy() for name in merged.columns}
    n = len(c["tp"])
    tp = c["tp"].astype(np.int64)
    pid = c["producer_id"].astype(np.int64)
    has_marker = c["marker_offset"] >= 0
    epoch = c["producer_epoch"].astype(np.int64)
    epoch = np.where(epoch < 0, c["marker_epoch"], epoch)
    code = c["marker_code"].astype(np.int64)
    marker_epoch = np.where(has_marker, c["marker_epoch"], -1)
    marker_time = np.where(has_marker, c["marker_time"], -1)
    state = select_labels([~has_marker, code == 1, code == 2], ["open", "committed", "aborted"], default="ended")
    groups = run_starts(tp, pid)
    last_ordinal = _per_run(np.maximum.reduceat(c["ordinal"], groups), groups, n)
    superseded = ~has_marker & (c["ordinal"] < last_ordinal) & np.isin(tp, list(incomplete_tps))
    state[superseded] = "ended"
    first_time = np.where(c["first_time"] >= 0, c["first_time"], marker_time)
    end_time = np.where(has_marker & (marker_time >= 0), marker_time, c["last_time"])
    cols: Arrays = {
        "tp": tp, "ordinal": c["ordinal"], "producer_id": pid, "producer_epoch": epoch,
        "first_offset": c["first_offset"], "last_offset": c["last_offset"],
        "marker_offset": c["marker_offset"], "first_time": first_time, "last_time": c["last_time"],
        "marker_time": marker_time, "end_time": end_time, "state": state,
        "marker": np.array([MARKER_NAMES.get(int(x), "") for x in range(5)], dtype=object)[np.clip(code, 0, 4)],
        "marker_code": code, "marker_epoch": marker_epoch,
        "epoch_bump": np.where(has_marker & (epoch >= 0), marker_epoch - epoch, 0),
        "coordinator_epoch": np.where(has_marker, c["coordinator_epoch"], -1),
        "duration_ms": np.where((first_time >= 0) & (end_time >= 0), end_time - first_time, -1),
        "batches": c["batches"], "records": c["records"],
        "file_id": c["file_id"], "first_line": c["first_line"], "first_byte": c["first_byte"],
        "marker_file_id": np.where(has_marker, c["marker_file_id"], -1),
        "marker_line": c["marker_line"], "marker_byte": c["marker_byte"],
    }

    default_timeout = int(config["transaction.timeout.ms"])
    source = "default" if config_is_default.get("transaction.timeout.ms", True) else "config"
    joined = _join_coordinator(cols, coordinator_txns, default_timeout, source)
    coord_protocol = joined.pop("coord_protocol")
    cols.update(joined)
    cols["protocol"] = protocol_by_producer(pid, epoch, code, marker_epoch, coord_protocol, v2_possible)

    # Producer history across partitions, in time order (offset order when times are unknown).
    sort_time = np.where(first_time >= 0, first_time, end_time)
    order = sort_order((cols["ordinal"], tp, sort_time, pid))
    del c, sort_time
    for key in list(cols):  # one column at a time, so only one extra copy is alive
        cols[key] = cols[key][order]
    _history(cols)
    _ended_by(cols)

    ends = np.array([partition_end.get(i, -1) for i in range(len(tp_keys))], dtype=np.int64)
    cols["partition_end_time"] = np.full(n, int(now_ms), dtype=np.int64) if now_ms is not None else ends[cols["tp"]]
    open_ = cols["state"] == "open"
    cols["age_ms"] = np.where(open_ & (cols["first_time"] >= 0) & (cols["partition_end_time"] >= 0),
                              cols["partition_end_time"] - cols["first_time"], -1)
    _recommendations(cols, int(config["transactional.id.expiration.ms"]))
    cols["orphaned"] = np.full(n, "", dtype=object)  # set by crosscheck.mark_orphaned once coordinator evidence is joined
    cols["topic"] = np.array([k[0] for k in tp_keys], dtype=object)[cols["tp"]]
    cols["partition"] = np.array([k[1] for k in tp_keys], dtype=np.int64)[cols["tp"]]

    tp_rank = np.empty(len(tp_keys), dtype=np.int64)
    tp_rank[sorted(range(len(tp_keys)), key=lambda i: tp_keys[i])] = np.arange(len(tp_keys))
    final = sort_order((cols["producer_id"], cols["first_offset"], tp_rank[cols["tp"]]))
    out = {}
    for name in SPANS.columns:
        values = cols.pop(name)[final]
        # Text stays in plain object columns: converting to and from Arrow strings costs more than
        # the whole enrichment for a few hundred thousand spans.
        out[name] = pd.Series(values, dtype=object) if values.dtype == object else values
    cols.clear()
    return pd.DataFrame(out, copy=False)


def _history(c: Arrays) -> None:
    """prev/next epoch, idle gap before, gap after and zombie writes; rows sorted by producer and time."""
    n = len(c["producer_id"])
    pid = c["producer_id"]
    same_prev = np.zeros(n, dtype=bool)
    same_prev[1:] = pid[1:] == pid[:-1]
    same_next = np.zeros(n, dtype=bool)
    same_next[:-1] = same_prev[1:]
    epoch = c["producer_epoch"]
    c["prev_epoch"] = np.where(same_prev, roll(epoch, 1), -1)
    c["next_epoch"] = np.where(same_next, roll(epoch, -1), -1)
    end = np.where(c["end_time"] >= 0, c["end_time"], -1)
    running_end = grouped_cummax(end, run_starts(pid))
    prev_end = np.where(same_prev, roll(running_end, 1), -1)
    first = c["first_time"]
    c["idle_before_ms"] = np.where((prev_end >= 0) & (first >= 0), first - prev_end, -1)
    next_first = roll(first, -1)
    c["next_gap_ms"] = np.where(same_next & (next_first >= 0) & (c["end_time"] >= 0), next_first - c["end_time"], -1)
    c["zombie"] = _zombie_writes(c)


def _facts(c: Arrays, data: str, marker: str, spans: np.ndarray | slice = slice(None)) -> np.ndarray:
    """A column of the spans' two epoch facts: ``data`` for each span's first write, then ``marker``
    for its marker (``spans``: which spans, default all)."""
    return np.concatenate([c[data][spans], c[marker][spans]]).astype(np.int64)


def _zombie_writes(c: Arrays) -> np.ndarray:
    """Spans whose first data was written after the same producer id had used a higher epoch.

    Each span contributes two facts in time: its data epoch at first_time and its marker epoch at
    marker_time. A span is a zombie write when, strictly before its first_time, some fact of the
    same producer id on another partition carried a higher epoch. Only another partition: a broker
    refuses an older epoch on a partition that has seen a newer one, so on one partition epochs
    only grow in offset order, and a higher epoch stamped earlier there is a later write from a
    client whose clock is behind (a new instance on another host), not a zombie.
    """
    n = len(c["producer_id"])
    known = (c["first_time"] >= 0) & (c["producer_epoch"] >= 0) & (c["batches"] > 0)
    if not known.any():
        return np.zeros(n, dtype=bool)
    # Epoch facts and probes in one array sorted by (producer, time); at equal times probes come
    # first, so a probe sees only strictly earlier facts. Probes carry no epoch (-1).
    pid = c["producer_id"].astype(np.int64)
    fact_time = _facts(c, "first_time", "marker_time")
    fact_epoch = _facts(c, "producer_epoch", "marker_epoch")
    valid = (fact_time >= 0) & (fact_epoch >= 0)
    nfacts = int(valid.sum())
    rows = np.flatnonzero(known)
    # Temporaries are dropped as soon as they are used: this runs on every span at once.
    all_time = np.concatenate([fact_time[valid], c["first_time"][rows].astype(np.int64)])
    del fact_time
    all_epoch = np.concatenate([fact_epoch[valid], np.full(len(rows), -1, dtype=np.int64)])
    del fact_epoch
    all_pid = np.concatenate([np.concatenate([pid, pid])[valid], pid[rows]])
    del valid, pid
    is_fact = np.concatenate([np.ones(nfacts, dtype=np.int8), np.zeros(len(rows), dtype=np.int8)])
    order = sort_order((is_fact, all_time, all_pid))
    del all_time
    all_pid = all_pid[order]
    all_epoch = all_epoch[order]
    seen_max = grouped_cummax(all_epoch, run_starts(all_pid))
    del all_pid, all_epoch
    probe_at = np.flatnonzero(is_fact[order] == 0)
    probe_rows = rows[order[probe_at] - nfacts]
    out = np.zeros(n, dtype=bool)
    out[probe_rows] = c["producer_epoch"][probe_rows] < seen_max[probe_at]
    suspects = np.flatnonzero(out)
    if len(suspects):
        out[suspects] = _newer_epoch_elsewhere(c, suspects)
    return out


def _newer_epoch_elsewhere(c: Arrays, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows`` (spans some earlier fact outranks): was that fact on another partition?

    Checked for these rows alone, against the facts of their own producer ids: there are few of
    them (none on a healthy cluster).
    """
    pid = c["producer_id"].astype(np.int64)
    wanted = np.isin(pid, np.unique(pid[rows]))
    fact_pid = _facts(c, "producer_id", "producer_id", wanted)
    fact_tp = _facts(c, "tp", "tp", wanted)
    fact_time = _facts(c, "first_time", "marker_time", wanted)
    fact_epoch = _facts(c, "producer_epoch", "marker_epoch", wanted)
    valid = (fact_time >= 0) & (fact_epoch >= 0)
    fact_pid, fact_tp, fact_time, fact_epoch = fact_pid[valid], fact_tp[valid], fact_time[valid], fact_epoch[valid]
    order = np.argsort(fact_pid, kind="stable")
    fact_pid, fact_tp, fact_time, fact_epoch = fact_pid[order], fact_tp[order], fact_time[order], fact_epoch[order]
    out = np.zeros(len(rows), dtype=bool)
    for i, row in enumerate(rows.tolist()):
        lo, hi = np.searchsorted(fact_pid, [pid[row], pid[row] + 1])
        out[i] = bool(np.any((fact_tp[lo:hi] != c["tp"][row]) & (fact_time[lo:hi] < c["first_time"][row])
                             & (fact_epoch[lo:hi] > c["producer_epoch"][row])))
    return out


def _ended_by(c: Arrays) -> None:
    """Who ended each span (producer / coordinator / unknown) and why the coordinator did.

    The coordinator's own records decide when present. Otherwise: under v1 only the coordinator
    writes a marker at a bumped epoch; under v2 every marker is bumped, so an abort counts as the
    coordinator's only when the transaction outlived its timeout or a new instance (higher epoch)
    followed within 30 s, and an abort at the data epoch was an operator's
    (kafka-transactions.sh abort), not a timeout.
    """
    open_ = c["state"] == "open"
    code = c["marker_code"]
    v1 = c["protocol"] == "v1"
    duration = c["duration_ms"]
    timed_out = (duration >= 0) & (duration >= c["timeout_ms"])
    marker_epoch = c["marker_epoch"]
    new_instance = (c["next_epoch"] > marker_epoch) & (marker_epoch >= 0)
    gap = c["next_gap_ms"]
    abort = code == 2
    bump = c["epoch_bump"]
    v2_unbumped = (c["protocol"] == "v2") & (bump <= 0)
    by_coordinator = (v1 & (bump > 0)) | (~v1 & ~v2_unbumped & abort & timed_out) | (
        ~v1 & ~v2_unbumped & abort & new_instance & (gap >= 0) & (gap <= NEW_INSTANCE_WINDOW_MS)
    )
    said_coordinator = c["coord_end"] == "coordinator"
    said_client = c["coord_end"] == "client"
    c["ended_by"] = select_labels(
        [open_, said_coordinator, said_client, code == 1, by_coordinator, abort | ((code == 3) & v1)],
        ["", "coordinator", "producer", "producer", "coordinator", "producer"],
        default="unknown",
    )
    c["cause"] = select_labels(
        [open_, said_coordinator, said_client, code == 1, by_coordinator & timed_out, by_coordinator & new_instance, by_coordinator],
        ["", c["coord_cause"], "", "", "timeout", "new-instance", "coordinator-abort"],
        default="",
    )


def _recommendations(c: Arrays, expiration_ms: int) -> None:
    """transaction.timeout.ms fitting each producer id's longest transaction; expiration outlasting idle gaps."""
    n = len(c["producer_id"])
    starts = run_starts(c["producer_id"])
    committed = np.where(c["state"] == "committed", c["duration_ms"], -1)
    timed_out = np.where(c["cause"] == "timeout", c["timeout_ms"], -1)
    wanted = np.maximum(np.maximum.reduceat(committed, starts), np.maximum.reduceat(timed_out, starts))
    c["recommended_timeout_ms"] = recommend_timeout_array(_per_run(wanted, starts, n))
    c["recommended_expiration_ms"] = recommend_expiration_array(c["idle_before_ms"].astype(np.int64), expiration_ms)

