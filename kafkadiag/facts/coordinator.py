"""Coordinator history from __transaction_state: transactions, transactional ids, transitions.

Every state change of a transactional.id is one record. Walking them in log order per id gives
what the coordinator decided: when each transaction started (first ``Ongoing``), how it ended
(``PrepareCommit``/``PrepareAbort`` then ``Complete*``), at which epoch, and whether the abort
was the client's or the coordinator's (timeout or a new instance fencing the old one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from .coordinator_columns import SortedRecords, id_columns, idle_gaps, ints_at, per_log_partition, transitions
from .id_shapes import family_and_shape
from .registry import COORDINATOR_TXNS, TRANSACTIONAL_IDS, TRANSITIONS

#: Allowed previous states of each persisted target state (reference §8.1). Keys of V2_ONLY are
#: legal only under transaction protocol v2 (Kafka 4.0+ coordinators).
VALID_PREVIOUS: dict[str, frozenset[str]] = {
    "Empty": frozenset({"Empty", "CompleteCommit", "CompleteAbort"}),
    "Ongoing": frozenset({"Ongoing", "Empty", "CompleteCommit", "CompleteAbort"}),
    "PrepareCommit": frozenset({"Ongoing"}),
    "PrepareAbort": frozenset({"Ongoing", "PrepareEpochFence"}),
    "CompleteCommit": frozenset({"PrepareCommit"}),
    "CompleteAbort": frozenset({"PrepareAbort"}),
    "": frozenset({"Empty", "CompleteCommit", "CompleteAbort"}),  # tombstone (Dead)
}
V2_ONLY: dict[str, frozenset[str]] = {"PrepareAbort": frozenset({"Empty", "CompleteCommit", "CompleteAbort"})}

#: How soon after a coordinator abort a new InitProducerId must come to count as "a new instance".
NEW_INSTANCE_WINDOW_MS = 30_000


@dataclass(slots=True)
class _Txn:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_time: int
    first_rec: int  # row index of the first record
    partitions: list[str] = field(default_factory=list)
    prepare_state: str = ""
    prepare_time: int = -1
    prepare_epoch: int = -1
    complete_state: str = ""
    complete_time: int = -1
    last_state: str = ""
    last_time: int = -1
    last_rec: int = -1
    next_init_time: int = -1
    next_init_epoch: int = -1


def _protocols(recs: pd.DataFrame) -> dict[str, str]:
    """Transaction protocol per transactional.id: v2 if the client said so or a commit bumped the epoch.

    Per id, in record order: a client transaction version of 2 says v2; else the first
    ``PrepareCommit`` after an ``Ongoing`` decides (its epoch above that ``Ongoing``'s: v2, else v1);
    else value version 0 throughout, or a client version 0, says v1; else unknown. Whole columns
    at once: a cluster's ``__transaction_state`` holds hundreds of thousands of ids.
    """
    if recs.empty:
        return {}
    codes, ids = pd.factorize(recs["transactional_id"], sort=False)
    by_id = lambda column: pd.Series(np.asarray(column)).groupby(codes, sort=False)  # noqa: E731
    said_v2 = by_id(recs["client_txn_version"] >= 2).any().to_numpy()
    state = recs["state"].to_numpy()
    epoch = recs["producer_epoch"].to_numpy()
    ongoing = by_id(recs["producer_epoch"].where(recs["state"] == "Ongoing")).ffill().to_numpy()  # latest Ongoing's epoch
    deciding = np.flatnonzero((state == "PrepareCommit") & ~np.isnan(ongoing))
    first = pd.Series(deciding).groupby(codes[deciding], sort=False).first()  # per id: the deciding record
    rows = first.to_numpy()
    v1_values = (by_id(recs["value_version"].eq(0)).all() | by_id(recs["client_txn_version"].eq(0)).any()).to_numpy()
    proto = np.where(v1_values, "v1", "unknown").astype(object)
    proto[first.index.to_numpy()] = np.where(epoch[rows] > ongoing[rows], "v2", "v1")
    proto[said_v2] = "v2"
    return dict(zip(ids.tolist(), proto.tolist()))


#: Records turned into Python values at a time by the per-id walk (whole ids; one id may exceed it).
CHUNK_RECORDS = 65_536

@dataclass(frozen=True)
class LogPartitionValues:
    """Per ``__transaction_state`` partition: where its evidence ends and whether it was compacted.

    Run-wide values every transactional.id's facts need; computed over all records first (a
    small map: one entry per coordinator partition) and handed to each group.
    """

    end: Mapping[int, int]
    compacted: Mapping[int, bool]
    global_end: int


def log_partition_summary(recs: pd.DataFrame) -> dict[int, tuple[int, list[tuple[int, int]]]]:
    """Per __transaction_state partition of some records: newest time and the offsets as intervals.

    Summaries of any split of the records join into ``log_partition_values`` of all of them
    (``join_log_partitions``): a distributed runner sends these, not the records, to the driver.
    """
    out: dict[int, tuple[int, list[tuple[int, int]]]] = {}
    for lp, g in recs.groupby("log_partition"):
        times = g["record_time"].where(g["record_time"] >= 0, g["last_update_ms"])
        offs = np.unique(g["offset"].to_numpy())
        offs = offs[offs >= 0]
        cuts = np.flatnonzero(np.diff(offs) > 1) + 1
        intervals = [(int(run[0]), int(run[-1])) for run in np.split(offs, cuts) if len(run)]
        out[int(lp)] = (int(times.max()), intervals)
    return out


def join_log_partitions(summaries, now_ms: int | None = None) -> LogPartitionValues:
    """``log_partition_values`` from the summaries of the parts of the records."""
    newest: dict[int, int] = {}
    intervals: dict[int, list[tuple[int, int]]] = {}
    for summary in summaries:
        for lp, (time, runs) in summary.items():
            newest[lp] = max(newest.get(lp, time), time)
            intervals.setdefault(lp, []).extend(runs)
    part_end = {lp: int(now_ms) if now_ms is not None else t for lp, t in newest.items()}
    compacted = {}
    for lp, runs in intervals.items():
        runs.sort()
        reach = None
        gap = False
        for start, end in runs:
            if reach is not None and start > reach + 1:
                gap = True
                break
            reach = end if reach is None else max(reach, end)
        compacted[lp] = gap
    global_end = int(now_ms) if now_ms is not None else max(part_end.values(), default=-1)
    return LogPartitionValues(part_end, compacted, global_end)


def log_partition_values(recs: pd.DataFrame, now_ms: int | None = None) -> LogPartitionValues:
    """Evidence end and compaction (offset holes) per __transaction_state partition."""
    part_end: dict[int, int] = {}
    compacted: dict[int, bool] = {}
    for lp, g in recs.groupby("log_partition"):
        times = g["record_time"].where(g["record_time"] >= 0, g["last_update_ms"])
        part_end[int(lp)] = int(now_ms) if now_ms is not None else int(times.max())
        offs = np.sort(g["offset"].to_numpy())
        offs = offs[offs >= 0]
        compacted[int(lp)] = bool(len(offs) > 1 and (np.diff(offs) > 1).any())
    global_end = int(now_ms) if now_ms is not None else max(part_end.values(), default=-1)
    return LogPartitionValues(part_end, compacted, global_end)


def combine_families(ids: pd.DataFrame) -> pd.DataFrame:
    """The combine step over all transactional ids: how big each id family is (per-start ids)."""
    if ids.empty:
        return ids
    return with_family_counts(ids, family_counts(ids))


def family_counts(ids: pd.DataFrame) -> pd.DataFrame:
    """Per family of some ids: how many ids, how many of them initialised once at epoch 0.
    The counts of any split of the ids add up (``add_family_counts``) to those of all of them."""
    return ids.groupby("family").agg(size=("transactional_id", "size"), once=("once_epoch0", "sum"))


def add_family_counts(total: pd.DataFrame | None, more: pd.DataFrame) -> pd.DataFrame:
    return more if total is None else total.add(more, fill_value=0)


def with_family_counts(ids: pd.DataFrame, counts: pd.DataFrame) -> pd.DataFrame:
    """``ids`` with the family columns from the counts of all ids."""
    ids = ids.copy()
    ids["family_size"] = ids["family"].map(counts["size"]).astype(int)
    ids["family_once_epoch0"] = ids["family"].map(counts["once"]).astype(int)
    return ids


def build_coordinator_facts(
    recs: pd.DataFrame, config: Mapping[str, int], now_ms: int | None = None,
    partitions: LogPartitionValues | None = None, combine: bool = True,
) -> dict[str, pd.DataFrame]:
    """coordinator_txns, transactional_ids and transitions from TXN_RECORDS rows.

    A function of whole transactional ids: given the run-wide ``partitions`` values, any set of
    ids gives their rows, and ``combine_families`` over the union of ``transactional_ids`` (with
    ``combine=False`` per group) completes the family columns.
    """
    if recs.empty:
        return {
            "coordinator_txns": pd.DataFrame(columns=list(COORDINATOR_TXNS.columns)),
            "transactional_ids": pd.DataFrame(columns=list(TRANSACTIONAL_IDS.columns)),
            "transitions": pd.DataFrame(columns=list(TRANSITIONS.columns)),
        }
    recs = recs.sort_values(["transactional_id", "file_id", "byte"], kind="stable").reset_index(drop=True)
    protocols = _protocols(recs)
    expiration = int(config["transactional.id.expiration.ms"])
    partitions = partitions or log_partition_values(recs, now_ms)

    rows = SortedRecords.of(recs)
    protocol_of_id = np.array([protocols.get(t, "unknown") for t in rows.ids.tolist()], dtype=object)
    moves, pid_switches = transitions(recs, rows, protocol_of_id, VALID_PREVIOUS, V2_ONLY, partitions.compacted)
    txns = _walk_transactions(recs, rows, int(config["transaction.timeout.ms"]))
    id_frame = _id_frame(recs, rows, protocol_of_id, pid_switches, expiration)
    if combine:
        id_frame = combine_families(id_frame)
    return {
        "coordinator_txns": _txn_frame(txns, recs, rows, protocol_of_id, partitions, config),
        "transactional_ids": id_frame[list(TRANSACTIONAL_IDS.columns)],
        "transitions": moves,
    }


def _walk_transactions(recs: pd.DataFrame, rows: SortedRecords, default_timeout: int) -> list[_Txn]:
    """Each id's records in order, as transactions: where one starts, what it touched, how it ended.

    Whole ids, about CHUNK_RECORDS records at a time, become Python values: never the whole table.
    """
    txns: list[_Txn] = []
    bounds = rows.starts.tolist()
    state_all = rows.state
    g = 0
    while g < len(bounds) - 1:
        c0, h = bounds[g], g + 1
        while h < len(bounds) - 1 and bounds[h + 1] - c0 <= CHUNK_RECORDS:
            h += 1
        c1 = bounds[h]
        state_c = state_all[c0:c1].tolist()
        tomb_c = rows.tomb[c0:c1].tolist()
        pid_c = rows.producer_id[c0:c1].tolist()
        epoch_c = rows.epoch[c0:c1].tolist()
        time_c = rows.moment[c0:c1].tolist()
        timeout_c, parts_c, start_c = (recs[c].iloc[c0:c1].tolist() for c in ("timeout_ms", "partitions", "start_ms"))
        tid_c = rows.ids[g:h].tolist()
        for tid, i, j in zip(tid_c, bounds[g:h], bounds[g + 1:h + 1]):
            cur: _Txn | None = None
            last_ended: _Txn | None = None
            for r in range(i - c0, j - c0):
                if tomb_c[r]:
                    if cur is not None:
                        txns.append(cur)
                        cur = None
                    continue
                state, epoch, t = state_c[r], epoch_c[r], time_c[r]
                if state == "Empty":
                    if cur is not None:
                        txns.append(cur)
                        last_ended = cur
                        cur = None
                    if last_ended is not None and last_ended.next_init_time < 0:
                        last_ended.next_init_time = t
                        last_ended.next_init_epoch = epoch
                elif state == "Ongoing" or (state.startswith("Prepare") and (cur is None or cur.prepare_state)) or (
                    state.startswith("Complete") and cur is None
                ):
                    if not (state == "Ongoing" and cur is not None and not cur.prepare_state):
                        # Not partitions added to the running transaction: a new one starts.
                        if cur is not None:
                            txns.append(cur)
                            last_ended = cur
                        timeout = timeout_c[r] if timeout_c[r] > 0 else default_timeout
                        start = start_c[r] if start_c[r] >= 0 else (t if state == "Ongoing" else -1)
                        cur = _Txn(tid, pid_c[r], epoch, timeout, start, c0 + r)
                if cur is not None:
                    touched = cur.partitions
                    for p in str(parts_c[r]).split(","):
                        if p and p not in touched:
                            touched.append(p)
                    cur.last_state, cur.last_time, cur.last_rec = state, t, c0 + r
                    if state.startswith("Prepare"):
                        cur.prepare_state, cur.prepare_time, cur.prepare_epoch = state, t, epoch
                    elif state.startswith("Complete"):
                        cur.complete_state, cur.complete_time = state, t
                        if not cur.prepare_state:
                            cur.prepare_epoch = epoch
                        txns.append(cur)
                        last_ended = cur
                        cur = None
            if cur is not None:
                txns.append(cur)
        g = h
    return txns


def _id_frame(
    recs: pd.DataFrame, rows: SortedRecords, protocol_of_id: np.ndarray, pid_switches: np.ndarray, expiration: int,
) -> pd.DataFrame:
    """One row per transactional.id: its producers, epochs, initialisations, idleness and evidence."""
    counts = id_columns(rows, protocol_of_id)
    idle = idle_gaps(rows, expiration)
    first, last = rows.starts[:-1], rows.starts[1:] - 1
    last_live = counts.pop("last_live")
    at = lambda column, where: ints_at(recs, column, where)  # noqa: E731
    families = [family_and_shape(str(t)) for t in rows.ids.tolist()]
    return pd.DataFrame({
        "transactional_id": rows.ids,
        "producer_id": rows.producer_id[last_live], "producer_epoch": rows.epoch[last_live],
        "producer_ids": counts["producer_ids"], "pid_switches": pid_switches, "records": counts["records"],
        "inits": counts["inits"], "first_epoch": counts["first_epoch"], "max_epoch": counts["max_epoch"],
        "tombstones": counts["tombstones"], "last_state": rows.state[last],
        "first_time": rows.time[first], "last_time": rows.time[last],
        "max_idle_ms": idle.longest, "new_pid_after_idle": idle.new_producer_after, "idle_end_time": idle.ended,
        "expiration_ms": np.full(rows.id_count, expiration, dtype=np.int64),
        "recommended_expiration_ms": recommend_expiration_array(idle.longest, expiration),
        "family": [f for f, _ in families], "id_shape": [s for _, s in families],
        "family_size": np.zeros(rows.id_count, dtype=np.int64), "family_once_epoch0": np.zeros(rows.id_count, dtype=np.int64),
        "once_epoch0": counts["once_epoch0"], "protocol": protocol_of_id,
        "file_id": at("file_id", first), "line": at("line", first), "byte": at("byte", first),
        "end_file_id": at("file_id", last), "end_line": at("line", last), "end_byte": at("byte", last),
    })


def _txn_frame(
    txns: list[_Txn], recs: pd.DataFrame, rows: SortedRecords, protocol_of_id: np.ndarray,
    partitions: LogPartitionValues, config: Mapping[str, int],
) -> pd.DataFrame:
    """One row per transaction: how long it ran, who ended it and why, and whether it is stuck."""
    if not txns:
        return pd.DataFrame(columns=list(COORDINATOR_TXNS.columns))
    max_timeout = int(config["transaction.max.timeout.ms"])
    cleanup = int(config["transaction.abort.timed.out.transaction.cleanup.interval.ms"])
    ints = lambda name: np.array([getattr(tx, name) for tx in txns], dtype=np.int64)  # noqa: E731
    strs = lambda name: np.array([getattr(tx, name) for tx in txns], dtype=object)  # noqa: E731
    first_rec, last_rec = ints("first_rec"), ints("last_rec")
    epoch, timeout, start = ints("producer_epoch"), ints("timeout_ms"), ints("start_time")
    prepare_state, prepare_time, prepare_epoch = strs("prepare_state"), ints("prepare_time"), ints("prepare_epoch")
    complete_state, last_state, last_time = strs("complete_state"), strs("last_state"), ints("last_time")
    next_init_time, next_init_epoch = ints("next_init_time"), ints("next_init_epoch")
    proto = protocol_of_id[rows.codes[first_rec]]
    end = per_log_partition(recs["log_partition"].to_numpy()[first_rec], partitions.end, partitions.global_end, np.int64)

    duration = np.where((prepare_time >= 0) & (start >= 0), prepare_time - start, -1)
    bump = np.where((prepare_epoch >= 0) & (epoch >= 0), prepare_epoch - epoch, 0)
    gap = np.where((next_init_time >= 0) & (prepare_time >= 0), next_init_time - prepare_time, -1)
    ended_by, cause = _enders(prepare_state, complete_state, proto, duration, timeout, bump, gap,
                              next_init_epoch > prepare_epoch)
    open_state = np.isin(last_state.astype(str), ("Ongoing", "PrepareCommit", "PrepareAbort")) & (complete_state == "")
    age = np.where((last_time >= 0) & (end >= 0), end - last_time, -1)
    deadline = np.where(start >= 0, start, last_time) + timeout + cleanup
    stuck = np.where(last_state == "Ongoing", open_state & (end >= 0) & (end > deadline), open_state & (age > timeout))
    touched = [tx.partitions for tx in txns]
    at = lambda column, where: ints_at(recs, column, where)  # noqa: E731
    frame = pd.DataFrame({
        "transactional_id": strs("transactional_id"), "producer_id": ints("producer_id"), "producer_epoch": epoch,
        "topic": [p[0].rsplit("-", 1)[0] if p else "" for p in touched], "partition": np.full(len(txns), -1, np.int64),
        "partitions": [",".join(p) for p in touched],
        "start_time": start, "prepare_state": prepare_state, "prepare_time": prepare_time,
        "prepare_epoch": prepare_epoch, "complete_state": complete_state, "complete_time": ints("complete_time"),
        "last_state": last_state, "last_time": last_time, "duration_ms": duration, "timeout_ms": timeout,
        "epoch_bump": bump, "protocol": proto, "ended_by": ended_by, "cause": cause,
        "next_init_time": next_init_time, "next_init_epoch": next_init_epoch, "next_init_gap_ms": gap,
        "evidence_end_time": end, "age_ms": age, "stuck": stuck.astype(bool),
        "recommended_timeout_ms": np.zeros(len(txns), np.int64), "max_timeout_ms": np.full(len(txns), max_timeout, np.int64),
        "file_id": at("file_id", first_rec), "line": at("line", first_rec), "byte": at("byte", first_rec),
        "end_file_id": at("file_id", last_rec), "end_line": at("line", last_rec), "end_byte": at("byte", last_rec),
    }, columns=list(COORDINATOR_TXNS.columns))
    longest = pd.Series(np.where(duration >= 0, duration, np.nan)).groupby(frame["transactional_id"].to_numpy()).transform("max")
    frame["recommended_timeout_ms"] = recommend_timeout_array(longest.fillna(-1).to_numpy(dtype=np.int64))
    return frame


def _enders(
    prepare_state: np.ndarray, complete_state: np.ndarray, proto: np.ndarray, duration: np.ndarray,
    timeout: np.ndarray, bump: np.ndarray, gap: np.ndarray, epoch_rose: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Who ended each transaction (client, coordinator, unknown) and, for the coordinator, why.

    A commit is the client's. An abort past the timeout is the coordinator's; so is one that bumped
    the epoch under protocol v1 (where only the coordinator bumps on abort), and one followed within
    NEW_INSTANCE_WINDOW_MS by an InitProducerId at a higher epoch: a new instance fenced the old.
    """
    commit = (prepare_state == "PrepareCommit") | (complete_state == "CompleteCommit")
    abort = ~commit & ((prepare_state == "PrepareAbort") | (complete_state == "CompleteAbort"))
    timed_out = (duration >= 0) & (duration >= timeout)
    new_instance = (gap >= 0) & (gap <= NEW_INSTANCE_WINDOW_MS) & epoch_rose
    v1, unknown = proto == "v1", proto == "unknown"
    cases = [abort & timed_out, abort & v1 & (bump > 0), abort & ~v1 & new_instance, abort & unknown & (bump > 0), abort]
    ended_by = np.select(cases, ["coordinator", "coordinator", "coordinator", "unknown", "client"],
                         np.where(commit, "client", "")).astype(object)
    bumped_cause = np.where(new_instance, "new-instance", "coordinator-abort")
    cause = np.select(cases[:3], ["timeout", bumped_cause, "new-instance"], "").astype(object)
    return ended_by, cause


#: transactional.id.expiration.ms is an int on the broker: about 24.8 days at most.
MAX_EXPIRATION_MS = 2_147_483_647
DAY_MS = 86_400_000


def recommend_timeout_array(longest_ms: np.ndarray) -> np.ndarray:
    """A transaction.timeout.ms with headroom over each longest observed transaction.

    Twice the longest duration, rounded up to 10 s, at least the 60 s default; capped by the
    broker's transaction.max.timeout.ms only in the sense that the caller must also raise the
    broker value when this exceeds it (the rule says so). 0 where nothing was observed (-1).
    """
    wanted = np.maximum(60_000, -(-2 * longest_ms // 10_000) * 10_000)
    return np.where(longest_ms < 0, 0, wanted).astype(np.int64)


def recommend_expiration_array(idle_ms: np.ndarray, current_ms: int) -> np.ndarray:
    """An expiration that outlasts each observed idle gap by a quarter, rounded up to a day, never
    below ``current_ms``; 0 where no gap was observed (-1)."""
    wanted = -(-(idle_ms * 5 // 4) // DAY_MS) * DAY_MS
    out = np.minimum(MAX_EXPIRATION_MS, np.maximum(current_ms, wanted))
    return np.where(idle_ms < 0, 0, out).astype(np.int64)
