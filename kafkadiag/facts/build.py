"""From collected events to every fact table the rules read.

``CollectedEvents`` is what streaming the inputs leaves behind (reduced batches, coordinator
records, snapshot and txnindex rows); ``build_fact_tables`` is a pure function of it, the
effective config and ``--now``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Callable, Iterator, Mapping

import numpy as np
import pandas as pd

from ..tables import ABORTED_TXNS, LOG_EVENTS, SNAPSHOT_ENTRIES, TXN_RECORDS, TXN_TOPIC
from .batch_stream import BatchStream
from .coordinator import LogPartitionValues, join_log_partitions, log_partition_summary
from .parked import Parked
from .span_spill import RecordSpill
from .stages import RunValues, coordinator_facts, producer_facts, run_values, topic_facts


@dataclass
class CollectedEvents:
    batches: BatchStream = field(default_factory=BatchStream)
    txn_records: list[pd.DataFrame] = field(default_factory=list)
    snapshots: list[pd.DataFrame] = field(default_factory=list)
    aborted: list[pd.DataFrame] = field(default_factory=list)
    log_events: list[pd.DataFrame] = field(default_factory=list)
    #: The grouped log rules' group sizes when ``log_events`` holds only the rows their findings
    #: show (``engine.log_compact``); None when it holds every row.
    log_counts: dict | None = None
    #: Coordinator records beyond the plan's count wait on disk by transactional.id (``spill_records_beyond``).
    record_spill: RecordSpill | None = None
    _record_plan: tuple[int, Callable[[np.ndarray], np.ndarray]] | None = None
    _records_held: int = 0
    _record_summaries: list = field(default_factory=list)
    #: A range reader's records beyond a count wait in a file (``park_records_beyond``).
    _park_beyond: int | None = None
    _parked: Parked | None = None

    def merge(self, later: CollectedEvents, line_offset: int = 0, rename: dict[tuple[str, int], tuple[str, int]] | None = None) -> None:
        """Append what reading the next range of the input collected (see ``BatchStream.merge``)."""
        self.batches.merge(later.batches, line_offset, rename)
        parked = later._parked.read() if later._parked is not None else ()
        for frame in chain(parked, later.txn_records):
            self._add_records(_shifted(frame, line_offset, rename or {}))
        for mine, theirs in ((self.snapshots, later.snapshots), (self.aborted, later.aborted),
                             (self.log_events, later.log_events)):
            mine.extend(_shifted(frame, line_offset, rename or {}) for frame in theirs)

    def add(self, table: str, chunk: pd.DataFrame) -> None:
        if table == "batches":
            self.batches.add(chunk)
        elif table == "txn_records":
            self._add_records(chunk)
        elif table == "snapshot_entries":
            self.snapshots.append(chunk)
        elif table == "aborted_txns":
            self.aborted.append(chunk)
        elif table == "log_events":
            self.log_events.append(chunk)

    def spill_records_beyond(self, rows: int, shard_of: Callable[[np.ndarray], np.ndarray]) -> None:
        """Keep coordinator records on disk once more than ``rows`` are held; ``shard_of`` maps
        transactional ids to shards as the fact stage's buckets will (:mod:`.span_spill`)."""
        self._record_plan = (rows, shard_of)

    def _add_records(self, chunk: pd.DataFrame) -> None:
        if self.record_spill is not None:
            self._spill_records(chunk)
            return
        self.txn_records.append(chunk)
        self._records_held += len(chunk)
        if self._record_plan is not None and self._records_held > self._record_plan[0]:
            self.record_spill = RecordSpill(self._record_plan[1])
            held, self.txn_records, self._records_held = self.txn_records, [], 0
            for frame in held:
                self._spill_records(frame)
        elif self._parked is not None and self._records_held > self._park_beyond:  # type: ignore[operator]
            self._parked.add(*self.txn_records)
            self.txn_records, self._records_held = [], 0

    def park_records_beyond(self, rows: int, folder: str) -> None:
        """Keep the coordinator records beyond ``rows`` in a file in ``folder`` until ``merge``
        takes them: a range reader (another process) would hold half a cluster's records until
        its range is joined."""
        self._park_beyond, self._parked = rows, Parked(folder, "coordinator records", 300)

    def _spill_records(self, chunk: pd.DataFrame) -> None:
        # What the run-wide values need of the records (each log partition's end and holes) is
        # summed up as they go to disk: the records are read back one bucket at a time.
        self._record_summaries.append(log_partition_summary(chunk))
        self.record_spill.add({c: chunk[c].to_numpy() for c in chunk.columns})  # type: ignore[union-attr]

    @property
    def record_count(self) -> int:
        """Coordinator records collected, spilled ones included."""
        return sum(len(c) for c in self.txn_records) + (self.record_spill.rows if self.record_spill else 0)

    def spilled_log_partitions(self, now_ms: int | None) -> LogPartitionValues:
        """The run-wide values of spilled records' log partitions, from their summaries."""
        return join_log_partitions(self._record_summaries, now_ms)

    def record_buckets(self, buckets: int) -> Iterator[pd.DataFrame]:
        """The spilled records, one bucket of transactional ids at a time (``buckets`` divides the
        spill's shards); the spill is removed after the last."""
        spill, self.record_spill = self.record_spill, None
        if spill is None:
            return
        try:
            for b in range(buckets):
                parts = list(spill.bucket(b, buckets))
                if parts:
                    yield pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in parts[0]}, copy=False)
                del parts
        finally:
            spill.close()


def _shifted(frame: pd.DataFrame, line_offset: int, rename: dict[tuple[str, int], tuple[str, int]]) -> pd.DataFrame:
    """Event rows of a later range: line numbers counted from the file's start, partitions renamed."""
    frame = frame.copy()
    for name in frame.columns:
        if name == "line" or name.endswith("_line"):
            frame[name] = np.where(frame[name] > 0, frame[name] + line_offset, frame[name])
    if rename and "topic" in frame.columns and "partition" in frame.columns:
        for (topic, partition), (new_topic, new_partition) in rename.items():
            hit = (frame["topic"] == topic) & (frame["partition"] == partition)
            frame.loc[hit, "topic"] = new_topic
            frame.loc[hit, "partition"] = new_partition
    if rename and "log_partition" in frame.columns:  # coordinator records name their partition only
        for (topic, partition), (new_topic, new_partition) in rename.items():
            if topic == TXN_TOPIC and new_topic == TXN_TOPIC:
                frame.loc[frame["log_partition"] == partition, "log_partition"] = new_partition
    return frame


def _concat(chunks: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(chunks, ignore_index=True) if chunks else empty


#: Words a message holding a credential contains (lower case); only those messages go through ``mask_secrets``.
SECRET_HINTS = ("passw", "jaas", "user.info", "secret", "token")


def masked_messages(logs: pd.DataFrame) -> pd.DataFrame:
    """Credentials in log messages masked as they are in configs: rule messages quote them."""
    from ..lint.secrets import mask_secrets

    if logs.empty or "message" not in logs.columns:
        return logs
    text = logs["message"].fillna("").astype(str)
    hit = _rows_containing(text.tolist(), SECRET_HINTS)
    if hit.any():
        logs = logs.copy()
        logs.loc[hit, "message"] = text[hit].map(mask_secrets)
    return logs


def _rows_containing(texts: list[str], words: tuple[str, ...]) -> np.ndarray:
    """Mask of the texts that contain one of ``words`` (lower case), in any case.

    One pass over the texts joined, not a regex per row: a hundred thousand log messages cost
    milliseconds instead of a quarter of a second.
    """
    joined = "\n".join(texts).lower()  # lower() keeps the length of ASCII text, not of all text
    hit = np.zeros(len(texts), dtype=bool)
    if len(joined) != sum(map(len, texts)) + max(0, len(texts) - 1):
        for i, t in enumerate(texts):
            low = t.lower()
            hit[i] = any(w in low for w in words)
        return hit
    ends = np.cumsum([len(t) + 1 for t in texts])
    for word in words:
        at = joined.find(word)
        while at >= 0:
            row = int(np.searchsorted(ends, at, side="right"))
            hit[row] = True
            at = joined.find(word, int(ends[row]))  # the rest of this row is decided
    return hit


def with_subject_label(logs: pd.DataFrame) -> pd.DataFrame:
    """Add ``who``: the best name for an event's subject, so messages never read "producer  ()";
    credentials in messages are masked on the way (both engines prepare log events here)."""
    logs = masked_messages(logs).copy()
    if logs.empty:
        logs["who"] = pd.Series(dtype=object)
        return logs
    tid = logs["transactional_id"].fillna("").astype(str)
    client = logs["client_id"].fillna("").astype(str)
    pid = logs["producer_id"].astype("int64")
    label = "the " + logs["source"].fillna("").astype(str).replace("", "log")
    label = label.where(pid < 0, "producer id " + pid.astype(str))
    label = label.where(client == "", "client " + client)
    with_tid = "transactional.id " + tid + client.where(client == "", " (client " + client + ")")
    return logs.assign(who=label.where(tid == "", with_tid).astype(object))


@dataclass
class FactInputs:
    """What every fact stage starts from: the run-wide values, the coordinator's records and the
    batch reduction, to be built whole or in buckets (of id families and of producer ids)."""

    records: pd.DataFrame  # empty when they wait on disk (``records_spilled``)
    snapshots: pd.DataFrame
    aborted: pd.DataFrame
    run: RunValues
    stream: BatchStream
    record_rows: int = 0  # coordinator records, spilled ones included
    records_spilled: bool = False


def fact_inputs(
    events: CollectedEvents,
    config: Mapping[str, int],
    config_is_default: Mapping[str, bool],
    v2_possible: bool,
    now_ms: int | None = None,
) -> FactInputs:
    """The run-wide values, from the partition stats and the coordinator records."""
    records = _concat(events.txn_records, TXN_RECORDS.empty())
    events.txn_records[:] = [records] if len(records) else []  # the same rows, held once (not as chunks and a copy)
    snapshots = _concat(events.snapshots, SNAPSHOT_ENTRIES.empty())
    aborted = _concat(events.aborted, ABORTED_TXNS.empty())
    stream = events.batches
    spilled = events.spilled_log_partitions(now_ms) if events.record_spill is not None else None
    run = run_values(stream, records, config, config_is_default, v2_possible, now_ms, spilled)
    return FactInputs(records, snapshots, aborted, run, stream, events.record_count, events.record_spill is not None)


def log_facts(events: CollectedEvents) -> pd.DataFrame:
    """The log events as the rules read them (subject labels, masked credentials)."""
    return with_subject_label(_concat(events.log_events, LOG_EVENTS.empty()))


def build_fact_tables(
    events: CollectedEvents,
    config: Mapping[str, int],
    config_is_default: Mapping[str, bool],
    v2_possible: bool,
    now_ms: int | None = None,
) -> dict[str, pd.DataFrame]:
    """Every fact table: run-wide values first, then each stage of :mod:`stages` over all its groups."""
    return fact_tables(fact_inputs(events, config, config_is_default, v2_possible, now_ms), events)


def fact_tables(inputs: FactInputs, events: CollectedEvents) -> dict[str, pd.DataFrame]:
    """Every fact table from the stages' inputs, each stage over all its groups at once."""
    if inputs.records_spilled:  # read back whole: the caller did not ask for buckets
        inputs.records = _concat(list(events.record_buckets(1)), TXN_RECORDS.empty())
        events.txn_records[:] = [inputs.records]
    coord = coordinator_facts(inputs.records, inputs.run)
    merged, raw_sequences = inputs.stream.finish()
    producers = producer_facts(merged, raw_sequences, coord["coordinator_txns"], inputs.aborted, inputs.snapshots,
                               inputs.run)
    del merged  # freed before the log events are labelled
    return {
        "txn_records": inputs.records,
        "log_events": log_facts(events),
        **producers,
        **topic_facts(producers["spans"]),
        **coord,
    }
