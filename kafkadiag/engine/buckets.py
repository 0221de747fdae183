"""The fact stages in buckets, in this process: memory bounded by a bucket, not by the run.

The coordinator's facts are per transactional.id (plus the size of each id's family, completed
over all ids at the end), every fact built from spans is per producer id. So the coordinator
records can be cut by a hash of the id and the run's partial spans by a hash of the producer id,
and each cut built, matched by the rules and dropped before the next: only the rows a finding can
show, the run's counts, the topic stage's partials, the ids (for their families) and the
coordinator's transactions (which the producer stage joins) are kept. The
functions are the Spark runner's keyed stages (:mod:`.spark.keyed`), so the findings are the
ones the whole-run stage gives (``tests/engine/test_buckets.py``). A run with few transactions
builds its tables whole, as before; so does ``timeline``, which shows every event. (A bucketed
run's tables hold only matched rows, so the HTML and Markdown timelines of a large run show the
rows findings cite, as under Spark.)
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np
import pandas as pd

from ..facts.build import CollectedEvents, FactInputs, log_facts
from ..facts.coordinator import add_family_counts, family_counts, with_family_counts
from ..facts.parked import Parked
from ..facts.span_spill import SHARDS, buckets_for
from ..facts.stages import RunValues, coordinator_facts
from .spark import keyed

#: The stages run in buckets of about this many transactions (partial spans) or coordinator
#: records when the run has more than twice as many (below that, cutting costs more than it
#: saves). Measured on the 10 GB benchmark corpus (1.57 M transactions): peak 1,719 MB whole,
#: 789 MB in buckets of 250,000, 584 MB in buckets of 100,000, in the same time.
BUCKET_SPANS = 100_000


def bucket_count(inputs: FactInputs, bucket_spans: int | None) -> int:
    """How many buckets the fact stages take (1: the whole run at once): by the transactions in
    the batch reduction or the coordinator records, whichever are more."""
    rows = max(inputs.stream.partial_rows, inputs.record_rows)
    spilled = inputs.stream.spilled or inputs.records_spilled
    if not bucket_spans or (rows <= 2 * bucket_spans and not spilled):
        return 1
    wanted = math.ceil(rows / bucket_spans)
    return buckets_for(wanted) if spilled else wanted  # spilled shards make whole buckets


def spill_shard(producer_ids: np.ndarray) -> np.ndarray:
    """The shard of each producer id, such that ``shard % buckets`` is its bucket (``producer_buckets``)."""
    return producer_buckets(producer_ids, SHARDS)


def record_shard(transactional_ids: np.ndarray) -> np.ndarray:
    """The shard of each coordinator record's id, such that ``shard % buckets`` is the bucket
    ``keyed.split`` gives it."""
    return keyed.bucket_of(pd.Series(transactional_ids), SHARDS)


def producer_buckets(producer_ids: np.ndarray, buckets: int) -> np.ndarray:
    """The bucket of each producer id: ``keyed.bucket_of``, as every table split by producer id gets it."""
    return keyed.bucket_of(pd.Series(producer_ids), buckets)


def facts_in_buckets(inputs: FactInputs, events: CollectedEvents, buckets: int, rules: list,
                     config: dict) -> tuple[dict[str, pd.DataFrame], dict[str, object], dict]:
    """Matched rows per table, the run's summary and the grouped rules' sizes: the coordinator
    stage one bucket of transactional ids at a time (family sizes completed after the last), then
    the producer stage one bucket of producer ids at a time."""
    run: RunValues = inputs.run
    stream = events.batches
    summary_of_stream = (stream.batches, len(stream.partitions))
    parts: dict[int, list] = {b: [] for b in range(buckets)}  # the producer stage's inputs, by producer bucket
    if events.log_counts is None:
        done = [keyed.finished({"log_events": log_facts(events)}, rules, config)]
    else:  # reduced while reading: its rows are representatives, its sizes already summed
        done = [keyed.already_finished({"log_events": log_facts(events)}, events.log_counts)]
    done += _coordinator_in_buckets(inputs, events, buckets, rules, config, parts)
    spans, sequences = stream.finish_in_buckets(lambda pids: producer_buckets(pids, buckets), buckets)
    for tag, frame in (("sequences", sequences), ("aborted", inputs.aborted), ("snapshots", inputs.snapshots)):
        for b, item in keyed.split(frame, "producer_id", buckets, tag):
            parts[b].append((b, item))
    del sequences
    for b, merged in enumerate(spans):
        items = [(b, ("merged", merged)), *parts.pop(b)]
        del merged
        done.append(keyed.finished(keyed.producer_bucket(keyed.gather(items), run), rules, config))
        del items
    tables, counts, group_counts = keyed.gather_finished(done, rules, config)
    return tables, keyed.run_summary(counts, *summary_of_stream), group_counts


def _coordinator_in_buckets(inputs: FactInputs, events: CollectedEvents, buckets: int, rules: list, config: dict,
                            parts: dict[int, list]) -> list[tuple]:
    """The coordinator stage, one bucket of transactional ids at a time: each bucket's finished rows,
    then its ids' once the family counts of all ids are known (they wait on disk meanwhile); the
    coordinator's transactions go to ``parts`` for the producer stage."""
    done: list[tuple] = []
    ids = Parked(None, "transactional ids", 300)
    families = None
    try:
        for records in _record_buckets(inputs, events, buckets):
            done.append(keyed.finished({"txn_records": records}, rules, config))
            if not len(records):
                continue
            facts = coordinator_facts(records, inputs.run, combine=False)
            del records
            bucket_ids = facts.pop("transactional_ids")
            families = add_family_counts(families, family_counts(bucket_ids))
            ids.add(bucket_ids)
            del bucket_ids
            done.append(keyed.finished(facts, rules, config))
            if inputs.stream.partial_rows:  # with no data batches the producer stage has no spans to join them to
                for pb, item in keyed.coordinator_items(facts, buckets):
                    parts[pb].append((pb, item))
            del facts
        for bucket_ids in ids.read():
            done.append(keyed.finished({"transactional_ids": with_family_counts(bucket_ids, families)}, rules, config))
    finally:
        ids.discard()
    return done


def _record_buckets(inputs: FactInputs, events: CollectedEvents, buckets: int) -> Iterator[pd.DataFrame]:
    """The coordinator records one bucket of transactional ids at a time: from disk when they
    were spilled while reading, else cut from the records held."""
    if inputs.records_spilled:
        yield from events.record_buckets(buckets)
    elif len(inputs.records) == 0:
        yield inputs.records  # no records: their table is still matched (and empty)
    else:
        for _b, (_tag, records) in keyed.split(inputs.records, "transactional_id", buckets, "txn_records"):
            yield records
