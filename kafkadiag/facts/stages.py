"""The fact stages, each a function over whole groups, with the run-wide values computed first.

Transactions live inside one partition and epochs inside one producer id, so every fact is
decided inside one group once a few run-wide values are known:

* **run-wide** (:class:`RunValues`, computed first, broadcast on Spark): the config, whether
  protocol v2 is possible, ``--now``, partition names, each partition's evidence end and
  compaction, the evidence end of the run, each ``__transaction_state`` partition's end;
* **per topic-partition**: the batch reduction (``BatchStream``: partial spans, sequence
  breaks, partition stats), already keyed by partition;
* **per transactional.id**: the coordinator's history (``coordinator_facts``), plus one combine
  step over all ids (family sizes of per-start ids);
* **per producer id**: spans and their history, epoch changes, zombie writes, sequence labels,
  cross-checks with the coordinator, snapshots and ``.txnindex`` (``producer_facts``);
* **per topic**: producers per topic (``topic_facts``); computed as partials per set of producer
  ids (``topic_partials``) joined by a small combine step (``combine_topics``, one row per topic).

Each stage's output for a set of whole groups depends only on those groups' rows and the run-wide
values: the local runner calls each stage once over all groups, a distributed runner once per
partition of the keyed data, and the concatenations are equal row for row once put in the
canonical order of ``canonical``. tests/facts/test_group_stages.py holds them to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from .batch_stream import BatchStream, PartitionStats
from .coordinator import LogPartitionValues, build_coordinator_facts, combine_families, log_partition_values
from .crosscheck import (
    build_prepared_partitions,
    build_snapshot_open_txns,
    label_sequence_breaks,
    mark_orphaned,
    resolve_unknown_markers,
)
from .history import build_epoch_changes, build_topic_producers, combine_topic_producers, topic_producer_partials
from .spans import build_spans

#: The columns of ``coordinator_txns`` the producer stage reads (the spans' coordinator join, the
#: orphaned spans, the prepared partitions): all a coordinator transaction sends there.
PRODUCER_STAGE_TXN_COLUMNS = (
    "transactional_id", "producer_id", "producer_epoch", "protocol", "timeout_ms", "ended_by", "cause",
    "start_time", "prepare_state", "prepare_time", "complete_state", "complete_time", "partitions",
)

#: The group key of each fact table the stages build: what a distributed runner partitions by.
GROUP_KEYS: dict[str, str] = {
    "coordinator_txns": "transactional_id",
    "transactional_ids": "transactional_id",
    "transitions": "transactional_id",
    "spans": "producer_id",
    "epoch_changes": "producer_id",
    "sequence_anomalies": "producer_id",
    "prepared_partitions": "producer_id",
    "snapshot_open_txns": "producer_id",
    "topic_producers": "topic",
}


@dataclass(frozen=True)
class RunValues:
    """What every group needs from the whole run; small (one entry per partition at most)."""

    config: Mapping[str, int]
    config_is_default: Mapping[str, bool]
    v2_possible: bool
    now_ms: int | None
    tp_keys: list[tuple[str, int]]  # partition code -> (topic, partition)
    partition_end: Mapping[int, int]  # partition code -> newest timestamp seen
    compacted: frozenset[int]  # partition codes with offset holes
    end_by_tp: Mapping[tuple[str, int], int]  # (topic, partition) -> end of its evidence (or --now)
    evidence_end: int
    log_partitions: LogPartitionValues


def run_values(
    stream: BatchStream, records: pd.DataFrame, config: Mapping[str, int], config_is_default: Mapping[str, bool],
    v2_possible: bool, now_ms: int | None, log_partitions: LogPartitionValues | None = None,
) -> RunValues:
    """The run-wide values, from the partition stats of the batch reduction and the coordinator
    records (or ``log_partitions``, their values when the records wait on disk)."""
    if log_partitions is None:
        log_partitions = log_partition_values(records, now_ms)
    return run_values_from(stream.tp_keys, stream.partitions, log_partitions, config,
                           config_is_default, v2_possible, now_ms)


def run_values_from(
    tp_keys: list[tuple[str, int]], stats: Mapping[int, PartitionStats], log_partitions: LogPartitionValues,
    config: Mapping[str, int], config_is_default: Mapping[str, bool], v2_possible: bool, now_ms: int | None,
) -> RunValues:
    """The run-wide values from per-partition stats (a distributed runner joins those from metadata)."""
    return RunValues(
        config=config,
        config_is_default=config_is_default,
        v2_possible=v2_possible,
        now_ms=now_ms,
        tp_keys=list(tp_keys),
        partition_end={code: s.last_time for code, s in stats.items()},
        compacted=frozenset(code for code, s in stats.items() if s.holes > 0),
        end_by_tp={(s.topic, s.partition): (now_ms if now_ms is not None else s.last_time) for s in stats.values()},
        evidence_end=int(now_ms if now_ms is not None else max([s.last_time for s in stats.values()] + [-1])),
        log_partitions=log_partitions,
    )


def coordinator_facts(records: pd.DataFrame, run: RunValues, combine: bool = True) -> dict[str, pd.DataFrame]:
    """Per transactional.id: transactions, ids and transitions from the coordinator's records.

    ``combine=False`` leaves the family columns to ``combine_coordinator`` (over all groups).
    """
    return build_coordinator_facts(records, run.config, run.now_ms, run.log_partitions, combine=combine)


def combine_coordinator(parts: list[dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """Join per-group coordinator facts: concatenate, then the family sizes over all ids."""
    out = {name: pd.concat([p[name] for p in parts], ignore_index=True) for name in parts[0]}
    out["transactional_ids"] = combine_families(out["transactional_ids"])
    return out


def producer_facts(
    merged: pd.DataFrame,
    raw_sequences: pd.DataFrame,
    coordinator_txns: pd.DataFrame,
    aborted: pd.DataFrame,
    snapshots: pd.DataFrame,
    run: RunValues,
) -> dict[str, pd.DataFrame]:
    """Per producer id: every fact built from spans. All inputs hold the same whole producer ids."""
    config = run.config
    spans = build_spans(
        merged, run.tp_keys, run.partition_end, coordinator_txns, config, run.config_is_default, run.v2_possible,
        run.now_ms, run.compacted,
    )
    spans = resolve_unknown_markers(spans, aborted)
    spans = mark_orphaned(spans, coordinator_txns)
    tid_by_pid = dict(zip(spans["producer_id"].tolist(), spans["transactional_id"].tolist())) if not spans.empty else {}
    tid_by_pid = {p: t for p, t in tid_by_pid.items() if t}
    return {
        "spans": spans,
        "epoch_changes": build_epoch_changes(spans),
        "sequence_anomalies": label_sequence_breaks(raw_sequences, run.tp_keys, run.compacted, tid_by_pid),
        "prepared_partitions": build_prepared_partitions(coordinator_txns, spans, run.end_by_tp),
        "snapshot_open_txns": build_snapshot_open_txns(
            snapshots, spans, run.evidence_end, int(config["transaction.max.timeout.ms"])
        ),
    }


def topic_facts(spans: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per topic: transactional producers and how many wrote a single transaction."""
    return {"topic_producers": build_topic_producers(spans)}


def topic_partials(spans: pd.DataFrame) -> pd.DataFrame:
    """Per topic over some whole producer ids (a producer stage's spans): joined by ``combine_topics``."""
    return topic_producer_partials(spans)


def combine_topics(partials: list[pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The combine step of the topic facts: one row per topic, from every set of producer ids."""
    return {"topic_producers": combine_topic_producers(partials)}


def canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in one order whatever order the groups were concatenated in (every column, as text)."""
    if frame.empty:
        return frame.reset_index(drop=True)
    order = frame.astype(str).sort_values(list(frame.columns), kind="stable").index
    return frame.loc[order].reset_index(drop=True)
