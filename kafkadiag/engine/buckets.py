"""The producer stage in buckets of producer ids, in this process: memory bounded by a bucket.

Every fact built from spans is per producer id, so the run's partial spans can be cut by a
hash of the producer id and each cut built, matched by the rules and dropped before the next:
only the rows a finding can show, the run's counts and the topic stage's partials are kept. The
functions are the Spark runner's keyed stages (:mod:`.spark.keyed`), so the findings are the
ones the whole-run stage gives (``tests/engine/test_buckets.py``). A run with few transactions
builds its tables whole, as before; so does ``timeline``, which shows every event. (A bucketed
run's tables hold only matched rows, so the HTML and Markdown timelines of a large run show the
rows findings cite, as under Spark.)
"""

from __future__ import annotations

import math

import pandas as pd

from ..facts.build import CollectedEvents, FactInputs, log_facts
from ..facts.stages import RunValues
from .spark import keyed

#: The producer stage runs in buckets of about this many transactions (partial spans) when the
#: run has more than twice as many (below that, cutting costs more than it saves). Measured on
#: the 10 GB benchmark corpus (1.57 M transactions): peak 1,719 MB whole, 789 MB in buckets of
#: 250,000, 584 MB in buckets of 100,000, in the same time.
BUCKET_SPANS = 100_000


def bucket_count(inputs: FactInputs, bucket_spans: int | None) -> int:
    """How many buckets the producer stage takes (1: the whole run at once)."""
    rows = inputs.stream.partial_rows
    if not bucket_spans or rows <= 2 * bucket_spans:
        return 1
    return math.ceil(rows / bucket_spans)


def facts_in_buckets(inputs: FactInputs, events: CollectedEvents, buckets: int, rules: list,
                     config: dict) -> tuple[dict[str, pd.DataFrame], dict[str, object], dict]:
    """Matched rows per table, the run's summary and the grouped rules' sizes, one producer bucket at a time."""
    run: RunValues = inputs.run
    stream = events.batches
    summary_of_stream = (stream.batches, len(stream.partitions))
    spans, sequences = stream.finish_in_buckets(lambda pids: keyed.bucket_of(pd.Series(pids), buckets), buckets)
    parts: dict[int, list] = {b: [] for b in range(buckets)}
    for tag, frame in (("sequences", sequences), ("coordinator_txns", inputs.coordinator.get("coordinator_txns")),
                       ("aborted", inputs.aborted), ("snapshots", inputs.snapshots)):
        for b, item in keyed.split(frame, "producer_id", buckets, tag):
            parts[b].append((b, item))
    del sequences
    done = [keyed.finished(inputs.coordinator, rules, config),
            keyed.finished({"log_events": log_facts(events), "txn_records": inputs.records}, rules, config)]
    for b, merged in enumerate(spans):
        items = [(b, ("merged", merged)), *parts.pop(b)]
        del merged
        done.append(keyed.finished(keyed.producer_bucket(keyed.gather(items), run), rules, config))
        del items
    tables, counts, group_counts = keyed.gather_finished(done, rules, config)
    return tables, keyed.run_summary(counts, *summary_of_stream), group_counts
