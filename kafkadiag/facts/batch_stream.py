"""Streaming reduction of record batches into transaction spans, sequence breaks and partition stats.

Batches arrive in chunks, in file order (offset order within a partition). Keeping every batch
would make memory grow with the input, so each chunk is reduced at once:

* transactional batches become *partial spans* keyed by (topic-partition, producer id, ordinal),
  where the ordinal counts transactions of that producer on that partition across chunks; a span
  ends at a control batch (the COMMIT/ABORT marker) and a new one starts at the next data batch
  or when the data epoch changes without a marker (a lost marker);
* consecutive data batches of one producer are compared for sequence continuity;
* per partition: first/last time, offset holes (compaction), batch counts.

Only a few values per (partition, producer) are carried between chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Mapping

import numpy as np
import pandas as pd

from .key_state import KeyState, KeyTable
from .span_spill import SpanSpill
from .runs import first_index, last_index, max_ignoring, min_ignoring, roll, run_ends, run_starts, sort_order, take_or

SEQ_MODULUS = 2**31  # producer sequences wrap from Integer.MAX_VALUE to 0

MARKER_CODES = {"": 0, "COMMIT": 1, "ABORT": 2, "UNKNOWN": 3}
MARKER_NAMES = {0: "", 1: "COMMIT", 2: "ABORT", 3: "UNKNOWN", 4: "OTHER"}

#: Columns of a partial span (and of the merged spans the stream returns).
PARTIAL_COLUMNS = (
    "tp", "producer_id", "ordinal", "chunk",
    "producer_epoch", "first_offset", "last_offset", "first_time", "last_time", "batches", "records",
    "file_id", "first_line", "first_byte",
    "marker_code", "marker_epoch", "coordinator_epoch", "marker_offset", "marker_time",
    "marker_file_id", "marker_line", "marker_byte",
)


@dataclass(slots=True)
class _Carry:
    ordinal: int
    epoch: int
    was_control: bool


@dataclass(slots=True)
class _SeqCarry:
    epoch: int
    base_sequence: int
    last_sequence: int
    last_offset: int
    time: int
    file_id: int
    line: int
    byte: int


@dataclass(slots=True)
class _SeqFirst:
    """A producer's first or second data batch on a partition in this stream (for ``merge``)."""

    epoch: int
    base_sequence: int
    last_sequence: int
    base_offset: int
    last_offset: int
    time: int
    file_id: int
    line: int
    byte: int


@dataclass(slots=True)
class PartitionStats:
    topic: str
    partition: int
    first_time: int = -1
    last_time: int = -1
    batches: int = 0
    holes: int = 0
    last_offset: int = -1
    last_file: int = -1
    files: set[int] = field(default_factory=set)
    first_offset: int = -1  # base offset and file of the first batch (for ``merge``)
    first_file: int = -1


class BatchStream:
    """Consumes BATCHES chunks; `finish()` returns merged spans, sequence breaks and partition stats."""

    #: The BATCHES columns this reduction reads; readers may leave the others out.
    COLUMNS = (
        "file_id", "line", "byte", "marker_line", "marker_byte", "topic", "partition", "base_offset",
        "last_offset", "count", "base_sequence", "last_sequence", "producer_id", "producer_epoch",
        "is_transactional", "is_control", "marker", "coordinator_epoch", "timestamp",
    )

    def __init__(self, joinable: bool = False) -> None:
        """``joinable``: keep what ``merge`` needs to append this stream to one of an earlier range."""
        self.joinable = joinable
        self.tp_keys: list[tuple[str, int]] = []
        self._tp_index: dict[tuple[str, int], int] = {}
        self._partials: list[dict[str, np.ndarray]] = []
        self._partial_rows = 0  # in memory
        self._spill: SpanSpill | None = None
        self._spill_plan: tuple[int, Callable[[np.ndarray], np.ndarray]] | None = None  # (beyond rows, shard of)
        self._sequence_rows: list[pd.DataFrame] = []
        self.partitions: dict[int, PartitionStats] = {}
        self.idempotent_producers: set[int] = set()
        self._marker_producers: set[int] = set()
        self.batches = 0
        self._chunk_no = 0
        # Per (tp, producer id): the last span and data batch, carried from chunk to chunk; and what
        # a stream that read an earlier range of the input needs to join this one (``merge``): the
        # first transactional batch (control?, epoch) and the first two data batches with a sequence.
        self._bind_keys(KeyState())

    def _bind_keys(self, keys: KeyState) -> None:
        self._keys = keys
        self._carry = KeyTable(keys, "carry", _Carry)
        self._seq_carry = KeyTable(keys, "seq", _SeqCarry)
        self._first_seq = KeyTable(keys, "first_seq", _SeqFirst)
        self._second_seq = KeyTable(keys, "second_seq", _SeqFirst)

    # ----------------------------------------------------------------------------------------
    def _tp_code(self, key: tuple[str, int]) -> int:
        code = self._tp_index.get(key)
        if code is None:
            code = self._tp_index[key] = len(self.tp_keys)
            self.tp_keys.append(key)
            self.partitions[code] = PartitionStats(*key)
        return code

    def _tp_codes(self, chunk: pd.DataFrame | Mapping[str, np.ndarray]) -> np.ndarray:
        """Global topic-partition code per row (a chunk usually holds a single partition)."""
        topic = _column(chunk, "topic")
        parts = _column(chunk, "partition", np.int64)
        if len(parts) and parts.min() == parts.max() and bool((topic == topic[0]).all()):
            # One partition (the usual chunk): no factorising, which a small input pays in full.
            return np.full(len(parts), self._tp_code((str(topic[0]), int(parts[0]))), dtype=np.int32)
        topic_codes, topics = pd.factorize(topic, sort=False)
        combined = topic_codes.astype(np.int64) * (int(parts.max()) + 2) + (parts + 1)
        keys, inverse = np.unique(combined, return_inverse=True)
        mapping = np.empty(len(keys), dtype=np.int32)
        width = int(parts.max()) + 2
        for i, key in enumerate(keys.tolist()):
            mapping[i] = self._tp_code((str(topics[key // width]), key % width - 1))
        return mapping[inverse.reshape(-1)]

    def add(self, chunk: pd.DataFrame | Mapping[str, np.ndarray]) -> None:
        """Reduce one chunk of BATCHES rows: a frame, or its columns as arrays (``ReadOptions.arrays``)."""
        rows = _rows(chunk)
        if not rows:
            return
        self.batches += rows
        self._chunk_no += 1
        tp = self._tp_codes(chunk)
        self._partition_stats(chunk, tp)
        pid = _column(chunk, "producer_id", np.int64)
        has_pid = pid >= 0
        if not has_pid.any():
            return
        is_ctrl = _column(chunk, "is_control", bool)
        # Excerpts with elided fields ("offset: 0 ... producerId: 0 ...") may not show the
        # transactional bit; a producer id that writes markers is transactional all the same.
        self._marker_producers.update(np.unique(pid[is_ctrl & has_pid]).tolist())
        is_tx = _column(chunk, "is_transactional", bool) | (
            has_pid & np.isin(pid, np.fromiter(self._marker_producers, dtype=np.int64, count=len(self._marker_producers)))
        )
        non_tx = has_pid & ~is_tx
        if non_tx.any():
            self.idempotent_producers.update(np.unique(pid[non_tx]).tolist())
        order = sort_order((pid, tp))
        order = order[has_pid[order]]
        sub = {name: _column(chunk, name)[order] for name in (
            "producer_epoch", "base_offset", "last_offset", "count", "timestamp", "file_id", "line", "byte",
            "marker", "coordinator_epoch", "marker_line", "marker_byte", "base_sequence", "last_sequence",
        )}
        sub["tp"] = tp[order]
        sub["pid"] = pid[order]
        sub["tx"] = is_tx[order]
        sub["ctrl"] = is_ctrl[order]
        self._sequences(sub)
        tx_mask = sub["tx"]
        if tx_mask.any():
            self._spans({k: v[tx_mask] for k, v in sub.items()})
        if self._partial_rows > 2_000_000:
            self.compact()

    def spill_beyond(self, rows: int, shard_of: Callable[[np.ndarray], np.ndarray]) -> None:
        """Keep partial spans on disk (:mod:`.span_spill`) once more than ``rows`` are held; ``shard_of``
        maps producer ids to shards as the fact stage's buckets will."""
        self._spill_plan = (rows, shard_of)

    @property
    def spilled(self) -> bool:
        return self._spill is not None

    def _keep_partial(self, part: dict[str, np.ndarray]) -> None:
        if self._spill is not None:
            self._spill.add(part)
            return
        self._partials.append(part)
        self._partial_rows += len(part["tp"])
        if self._spill_plan is not None and self._partial_rows > self._spill_plan[0]:
            self._spill = SpanSpill(self._spill_plan[1])
            for held in self._partials:
                self._spill.add(held)
            self._partials, self._partial_rows = [], 0

    def compact(self) -> None:
        """Combine the partial spans gathered so far into one sorted set (bounds memory, eases merging)."""
        if len(self._partials) > 1 and self._spill is None:
            self._partials = [merge_partials(_concat(self._partials))]
            self._partial_rows = len(self._partials[0]["tp"])

    # ----------------------------------------------------------------------------------------
    def _partition_stats(self, chunk: pd.DataFrame | Mapping[str, np.ndarray], tp: np.ndarray) -> None:
        order = sort_order((tp,))
        tps = tp[order]
        base = _column(chunk, "base_offset", np.int64)[order]
        last = _column(chunk, "last_offset", np.int64)[order]
        ts = _column(chunk, "timestamp", np.int64)[order]
        files = _column(chunk, "file_id", np.int64)[order]
        starts = run_starts(tps)
        ends = run_ends(starts, len(tps))
        same = np.zeros(len(tps), dtype=bool)
        same[1:] = (tps[1:] == tps[:-1]) & (files[1:] == files[:-1])
        hole = np.zeros(len(tps), dtype=bool)
        hole[1:] = same[1:] & (base[1:] != last[:-1] + 1) & (last[:-1] >= 0)
        for s, e in zip(starts.tolist(), ends.tolist()):
            stats = self.partitions[int(tps[s])]
            if not stats.batches:
                stats.first_offset, stats.first_file = int(base[s]), int(files[s])
            stats.batches += e - s + 1
            run_ts = ts[s : e + 1]
            valid = run_ts[run_ts >= 0]
            if len(valid):
                lo, hi = int(valid.min()), int(valid.max())
                stats.first_time = lo if stats.first_time < 0 else min(stats.first_time, lo)
                stats.last_time = max(stats.last_time, hi)
            stats.holes += int(hole[s : e + 1].sum())
            if stats.last_file == files[s] and stats.last_offset >= 0 and base[s] != stats.last_offset + 1:
                stats.holes += 1
            stats.last_offset = int(last[e])
            stats.last_file = int(files[e])
            stats.files.update(np.unique(files[s : e + 1]).tolist())

    # ----------------------------------------------------------------------------------------
    def _sequences(self, sub: dict[str, np.ndarray]) -> None:
        """Sequence continuity within (partition, producer id, epoch) on data batches."""
        data = ~sub["ctrl"] & (sub["base_sequence"] >= 0)
        if not data.any():
            return
        d = {k: sub[k][data] for k in (
            "tp", "pid", "producer_epoch", "base_sequence", "last_sequence", "base_offset", "last_offset",
            "timestamp", "file_id", "line", "byte",
        )}
        n = len(d["pid"])
        starts = run_starts(d["tp"], d["pid"])
        first_of_group = np.zeros(n, dtype=bool)
        first_of_group[starts] = True
        prev = {
            "epoch": roll(d["producer_epoch"].astype(np.int64), 1),
            "base_sequence": roll(d["base_sequence"], 1),
            "last_sequence": roll(d["last_sequence"], 1),
            "last_offset": roll(d["last_offset"], 1),
            "time": roll(d["timestamp"], 1),
            "file_id": roll(d["file_id"].astype(np.int64), 1),
            "line": roll(d["line"], 1),
            "byte": roll(d["byte"], 1),
        }
        has_prev = ~first_of_group
        keys = self._keys
        rows = keys.rows(d["tp"][starts], d["pid"][starts])  # one per group: a key per group
        carried = keys.has("seq", rows)
        at, held = starts[carried], rows[carried]
        has_prev[at] = True
        for name in prev:
            prev[name][at] = keys.column("seq", name)[held]
        if self.joinable:
            # A key met before whose second data batch is not known yet: this group's first is it.
            second = carried & keys.has("first_seq", rows) & ~keys.has("second_seq", rows)
            _put_first(keys, "second_seq", rows[second], d, starts[second])
            new = ~carried
            _put_first(keys, "first_seq", rows[new], d, starts[new])
            after = starts[new] + 1
            more = after < n
            more[more] = ~first_of_group[after[more]]
            _put_first(keys, "second_seq", rows[new][more], d, after[more])
        # High-water mark: the last sequence before each batch. A duplicate batch does not lower it,
        # so the batch after a duplicate is compared with what came before the duplicate.
        hw = prev["last_sequence"].copy()
        same_epoch = has_prev & (prev["epoch"] == d["producer_epoch"])
        base_seq, last_seq = d["base_sequence"], d["last_sequence"]
        dup = same_epoch & _duplicate(base_seq, last_seq, hw)
        for i in np.flatnonzero(dup).tolist():
            if i + 1 < n and not first_of_group[i + 1] and same_epoch[i + 1]:
                hw[i + 1] = hw[i]
                dup[i + 1] = _duplicate(base_seq[i + 1], last_seq[i + 1], hw[i + 1])
        ends = run_ends(starts, n)
        keys.put("seq", rows, epoch=d["producer_epoch"][ends], base_sequence=base_seq[ends],
                 last_sequence=np.where(dup[ends], hw[ends], last_seq[ends]), last_offset=d["last_offset"][ends],
                 time=d["timestamp"][ends], file_id=d["file_id"][ends], line=d["line"][ends], byte=d["byte"][ends])
        expected = (hw + 1) % SEQ_MODULUS
        broken = same_epoch & _broken(d["producer_epoch"], base_seq, expected)
        if not broken.any():
            return
        idx = np.flatnonzero(broken)
        base = d["base_sequence"][idx]
        exp = expected[idx]
        kind, missing = _break_kind(base, last_seq[idx], exp, hw[idx])
        self._sequence_rows.append(pd.DataFrame({
            "tp": d["tp"][idx], "producer_id": d["pid"][idx], "producer_epoch": d["producer_epoch"][idx].astype(np.int64),
            "kind": kind, "expected_sequence": exp, "base_sequence": base, "missing": missing,
            "prev_time": prev["time"][idx], "time": d["timestamp"][idx],
            "prev_offset": prev["last_offset"][idx], "offset": d["base_offset"][idx],
            "prev_file_id": prev["file_id"][idx], "prev_line": prev["line"][idx], "prev_byte": prev["byte"][idx],
            "file_id": d["file_id"][idx].astype(np.int64), "line": d["line"][idx], "byte": d["byte"][idx],
        }))

    # ----------------------------------------------------------------------------------------
    def _spans(self, s: dict[str, np.ndarray]) -> None:
        n = len(s["pid"])
        ctrl = s["ctrl"]
        epoch = s["producer_epoch"].astype(np.int64)
        group_starts = run_starts(s["tp"], s["pid"])
        group_first = np.zeros(n, dtype=bool)
        group_first[group_starts] = True
        prev_ctrl = roll(ctrl, 1)
        prev_epoch = roll(epoch, 1)
        new_span = prev_ctrl | (~ctrl & (epoch != prev_epoch))
        base_ordinal = np.full(n, 0, dtype=np.int64)
        keys = self._keys
        rows = keys.rows(s["tp"][group_starts], s["pid"][group_starts])
        carried = keys.has("carry", rows)
        fresh = group_starts[~carried]
        new_span[fresh] = True
        base_ordinal[fresh] = -1
        if self.joinable:
            keys.put("first_tx", rows[~carried], was_control=ctrl[fresh], epoch=epoch[fresh])
        at, held = group_starts[carried], rows[carried]
        new_span[at] = keys.column("carry", "was_control")[held] | (~ctrl[at] & (epoch[at] != keys.column("carry", "epoch")[held]))
        base_ordinal[at] = keys.column("carry", "ordinal")[held]
        # Ordinal = carried ordinal of the group + spans started so far within the group.
        cum = np.cumsum(new_span)
        group_id = np.cumsum(group_first) - 1
        cum_before_group = (cum - new_span)[group_starts]
        ordinal = base_ordinal[group_starts][group_id] + cum - cum_before_group[group_id]
        ends = run_ends(group_starts, n)
        keys.put("carry", rows, ordinal=ordinal[ends], epoch=epoch[ends], was_control=ctrl[ends])

        starts = run_starts(s["tp"], s["pid"], ordinal)
        data = ~ctrl
        first_data = first_index(data, starts)
        last_ctrl = last_index(ctrl, starts)
        ts = s["timestamp"]
        records = np.where(s["count"] >= 0, s["count"], s["last_offset"] - s["base_offset"] + 1)
        marker_code = marker_codes(s["marker"][last_ctrl[last_ctrl >= 0]])
        codes = np.zeros(len(starts), dtype=np.int8)
        codes[last_ctrl >= 0] = marker_code
        partial = {
            "tp": s["tp"][starts].astype(np.int32),
            "producer_id": s["pid"][starts],
            "ordinal": ordinal[starts],
            "chunk": np.full(len(starts), self._chunk_no, dtype=np.int64),
            "producer_epoch": take_or(epoch, first_data, -1),
            "first_offset": min_ignoring(s["base_offset"], data, starts),
            "last_offset": max_ignoring(s["last_offset"], data, starts),
            "first_time": min_ignoring(ts, data & (ts >= 0), starts),
            "last_time": max_ignoring(ts, data & (ts >= 0), starts),
            "batches": np.add.reduceat(data.astype(np.int64), starts),
            "records": np.add.reduceat(np.where(data, records, 0), starts),
            "file_id": take_or(s["file_id"].astype(np.int64), first_data),
            "first_line": take_or(s["line"], first_data),
            "first_byte": take_or(s["byte"], first_data),
            "marker_code": codes,
            "marker_epoch": take_or(epoch, last_ctrl),
            "coordinator_epoch": take_or(s["coordinator_epoch"].astype(np.int64), last_ctrl),
            "marker_offset": take_or(s["base_offset"], last_ctrl),
            "marker_time": take_or(ts, last_ctrl),
            "marker_file_id": take_or(s["file_id"].astype(np.int64), last_ctrl),
            "marker_line": np.where(take_or(s["marker_line"], last_ctrl) >= 0, take_or(s["marker_line"], last_ctrl), take_or(s["line"], last_ctrl)),
            "marker_byte": np.where(take_or(s["marker_byte"], last_ctrl) >= 0, take_or(s["marker_byte"], last_ctrl), take_or(s["byte"], last_ctrl)),
        }
        self._keep_partial(partial)

    # ----------------------------------------------------------------------------------------
    def only(self, code: int, key: tuple[str, int]) -> BatchStream:
        """A joinable stream holding only partition ``code`` of this one, renamed ``key``.

        A distributed runner joins the ranges and files of an input per topic-partition: each
        range's stream is cut into one stream per partition, and the pieces of one partition are
        merged in input order (``merge``) exactly as whole streams would be.
        """
        out = BatchStream(joinable=True)
        out._tp_code(key)
        stats = self.partitions[code]
        out.partitions[0] = replace(stats, topic=key[0], partition=key[1], files=set(stats.files))
        for part in self._partials:
            keep = part["tp"] == code
            if keep.any():
                moved = {name: values[keep] for name, values in part.items()}
                moved["tp"] = np.zeros(int(keep.sum()), dtype=np.int32)
                out._partials.append(moved)
                out._partial_rows += len(moved["tp"])
        for frame in self._sequence_rows:
            hit = frame[frame["tp"].to_numpy(np.int64) == code]
            if len(hit):
                out._sequence_rows.append(hit.assign(tp=0))

        out._bind_keys(self._keys.only(code))
        out.idempotent_producers = set(self.idempotent_producers)
        out._marker_producers = set(self._marker_producers)
        out.batches = stats.batches
        out._chunk_no = self._chunk_no
        return out

    def merge(self, later: BatchStream, line_offset: int = 0, rename: Mapping[tuple[str, int], tuple[str, int]] | None = None) -> None:
        """Append a ``joinable`` stream that read the input right after this one.

        Afterwards this stream holds what one stream reading both inputs would: ``later``'s line
        numbers are shifted by ``line_offset`` (the lines before its range of a file), its
        topic-partitions renamed through ``rename`` (a range that starts inside a section learns
        its partition from the range before), its spans numbered on from this stream's carries,
        and each producer's first batches in ``later`` checked against its last ones here.
        One case is not redone: a run of two or more duplicate batches exactly at the join.
        """
        rename = rename or {}
        code = np.array([self._tp_code(rename.get(k, k)) for k in later.tp_keys] + [0], dtype=np.int64)[:-1]
        # A range that began inside a section may meet that section's partition again under its
        # real name (a later segment of it): the renamed rows come first in the file, so they are
        # joined first and the rest continues from them.
        renamed = {i for i, k in enumerate(later.tp_keys) if k in rename}
        for tps in (renamed, set(range(len(later.tp_keys))) - renamed):
            if tps:
                self._merge_stage(later, tps, code, line_offset)
        later._partials = []
        self.idempotent_producers |= later.idempotent_producers
        self._marker_producers |= later._marker_producers
        self.batches += later.batches
        self._chunk_no += later._chunk_no

    def _merge_stage(self, later: BatchStream, tps: set[int], code: np.ndarray, line_offset: int) -> None:
        """Join the rows of ``later``'s topic-partitions ``tps`` (local codes)."""

        def joined(key: tuple[int, int]) -> tuple[int, int]:
            return int(code[key[0]]), key[1]

        wanted = np.array(sorted(tps), dtype=np.int64)
        theirs, mine = later._keys, self._keys
        # Later's spans are numbered on from this stream's last span of the same key.
        firsts = theirs.held("first_tx", wanted)
        here = mine.rows(code[theirs.tp(firsts)], theirs.pid(firsts))
        carried = mine.has("carry", here)
        starts_new = mine.column("carry", "was_control")[here] | (
            ~theirs.column("first_tx", "was_control")[firsts]
            & (theirs.column("first_tx", "epoch")[firsts] != mine.column("carry", "epoch")[here]))
        shifts = np.where(carried, mine.column("carry", "ordinal")[here] + starts_new, 0)
        shift_of_row = np.zeros(theirs.size + 1, dtype=np.int64)  # the last: keys with no row, shifted by 0
        shift_of_row[firsts] = shifts
        for part in later._partials:
            keep = np.isin(part["tp"], wanted)
            if not keep.any():
                continue
            tp = part["tp"][keep].astype(np.int64)
            pids = part["producer_id"][keep]
            offsets = shift_of_row[theirs.rows(tp, pids, make=False)]
            moved = {name: values[keep] for name, values in part.items()}
            moved["tp"] = code[tp].astype(np.int32)
            moved["ordinal"] = moved["ordinal"] + offsets
            moved["chunk"] = moved["chunk"] + self._chunk_no
            for name in ("first_line", "marker_line"):
                moved[name] = np.where(moved[name] > 0, moved[name] + line_offset, moved[name])
            self._keep_partial(moved)
        carries = theirs.held("carry", wanted)
        mine.put("carry", mine.rows(code[theirs.tp(carries)], theirs.pid(carries)),
                 ordinal=theirs.column("carry", "ordinal")[carries] + shift_of_row[carries],
                 epoch=theirs.column("carry", "epoch")[carries], was_control=theirs.column("carry", "was_control")[carries])
        self._merge_sequences(later, tps, joined, line_offset, code)
        self._merge_partitions(later, tps, code)

    def _merge_sequences(self, later: BatchStream, tps: set[int], joined, line_offset: int, code: np.ndarray) -> None:
        """Check each producer's first data batches in ``later`` against its last one here."""
        rows: list[dict] = []
        redo: set[tuple[int, int, int]] = set()  # (tp, pid, line) of later's rows replaced here
        wanted = np.array(sorted(tps), dtype=np.int64)
        theirs, mine = later._keys, self._keys
        # Only keys this stream has a last data batch of are checked, one at a time.
        firsts = theirs.held("first_seq", wanted)
        here = mine.rows(code[theirs.tp(firsts)], theirs.pid(firsts))
        both = mine.has("seq", here)
        firsts, here = firsts[both], here[both]
        raised: dict[int, int] = {}  # later's row -> the last sequence its carry takes after a duplicate at the join
        for theirs_row, key, first, carry, last, second in zip(
                firsts.tolist(), zip(theirs.tp(firsts).tolist(), theirs.pid(firsts).tolist()),
                later._first_seq.records(firsts), self._seq_carry.records(here),
                later._seq_carry.records(firsts), later._second_seq.records(firsts, missing=None)):
            gkey = joined(key)
            hw = carry.last_sequence
            prev = (carry.time, carry.last_offset, carry.file_id, carry.line, carry.byte)
            row, dup = _sequence_check(gkey, carry.epoch, hw, prev, first, line_offset)
            if row:
                rows.append(row)
            if not dup:
                continue
            if last is not None and last.line == first.line:
                raised[theirs_row] = hw
            if second is None or second.epoch != first.epoch:
                continue
            # After a duplicate the high-water mark stays where it was, so the next batch is
            # compared with it rather than with the duplicate.
            redo.add((key[0], key[1], second.line))
            prev = (first.time, first.last_offset, first.file_id, first.line + line_offset, first.byte)
            row, dup2 = _sequence_check(gkey, first.epoch, hw, prev, second, line_offset)
            if row:
                rows.append(row)
            if dup2 and last is not None and last.line == second.line:
                raised[theirs_row] = hw
        carries = theirs.held("seq", wanted)
        values = {name: theirs.column("seq", name)[carries] for name in ("epoch", "base_sequence", "last_sequence",
                                                                          "last_offset", "time", "file_id", "line", "byte")}
        if raised:
            at = np.searchsorted(carries, np.fromiter(raised, dtype=np.int64, count=len(raised)))
            values["last_sequence"] = values["last_sequence"].copy()
            values["last_sequence"][at] = np.fromiter(raised.values(), dtype=np.int64, count=len(raised))
        values["line"] = np.where(values["line"] > 0, values["line"] + line_offset, values["line"])
        mine.put("seq", mine.rows(code[theirs.tp(carries)], theirs.pid(carries)), **values)
        for frame in later._sequence_rows:
            frame = frame[np.isin(frame["tp"].to_numpy(np.int64), wanted)].copy()
            if frame.empty:
                continue
            if redo:
                keys = zip(frame["tp"].tolist(), frame["producer_id"].tolist(), frame["line"].tolist())
                frame = frame[[k not in redo for k in keys]]
            frame["tp"] = code[frame["tp"].to_numpy(np.int64)]
            for name in ("line", "prev_line"):
                frame[name] = np.where(frame[name] > 0, frame[name] + line_offset, frame[name])
            self._sequence_rows.append(frame)
        if rows:
            self._sequence_rows.append(pd.DataFrame(rows))

    def _merge_partitions(self, later: BatchStream, tps: set[int], code: np.ndarray) -> None:
        for local, theirs in later.partitions.items():
            if local in tps:
                join_partition_stats(self.partitions[int(code[local])], theirs)

    # ----------------------------------------------------------------------------------------
    @property
    def partial_rows(self) -> int:
        """Partial spans held, spilled ones included (at least as many as merged spans ``finish`` will give)."""
        return self._partial_rows + (self._spill.rows if self._spill is not None else 0)

    def finish(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Merged spans (PARTIAL_COLUMNS, sorted by partition, producer, ordinal) and sequence breaks."""
        self.drop_carries()  # before the merge allocates
        if self._spill is not None:  # read back whole: the caller did not ask for buckets
            self._partials += list(self._spill.bucket(0, 1))
            self._spill.close()
            self._spill = None
        if self._partials:
            joined = _concat(self._partials)
            self._partials, self._partial_rows = [], 0  # freed before the merge allocates its copies
            spans = pd.DataFrame(merge_partials(joined), copy=False)
            del joined
        else:
            spans = _empty_spans()
        return spans, self._finished_sequences()

    def drop_carries(self) -> None:
        """Forget what only ``merge`` and later chunks need, once the read is over: a finished
        stream takes neither, and on a run of many partitions and producers these per-key objects
        are tens of megabytes."""
        self._bind_keys(KeyState())
        self._marker_producers, self.idempotent_producers = set(), set()

    def finish_in_buckets(self, bucket_of: Callable[[np.ndarray], np.ndarray],
                          buckets: int) -> tuple[Iterator[pd.DataFrame], pd.DataFrame]:
        """As ``finish``, the merged spans one bucket of producer ids at a time (``bucket_of`` maps
        producer ids to ``0..buckets-1``); sequence breaks whole.

        A bucket's partial spans are merged when the iterator reaches it (a span's pieces share
        their producer id, so they meet in one bucket), and the stream's partials are dropped
        after the last: the run's merged spans never exist all at once. Spilled partials are read
        back from their shards (``buckets`` must then divide ``span_spill.SHARDS``).
        """
        self.drop_carries()
        parts, self._partials, self._partial_rows = self._partials, [], 0
        where = [bucket_of(p["producer_id"]) for p in parts]
        spill, self._spill = self._spill, None

        def merged() -> Iterator[pd.DataFrame]:
            for b in range(buckets):
                chosen = [{c: a[w == b] for c, a in p.items()} for p, w in zip(parts, where)]
                if spill is not None:
                    chosen += list(spill.bucket(b, buckets))
                joined = _concat(chosen) if chosen else None
                del chosen
                if joined is None or not len(joined["tp"]):
                    yield _empty_spans()
                else:
                    yield pd.DataFrame(merge_partials(joined), copy=False)
            parts.clear()
            if spill is not None:
                spill.close()

        return merged(), self._finished_sequences()

    def _finished_sequences(self) -> pd.DataFrame:
        if self._sequence_rows:
            # In input order, whatever chunks or ranges the rows were found in.
            seq = pd.concat(self._sequence_rows, ignore_index=True)
            seq = seq.sort_values(["file_id", "byte", "producer_id"], kind="stable").reset_index(drop=True)
        else:
            seq = pd.DataFrame()
        return seq


def _empty_spans() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=np.int64) for c in PARTIAL_COLUMNS})


def join_partition_stats(mine: PartitionStats, theirs: PartitionStats) -> None:
    """Add the stats of a partition's later piece (range or file) to those of what came before it."""
    if not theirs.batches:
        return
    if not mine.batches:
        mine.first_offset, mine.first_file = theirs.first_offset, theirs.first_file
        mine.first_time = theirs.first_time
    else:
        if mine.last_file == theirs.first_file and mine.last_offset >= 0 and theirs.first_offset != mine.last_offset + 1:
            mine.holes += 1
        if theirs.first_time >= 0:
            mine.first_time = theirs.first_time if mine.first_time < 0 else min(mine.first_time, theirs.first_time)
    mine.holes += theirs.holes
    mine.last_time = max(mine.last_time, theirs.last_time)
    mine.batches += theirs.batches
    mine.last_offset, mine.last_file = theirs.last_offset, theirs.last_file
    mine.files |= theirs.files


def _column(chunk: pd.DataFrame | Mapping[str, np.ndarray], name: str, dtype=None) -> np.ndarray:
    values = chunk[name]
    values = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    return values if dtype is None else values.astype(dtype, copy=False)


def _rows(chunk: pd.DataFrame | Mapping[str, np.ndarray]) -> int:
    if isinstance(chunk, pd.DataFrame):
        return len(chunk)
    return len(next(iter(chunk.values()))) if chunk else 0


def marker_codes(markers: np.ndarray) -> np.ndarray:
    """MARKER_CODES of each marker name (4 for other control types), compared column-wise."""
    codes = np.full(len(markers), 4, dtype=np.int8)
    for name, code in MARKER_CODES.items():
        codes[markers == name] = code
    return codes


def _sequence_check(
    key: tuple[int, int], prev_epoch: int, hw: int, prev: tuple[int, int, int, int, int], batch: _SeqFirst, line_offset: int
) -> tuple[dict | None, bool]:
    """The sequence test of ``BatchStream._sequences`` for one batch: (break row or None, duplicate?)."""
    base, last = batch.base_sequence, batch.last_sequence
    same_epoch = prev_epoch == batch.epoch
    dup = same_epoch and bool(_duplicate(base, last, hw))
    expected = (hw + 1) % SEQ_MODULUS
    if not (same_epoch and bool(_broken(batch.epoch, base, expected))):
        return None, dup
    kind, missing = (v.item() for v in _break_kind(base, last, expected, hw))
    prev_time, prev_offset, prev_file, prev_line, prev_byte = prev
    return {
        "tp": key[0], "producer_id": key[1], "producer_epoch": batch.epoch, "kind": kind,
        "expected_sequence": expected, "base_sequence": base, "missing": missing,
        "prev_time": prev_time, "time": batch.time, "prev_offset": prev_offset, "offset": batch.base_offset,
        "prev_file_id": prev_file, "prev_line": prev_line, "prev_byte": prev_byte,
        "file_id": batch.file_id, "line": batch.line + line_offset if batch.line > 0 else batch.line, "byte": batch.byte,
    }, dup


def _duplicate(base, last, hw):
    """A batch wholly at or below the high-water mark: a write the partition already holds."""
    return (base <= hw) & (base > 0) & (last <= hw)


def _broken(epoch, base, expected):
    """A batch that does not carry the expected sequence.

    0.11.0.0-0.11.0.1 deep dumps print no epoch: a restart (new epoch, sequence 0) looks like a reset.
    """
    return (base != expected) & np.logical_not((epoch < 0) & (base == 0))


def _break_kind(base, last, expected, prev_last):
    """Kind of each sequence break (gap, duplicate, reset) and how many sequence numbers it spans."""
    kind = np.where(base > expected, "gap", np.where((base <= prev_last) & (base > 0), "duplicate", "reset"))
    overlap = np.minimum(last, prev_last) - base + 1
    missing = np.where(kind == "gap", base - expected, np.where(kind == "duplicate", overlap, 0))
    return kind, missing


def _put_first(keys: KeyState, table: str, rows: np.ndarray, d: dict[str, np.ndarray], at: np.ndarray) -> None:
    """The data batches at ``at`` as the first (or second) of their keys, for ``merge``."""
    keys.put(table, rows, epoch=d["producer_epoch"][at], base_sequence=d["base_sequence"][at],
             last_sequence=d["last_sequence"][at], base_offset=d["base_offset"][at], last_offset=d["last_offset"][at],
             time=d["timestamp"][at], file_id=d["file_id"][at], line=d["line"][at], byte=d["byte"][at])


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([p[name] for p in parts]) for name in PARTIAL_COLUMNS}


def merge_partials(p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Combine partial spans of the same (tp, producer id, ordinal) coming from different chunks (consumes ``p``).

    The result is sorted by (tp, producer id, ordinal)."""
    if not len(p["tp"]):
        return p
    order = sort_order((p["chunk"], p["ordinal"], p["producer_id"], p["tp"]))
    cols = {c: p.pop(c)[order] for c in list(p)}  # one column at a time: one extra copy alive
    starts = run_starts(cols["tp"], cols["producer_id"], cols["ordinal"])
    if len(starts) == len(order):
        return cols
    has_data = cols["first_offset"] >= 0
    has_marker = cols["marker_offset"] >= 0
    fd = first_index(has_data, starts)
    lm = last_index(has_marker, starts)
    out = {
        "tp": cols["tp"][starts], "producer_id": cols["producer_id"][starts], "ordinal": cols["ordinal"][starts],
        "chunk": cols["chunk"][starts],
        "producer_epoch": take_or(cols["producer_epoch"], fd),
        "first_offset": min_ignoring(cols["first_offset"], has_data, starts),
        "last_offset": max_ignoring(cols["last_offset"], has_data, starts),
        "first_time": min_ignoring(cols["first_time"], cols["first_time"] >= 0, starts),
        "last_time": max_ignoring(cols["last_time"], cols["last_time"] >= 0, starts),
        "batches": np.add.reduceat(cols["batches"], starts),
        "records": np.add.reduceat(cols["records"], starts),
        "file_id": take_or(cols["file_id"], fd), "first_line": take_or(cols["first_line"], fd),
        "first_byte": take_or(cols["first_byte"], fd),
        "marker_code": take_or(cols["marker_code"], lm, 0),
    }
    for c in ("marker_epoch", "coordinator_epoch", "marker_offset", "marker_time", "marker_file_id", "marker_line", "marker_byte"):
        out[c] = take_or(cols[c], lm)
    return out
