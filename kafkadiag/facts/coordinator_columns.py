"""Whole-column parts of the coordinator facts: what needs no walk of a transactional.id's records.

The records come sorted by transactional.id and log position, so each id is one run of rows and a
record's predecessor is the row before it. Transitions, record counts, epochs, producer ids and
idle gaps are then array operations over all ids at once: a cluster's ``__transaction_state``
holds hundreds of thousands of ids and millions of records, too many for a Python step per record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from .registry import TRANSITIONS

#: States at rest: no transaction open. Idle time runs from one of these to the next record.
REST_STATES = ("Empty", "CompleteCommit", "CompleteAbort")


@dataclass(frozen=True)
class SortedRecords:
    """Per-record arrays of records sorted by (transactional_id, file_id, byte).

    ``state`` is '' for tombstones; ``time`` is the record's own time (``last_update_ms``, else
    the record timestamp) and ``moment`` the time it is placed at in the walk (a tombstone's
    record timestamp when known: the update time it carries is the expired state's).
    """

    ids: np.ndarray  # object: each transactional.id once, in sorted order
    starts: np.ndarray  # first row of each id, then the row count
    codes: np.ndarray  # index into ``ids`` per record
    tomb: np.ndarray
    state: np.ndarray
    producer_id: np.ndarray
    epoch: np.ndarray
    time: np.ndarray
    moment: np.ndarray

    @classmethod
    def of(cls, recs: pd.DataFrame) -> SortedRecords:
        tids = recs["transactional_id"].to_numpy()
        n = len(tids)
        first = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]]) if n else np.zeros(0, dtype=np.int64)
        starts = np.r_[first, n].astype(np.int64)
        codes = np.repeat(np.arange(len(first), dtype=np.int64), np.diff(starts))
        tomb = recs["tombstone"].to_numpy(dtype=bool)
        update = recs["last_update_ms"].to_numpy(dtype=np.int64)
        record_time = recs["record_time"].to_numpy(dtype=np.int64)
        time = np.where(update >= 0, update, record_time)
        return cls(
            ids=tids[first], starts=starts, codes=codes, tomb=tomb,
            state=np.where(tomb, "", recs["state"].to_numpy(dtype=object)).astype(object),
            producer_id=recs["producer_id"].to_numpy(dtype=np.int64),
            epoch=recs["producer_epoch"].to_numpy(dtype=np.int64),
            time=time, moment=np.where(tomb & (record_time >= 0), record_time, time),
        )

    @property
    def id_count(self) -> int:
        return len(self.ids)

    def per_id_sum(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.codes[mask], minlength=self.id_count).astype(np.int64)


def _allowed(states: np.ndarray, table: Mapping[str, frozenset[str]]) -> np.ndarray:
    """``allowed[a, b]``: state ``states[a]`` may precede ``states[b]`` according to ``table``."""
    return np.array([[a in table.get(b, frozenset()) for b in states] for a in states], dtype=bool).reshape(
        len(states), len(states))


def transitions(
    recs: pd.DataFrame, rows: SortedRecords, protocol_of_id: np.ndarray,
    valid_previous: Mapping[str, frozenset[str]], v2_only: Mapping[str, frozenset[str]],
    compacted: Mapping[int, bool],
) -> tuple[pd.DataFrame, np.ndarray]:
    """Every change from one record of an id to its next, and the producer-id switches per id.

    A change is valid when the earlier state may precede the later one, under protocol v2 (or an
    unknown protocol) also by the v2-only moves, and always from a tombstone to ``Empty``: after
    expiration the id starts over.
    """
    later = np.flatnonzero(np.r_[False, rows.codes[1:] == rows.codes[:-1]]) if len(rows.codes) else np.zeros(0, np.int64)
    earlier = later - 1
    before, after = rows.state[earlier], rows.state[later]
    switches = ~rows.tomb[later] & (before != "") & (rows.producer_id[later] != rows.producer_id[earlier])
    pid_switches = rows.per_id_sum(later[switches])
    if not len(later):
        return pd.DataFrame(columns=list(TRANSITIONS.columns)), pid_switches
    codes, states = pd.factorize(np.r_[before, after], sort=False)
    states = np.asarray(states, dtype=object)
    a, b = codes[: len(later)], codes[len(later):]
    not_v1 = protocol_of_id[rows.codes[later]] != "v1"
    valid = _allowed(states, valid_previous)[a, b] | (not_v1 & _allowed(states, v2_only)[a, b])
    valid |= (before == "") & (after == "Empty")
    times, prev = rows.moment[later], rows.time[earlier]
    at = lambda column, where: ints_at(recs, column, where)  # noqa: E731
    frame = pd.DataFrame({
        "transactional_id": recs["transactional_id"].to_numpy()[later],
        "producer_id": rows.producer_id[later], "producer_epoch": rows.epoch[later],
        "from_state": before, "to_state": after,
        "from_epoch": rows.epoch[earlier], "from_producer_id": rows.producer_id[earlier],
        "valid": valid,
        "compacted": per_log_partition(recs["log_partition"].to_numpy()[later], compacted, False, bool),
        "prev_time": prev, "time": times,
        "gap_ms": np.where((times >= 0) & (prev >= 0), times - prev, -1),
        "prev_file_id": at("file_id", earlier), "prev_line": at("line", earlier), "prev_byte": at("byte", earlier),
        "file_id": at("file_id", later), "line": at("line", later), "byte": at("byte", later),
    }, columns=list(TRANSITIONS.columns))
    return frame, pid_switches


def per_log_partition(log_partitions: np.ndarray, values: Mapping[int, object], default: object, dtype) -> np.ndarray:
    """``values[lp]`` (``default`` when absent) for each log partition, looked up once per distinct one."""
    distinct, where = np.unique(log_partitions, return_inverse=True)
    return np.array([values.get(int(lp), default) for lp in distinct], dtype=dtype)[where]


def ints_at(recs: pd.DataFrame, column: str, rows: np.ndarray) -> np.ndarray:
    """A column's values at some record positions, as 64-bit integers (the fact tables' type)."""
    return recs[column].to_numpy()[rows].astype(np.int64)


def _first_per_id(rows: SortedRecords, mask: np.ndarray, values: np.ndarray, missing: int) -> np.ndarray:
    """Per id, ``values`` at its first record under ``mask``; ``missing`` when it has none."""
    out = np.full(rows.id_count, missing, dtype=np.int64)
    where = np.flatnonzero(mask)
    codes = rows.codes[where]
    firsts = np.r_[True, codes[1:] != codes[:-1]] if len(codes) else np.zeros(0, dtype=bool)
    out[codes[firsts]] = values[where[firsts]]
    return out


def _last_per_id(rows: SortedRecords, mask: np.ndarray, values: np.ndarray, missing: int) -> np.ndarray:
    """Per id, ``values`` at its last record under ``mask``; ``missing`` when it has none."""
    out = np.full(rows.id_count, missing, dtype=np.int64)
    where = np.flatnonzero(mask)
    codes = rows.codes[where]
    lasts = np.r_[codes[1:] != codes[:-1], True] if len(codes) else np.zeros(0, dtype=bool)
    out[codes[lasts]] = values[where[lasts]]
    return out


@dataclass(frozen=True)
class IdleGaps:
    """Per id: the longest rest between two live records, when it ended, and a comeback as a new producer."""

    longest: np.ndarray
    ended: np.ndarray
    new_producer_after: np.ndarray


def idle_gaps(rows: SortedRecords, expiration_ms: int) -> IdleGaps:
    """Idle time runs from a live record at rest (no open transaction) to the id's next live record.

    Tombstones in between do not end it: an expired id that comes back was idle all along. A
    comeback under another producer id after more than ``expiration_ms``, or after a tombstone, is
    a new producer after idleness. Gaps of -1 or less (clock steps back) never count.
    """
    live = np.flatnonzero(~rows.tomb)
    a, b = live[:-1], live[1:]
    same = rows.codes[a] == rows.codes[b]
    a, b = a[same], b[same]
    at_rest = np.logical_or.reduce([rows.state[a] == s for s in REST_STATES])
    counts = at_rest & (rows.time[a] >= 0) & (rows.time[b] >= 0)
    a, b = a[counts], b[counts]
    gap = rows.time[b] - rows.time[a]
    codes = rows.codes[b]
    longest = np.full(rows.id_count, -1, dtype=np.int64)
    np.maximum.at(longest, codes, gap)
    ended = np.full(rows.id_count, -1, dtype=np.int64)
    top = np.flatnonzero((gap > -1) & (gap == longest[codes]))
    firsts = top[np.r_[True, codes[top][1:] != codes[top][:-1]]] if len(top) else top
    ended[codes[firsts]] = rows.time[b[firsts]]
    comeback = ((gap > expiration_ms) | (b - a > 1)) & (rows.producer_id[b] != rows.producer_id[a])
    new_producer = np.zeros(rows.id_count, dtype=bool)
    new_producer[codes[comeback]] = True
    return IdleGaps(longest, ended, new_producer)


def id_columns(rows: SortedRecords, protocol_of_id: np.ndarray) -> dict[str, np.ndarray]:
    """The per-id counts and epochs of ``transactional_ids`` that are sums or firsts over records."""
    live = ~rows.tomb
    live_pid = live & (rows.producer_id >= 0)
    pairs = pd.DataFrame({"id": rows.codes[live_pid], "pid": rows.producer_id[live_pid]}).drop_duplicates()
    producer_ids = np.bincount(pairs["id"].to_numpy(), minlength=rows.id_count).astype(np.int64)
    inits = rows.per_id_sum(live & (rows.state == "Empty"))
    max_epoch = np.full(rows.id_count, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(max_epoch, rows.codes[live], rows.epoch[live])
    has_live = rows.per_id_sum(live) > 0
    max_epoch[~has_live] = -1
    # The first epoch is the first live one that is not negative; else the last live one (-1).
    first_epoch = _first_per_id(rows, live & (rows.epoch >= 0), rows.epoch, -1)
    none_set = first_epoch < 0
    first_epoch[none_set] = _last_per_id(rows, live, rows.epoch, -1)[none_set]
    v2 = protocol_of_id == "v2"
    # Initialised once, at epoch 0, never re-initialised (an expiry does not count against it,
    # a comeback under a new producer id does).
    once = has_live & (inits <= 1) & (producer_ids <= 1) & (
        (~v2 & (max_epoch == 0)) | (v2 & (inits == 1) & (first_epoch == 0)))
    last_live = _last_per_id(rows, live, np.arange(len(rows.codes), dtype=np.int64), -1)
    last_live = np.where(last_live >= 0, last_live, rows.starts[1:] - 1)
    return {
        "records": np.diff(rows.starts), "tombstones": rows.per_id_sum(rows.tomb), "inits": inits,
        "producer_ids": producer_ids, "first_epoch": first_epoch, "max_epoch": max_epoch, "once_epoch0": once,
        "last_live": last_live,
    }
