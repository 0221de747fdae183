"""Coordinator history from __transaction_state: transactions, transactional ids, transitions.

Every state change of a transactional.id is one record. Walking them in log order per id gives
what the coordinator decided: when each transaction started (first ``Ongoing``), how it ended
(``PrepareCommit``/``PrepareAbort`` then ``Complete*``), at which epoch, and whether the abort
was the client's or the coordinator's (timeout or a new instance fencing the old one).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

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


@dataclass
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
#: The columns the walk reads.
_WALKED = ("transactional_id", "tombstone", "state", "producer_id", "producer_epoch", "last_update_ms", "record_time",
           "timeout_ms", "partitions", "start_ms", "file_id", "line", "byte")


def _time(row_update: int, row_record: int) -> int:
    return row_update if row_update >= 0 else row_record


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
    ids = ids.copy()
    fam = ids.groupby("family").agg(size=("transactional_id", "size"), once=("once_epoch0", "sum"))
    ids["family_size"] = ids["family"].map(fam["size"]).astype(int)
    ids["family_once_epoch0"] = ids["family"].map(fam["once"]).astype(int)
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
    default_timeout = int(config["transaction.timeout.ms"])
    expiration = int(config["transactional.id.expiration.ms"])
    max_timeout = int(config["transaction.max.timeout.ms"])
    cleanup = int(config["transaction.abort.timed.out.transaction.cleanup.interval.ms"])

    partitions = partitions or log_partition_values(recs, now_ms)
    part_end, compacted, global_end = partitions.end, partitions.compacted, partitions.global_end

    txns: list[_Txn] = []
    moves = _Transitions()
    ids: list[dict] = []
    n = len(recs)
    tids = recs["transactional_id"].to_numpy()
    bounds = [*np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]]).tolist(), n]  # each id's first record, then n
    g = 0
    while g < len(bounds) - 1:
        # Whole ids, about CHUNK_RECORDS records at a time, as Python values: never the whole table.
        c0, h = bounds[g], g + 1
        while h < len(bounds) - 1 and bounds[h + 1] - c0 <= CHUNK_RECORDS:
            h += 1
        (tid_c, tomb_c, state_c, pid_c, epoch_c, update_c, rtime_c, timeout_c, parts_c, start_c, file_c, line_c,
         byte_c) = (recs[c].iloc[c0:bounds[h]].tolist() for c in _WALKED)
        for i, j in zip(bounds[g:h], bounds[g + 1:h + 1]):
            tid = tid_c[i - c0]
            proto = protocols.get(tid, "unknown")
            cur: _Txn | None = None
            last_ended: _Txn | None = None
            pids: list[int] = []
            inits = tombstones = 0
            epochs: list[int] = []
            first_epoch = -1
            max_idle = -1
            idle_end = -1
            new_pid_after_idle = False
            expired_since = False
            rest_time = -1
            live_pid = -1
            prev_state: str | None = None
            prev_k = -1
            pid_switches = 0
            for k in range(i, j):
                r = k - c0
                tomb = bool(tomb_c[r])
                state = "" if tomb else state_c[r]
                pid = int(pid_c[r])
                epoch = int(epoch_c[r])
                t = _time(int(update_c[r]), int(rtime_c[r]))
                if tomb:
                    t = int(rtime_c[r]) if rtime_c[r] >= 0 else t
                if prev_k >= 0:
                    prev_t = _time(int(update_c[prev_k - c0]), int(rtime_c[prev_k - c0]))
                    valid = prev_state in VALID_PREVIOUS.get(state, frozenset()) or (
                        proto != "v1" and prev_state in V2_ONLY.get(state, frozenset())
                    )
                    if prev_state == "" and state == "Empty":
                        valid = True  # after expiration the id starts over
                    moves.add(k, prev_k, prev_state, state, valid, prev_t, t)
                if prev_k >= 0 and not tomb and prev_state != "" and pid != int(pid_c[prev_k - c0]):
                    pid_switches += 1
                # Idle time runs from the last live record at rest (no open transaction) to the next live
                # record, across any tombstone in between.
                if tomb:
                    expired_since = True
                else:
                    if rest_time >= 0 and t >= 0:
                        gap = t - rest_time
                        if gap > max_idle:
                            max_idle, idle_end = gap, t
                        if (gap > expiration or expired_since) and pid != live_pid:
                            new_pid_after_idle = True
                    live_pid = pid
                    rest_time = t if state in ("Empty", "CompleteCommit", "CompleteAbort") else -1
                    expired_since = False
                if tomb:
                    tombstones += 1
                    if cur is not None:
                        txns.append(cur)
                        cur = None
                else:
                    if pid >= 0 and pid not in pids:
                        pids.append(pid)
                    epochs.append(epoch)
                    if first_epoch < 0:
                        first_epoch = epoch
                    timeout = int(timeout_c[r]) if timeout_c[r] > 0 else default_timeout
                    parts = [p for p in str(parts_c[r]).split(",") if p]
                    if state == "Empty":
                        inits += 1
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
                        if state == "Ongoing" and cur is not None and not cur.prepare_state:
                            pass  # partitions added to the running transaction
                        else:
                            if cur is not None:
                                txns.append(cur)
                                last_ended = cur
                            start = int(start_c[r]) if start_c[r] >= 0 else (t if state == "Ongoing" else -1)
                            cur = _Txn(tid, pid, epoch, timeout, start, k)
                    if cur is not None:
                        for p in parts:
                            if p not in cur.partitions:
                                cur.partitions.append(p)
                        cur.last_state, cur.last_time, cur.last_rec = state, t, k
                        if state.startswith("Prepare"):
                            cur.prepare_state, cur.prepare_time, cur.prepare_epoch = state, t, epoch
                        elif state.startswith("Complete"):
                            cur.complete_state, cur.complete_time = state, t
                            if not cur.prepare_state:
                                cur.prepare_epoch = epoch
                            txns.append(cur)
                            last_ended = cur
                            cur = None
                prev_state, prev_k = state, k
            if cur is not None:
                txns.append(cur)
            family, shape = family_and_shape(str(tid))
            last_live = [k for k in range(i, j) if not tomb_c[k - c0]]
            lk = last_live[-1] if last_live else j - 1
            first_t = _time(int(update_c[i - c0]), int(rtime_c[i - c0]))
            last_t = _time(int(update_c[j - 1 - c0]), int(rtime_c[j - 1 - c0]))
            max_epoch = max(epochs) if epochs else -1
            # Initialised once, at epoch 0, never re-initialised (an expiry does not count against it,
            # a comeback under a new producer id does).
            once = bool(epochs) and inits <= 1 and len(pids) <= 1 and (
                (proto != "v2" and max_epoch == 0) or (proto == "v2" and inits == 1 and first_epoch == 0)
            )
            ids.append({
                "transactional_id": tid, "producer_id": int(pid_c[lk - c0]), "producer_epoch": int(epoch_c[lk - c0]),
                "producer_ids": len(pids), "pid_switches": pid_switches, "records": j - i, "inits": inits, "first_epoch": first_epoch, "max_epoch": max_epoch,
                "tombstones": tombstones, "last_state": "" if tomb_c[j - 1 - c0] else state_c[j - 1 - c0],
                "first_time": first_t, "last_time": last_t, "max_idle_ms": max_idle, "new_pid_after_idle": new_pid_after_idle,
                "idle_end_time": idle_end, "expiration_ms": expiration,
                "recommended_expiration_ms": recommend_expiration(max_idle, expiration), "family": family, "id_shape": shape,
                "family_size": 0, "family_once_epoch0": 0, "once_epoch0": once, "protocol": proto,
                "file_id": int(file_c[i - c0]), "line": int(line_c[i - c0]), "byte": int(byte_c[i - c0]),
                "end_file_id": int(file_c[j - 1 - c0]), "end_line": int(line_c[j - 1 - c0]), "end_byte": int(byte_c[j - 1 - c0]),
            })
        g = h

    id_frame = pd.DataFrame(ids)
    if combine:
        id_frame = combine_families(id_frame)

    at = {c: recs[c].to_numpy() for c in ("log_partition", "file_id", "line", "byte")}
    rows = []
    for tx in txns:
        lp = int(at["log_partition"][tx.first_rec])
        end = part_end.get(lp, global_end)
        proto = protocols.get(tx.transactional_id, "unknown")
        duration = tx.prepare_time - tx.start_time if tx.prepare_time >= 0 and tx.start_time >= 0 else -1
        bump = tx.prepare_epoch - tx.producer_epoch if tx.prepare_epoch >= 0 and tx.producer_epoch >= 0 else 0
        gap = tx.next_init_time - tx.prepare_time if tx.next_init_time >= 0 and tx.prepare_time >= 0 else -1
        ended_by, cause = "", ""
        if tx.prepare_state == "PrepareCommit" or tx.complete_state == "CompleteCommit":
            ended_by = "client"
        elif tx.prepare_state == "PrepareAbort" or tx.complete_state == "CompleteAbort":
            timed_out = duration >= 0 and duration >= tx.timeout_ms
            new_instance = 0 <= gap <= NEW_INSTANCE_WINDOW_MS and tx.next_init_epoch > tx.prepare_epoch
            if timed_out:
                ended_by, cause = "coordinator", "timeout"
            elif proto == "v1" and bump > 0:
                ended_by, cause = "coordinator", ("new-instance" if new_instance else "coordinator-abort")
            elif proto != "v1" and new_instance:
                ended_by, cause = "coordinator", "new-instance"
            elif proto == "unknown" and bump > 0:
                ended_by = "unknown"
            else:
                ended_by = "client"
        open_state = tx.last_state in ("Ongoing", "PrepareCommit", "PrepareAbort") and not tx.complete_state
        age = end - tx.last_time if tx.last_time >= 0 and end >= 0 else -1
        if tx.last_state == "Ongoing":
            deadline = (tx.start_time if tx.start_time >= 0 else tx.last_time) + tx.timeout_ms + cleanup
            stuck = open_state and end >= 0 and end > deadline
        else:
            stuck = open_state and age > tx.timeout_ms
        first_topic = tx.partitions[0].rsplit("-", 1)[0] if tx.partitions else ""
        rows.append({
            "transactional_id": tx.transactional_id, "producer_id": tx.producer_id, "producer_epoch": tx.producer_epoch,
            "topic": first_topic, "partition": -1, "partitions": ",".join(tx.partitions),
            "start_time": tx.start_time, "prepare_state": tx.prepare_state, "prepare_time": tx.prepare_time,
            "prepare_epoch": tx.prepare_epoch, "complete_state": tx.complete_state, "complete_time": tx.complete_time,
            "last_state": tx.last_state, "last_time": tx.last_time, "duration_ms": duration, "timeout_ms": tx.timeout_ms,
            "epoch_bump": bump, "protocol": proto, "ended_by": ended_by, "cause": cause,
            "next_init_time": tx.next_init_time, "next_init_epoch": tx.next_init_epoch, "next_init_gap_ms": gap,
            "evidence_end_time": end, "age_ms": age, "stuck": bool(stuck),
            "recommended_timeout_ms": 0, "max_timeout_ms": max_timeout,
            "file_id": int(at["file_id"][tx.first_rec]), "line": int(at["line"][tx.first_rec]), "byte": int(at["byte"][tx.first_rec]),
            "end_file_id": int(at["file_id"][tx.last_rec]), "end_line": int(at["line"][tx.last_rec]), "end_byte": int(at["byte"][tx.last_rec]),
        })
    txn_frame = pd.DataFrame(rows, columns=list(COORDINATOR_TXNS.columns))
    if not txn_frame.empty:
        longest = txn_frame[txn_frame["duration_ms"] >= 0].groupby("transactional_id")["duration_ms"].max().to_dict()
        txn_frame["recommended_timeout_ms"] = [
            recommend_timeout(int(longest.get(t, -1)), max_timeout) for t in txn_frame["transactional_id"]
        ]
    return {
        "coordinator_txns": txn_frame,
        "transactional_ids": id_frame[list(TRANSACTIONAL_IDS.columns)],
        "transitions": moves.frame(recs, compacted),
    }


def _per_partition(log_partitions: np.ndarray, values: Mapping[int, bool]) -> np.ndarray:
    """``values[lp]`` (False when absent) for each log partition, looked up once per distinct one."""
    distinct, where = np.unique(log_partitions, return_inverse=True)
    return np.array([bool(values.get(int(lp), False)) for lp in distinct], dtype=bool)[where]


class _Transitions:
    """The transitions found, as record positions and the few values the walk decides.

    Everything else a transition row holds is a column of one of its two records, taken at the
    end with numpy: a dict per transition cost more memory than the records themselves.
    """

    def __init__(self) -> None:
        self.later, self.earlier = array("q"), array("q")
        self.times, self.prev_times = array("q"), array("q")
        self.from_states: list[str] = []
        self.to_states: list[str] = []
        self.valid = bytearray()

    def add(self, k: int, prev_k: int, prev_state: str, state: str, valid: bool, prev_t: int, t: int) -> None:
        self.later.append(k)
        self.earlier.append(prev_k)
        self.from_states.append(prev_state)
        self.to_states.append(state)
        self.valid.append(1 if valid else 0)
        self.prev_times.append(prev_t)
        self.times.append(t)

    def frame(self, recs: pd.DataFrame, compacted: Mapping[int, bool]) -> pd.DataFrame:
        if not len(self.later):
            return pd.DataFrame(columns=list(TRANSITIONS.columns))
        later, earlier = np.frombuffer(self.later, dtype=np.int64), np.frombuffer(self.earlier, dtype=np.int64)
        times, prev = np.frombuffer(self.times, dtype=np.int64), np.frombuffer(self.prev_times, dtype=np.int64)
        at = lambda column, rows: recs[column].to_numpy()[rows].astype(np.int64)  # noqa: E731
        log_partitions = recs["log_partition"].to_numpy()[later]
        return pd.DataFrame({
            "transactional_id": recs["transactional_id"].to_numpy()[later],
            "producer_id": at("producer_id", later), "producer_epoch": at("producer_epoch", later),
            "from_state": self.from_states, "to_state": self.to_states,
            "from_epoch": at("producer_epoch", earlier), "from_producer_id": at("producer_id", earlier),
            "valid": np.frombuffer(bytes(self.valid), dtype=np.uint8).astype(bool),
            "compacted": _per_partition(log_partitions, compacted),
            "prev_time": prev, "time": times,
            "gap_ms": np.where((times >= 0) & (prev >= 0), times - prev, -1),
            "prev_file_id": at("file_id", earlier), "prev_line": at("line", earlier), "prev_byte": at("byte", earlier),
            "file_id": at("file_id", later), "line": at("line", later), "byte": at("byte", later),
        }, columns=list(TRANSITIONS.columns))


def recommend_timeout(longest_ms: int, max_timeout_ms: int) -> int:
    """A transaction.timeout.ms with headroom over the longest observed transaction.

    Twice the longest duration, rounded up to 10 s, at least the 60 s default; capped by the
    broker's transaction.max.timeout.ms only in the sense that the caller must also raise the
    broker value when this exceeds it (the rule says so). 0 when nothing was observed.
    """
    if longest_ms < 0:
        return 0
    wanted = max(60_000, -(-2 * longest_ms // 10_000) * 10_000)
    return int(wanted)


#: transactional.id.expiration.ms is an int on the broker: about 24.8 days at most.
MAX_EXPIRATION_MS = 2_147_483_647
DAY_MS = 86_400_000


def recommend_expiration(idle_ms: int, current_ms: int) -> int:
    """An expiration that outlasts the observed idle gap by a quarter, rounded up to a day."""
    if idle_ms < 0:
        return 0
    wanted = -(-(idle_ms * 5 // 4) // DAY_MS) * DAY_MS
    return int(min(MAX_EXPIRATION_MS, max(current_ms, wanted)))


def recommend_timeout_array(longest_ms: np.ndarray) -> np.ndarray:
    """Vectorised recommend_timeout."""
    wanted = np.maximum(60_000, -(-2 * longest_ms // 10_000) * 10_000)
    return np.where(longest_ms < 0, 0, wanted).astype(np.int64)


def recommend_expiration_array(idle_ms: np.ndarray, current_ms: int) -> np.ndarray:
    """Vectorised recommend_expiration."""
    wanted = -(-(idle_ms * 5 // 4) // DAY_MS) * DAY_MS
    out = np.minimum(MAX_EXPIRATION_MS, np.maximum(current_ms, wanted))
    return np.where(idle_ms < 0, 0, out).astype(np.int64)
