"""The event tables every reader produces: fixed names, dtypes and meanings.

Readers know file formats, fact builders know Kafka semantics; this module is the contract
between them. Every reader emits pandas DataFrames whose columns are exactly one of the
schemas below (``Schema.frame`` builds and checks them), so a new input format never forces a
change further down the pipeline.

Conventions: integers that may be unknown use ``-1`` (Kafka's own "none" value for producer ids,
epochs, sequences and timestamps); text that may be unknown is ``""``. Times are epoch
milliseconds (UTC). ``file_id`` indexes the run's list of inputs; ``byte`` is the byte offset of
the evidence line inside that (decompressed) input, ``line`` its 1-based line number when the
reader knows it cheaply, else ``-1`` (line numbers are then resolved for evidence only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str  # numpy/pandas dtype name: int64, int32, bool, object (str)
    doc: str
    default: object = -1


@dataclass(frozen=True)
class Schema:
    name: str
    columns: tuple[Column, ...]
    doc: str

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def empty(self) -> pd.DataFrame:
        return self.frame({})

    def project(self, names: Iterable[str] | None) -> tuple[Column, ...]:
        """The schema's columns restricted to ``names`` (all when None), in schema order."""
        if names is None:
            return self.columns
        wanted = set(names)
        unknown = wanted - set(self.names)
        if unknown:
            raise ValueError(f"{self.name}: unknown columns {sorted(unknown)}")
        return tuple(c for c in self.columns if c.name in wanted)

    def frame(
        self, data: Mapping[str, Iterable] | pd.DataFrame, length: int | None = None, columns: Iterable[str] | None = None
    ) -> pd.DataFrame:
        """Build a frame with exactly this schema's columns and dtypes.

        Missing columns are filled with the column default; extra columns are an error, so a
        reader that drifts from the contract fails loudly in tests rather than silently.
        ``columns`` limits the frame to the columns a consumer reads (see ``ReadOptions``).
        """
        if isinstance(data, pd.DataFrame):
            source: Mapping[str, Iterable] = {c: data[c] for c in data.columns}
            n = len(data)
        else:
            source = data
            n = length
            if n is None:
                n = max((len(v) for v in source.values()), default=0)  # type: ignore[arg-type]
        extra = set(source) - set(self.names)
        if extra:
            raise ValueError(f"{self.name}: unknown columns {sorted(extra)}")
        out: dict[str, object] = {}
        for col in self.project(columns):
            if col.name in source:
                values = source[col.name]
            else:
                values = [col.default] * n
            if col.dtype == "object":
                out[col.name] = pd.Series(np.asarray(values, dtype=object) if not isinstance(values, pd.Series) else values.astype(object), dtype=object)
            else:
                out[col.name] = pd.Series(np.asarray(values, dtype=col.dtype) if not isinstance(values, pd.Series) else values.to_numpy(dtype=col.dtype))
        return pd.DataFrame(out).reset_index(drop=True)


def _c(name: str, dtype: str, doc: str, default: object = None) -> Column:
    if default is None:
        default = "" if dtype == "object" else (False if dtype == "bool" else -1)
    return Column(name, dtype, doc, default)


# --------------------------------------------------------------------------------------------
# Event tables (readers -> fact builders)
# --------------------------------------------------------------------------------------------

BATCHES = Schema(
    "batches",
    (
        _c("file_id", "int32", "index of the input this row came from"),
        _c("line", "int64", "1-based line number of the batch line (or first record line); -1 if not known"),
        _c("byte", "int64", "byte offset of that line in the input"),
        _c("marker_line", "int64", "line of the control record text (`endTxnMarker: ...`), -1 if none"),
        _c("marker_byte", "int64", "byte offset of the control record text, -1 if none"),
        _c("topic", "object", "topic from the `Dumping` path, --partition or the file name; '' unknown"),
        _c("partition", "int32", "partition number; -1 unknown"),
        _c("segment", "int64", "base offset of the dumped segment (file name prefix); -1 unknown"),
        _c("base_offset", "int64", "first offset of the batch"),
        _c("last_offset", "int64", "last offset of the batch"),
        _c("count", "int32", "record count (2.0+ dumps); -1 when the dump does not say"),
        _c("base_sequence", "int64", "producer sequence of the first record; -1 none"),
        _c("last_sequence", "int64", "producer sequence of the last record; -1 none"),
        _c("producer_id", "int64", "producer id; -1 none"),
        _c("producer_epoch", "int32", "producer epoch; -1 none"),
        _c("partition_leader_epoch", "int32", "leader epoch stamped on the batch; -1 unknown"),
        _c("is_transactional", "bool", "transactional bit"),
        _c("is_control", "bool", "control bit (transaction marker or other control record)"),
        _c("marker", "object", "COMMIT, ABORT, another control type name, '' for data, UNKNOWN when a control batch's type was not printed"),
        _c("coordinator_epoch", "int32", "coordinator epoch carried by a COMMIT/ABORT marker; -1 none"),
        _c("timestamp", "int64", "batch max timestamp (ms); -1 unknown"),
        _c("timestamp_type", "object", "CreateTime, LogAppendTime, NoTimestampType or ''"),
        _c("position", "int64", "byte position of the batch in the segment; -1 unknown"),
        _c("size", "int32", "batch size in bytes; -1 unknown"),
        _c("magic", "int8", "record format magic; -1 unknown"),
        _c("codec", "object", "compression codec, lower case"),
        _c("is_valid", "bool", "CRC check as printed by the tool (True when not printed)", True),
    ),
    "One row per record batch of a data partition (or per legacy message).",
)

TXN_RECORDS = Schema(
    "txn_records",
    (
        _c("file_id", "int32", "index of the input"),
        _c("line", "int64", "1-based line number; -1 unknown"),
        _c("byte", "int64", "byte offset of the line"),
        _c("log_partition", "int32", "partition of __transaction_state the record was read from; -1 unknown"),
        _c("offset", "int64", "offset of the record in __transaction_state; -1 unknown"),
        _c("record_time", "int64", "record timestamp (coordinator wall clock at append), ms; -1 unknown"),
        _c("transactional_id", "object", "transactional.id (record key)"),
        _c("tombstone", "bool", "value is null: the coordinator expired this transactional.id"),
        _c("producer_id", "int64", "producer id mapped to the id; -1 for tombstones"),
        _c("producer_epoch", "int32", "producer epoch; -1 for tombstones"),
        _c("state", "object", "Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence, Dead; '' for tombstones"),
        _c("partitions", "object", "comma-joined topic-partition list (`t-0,t-1`); '' none"),
        _c("last_update_ms", "int64", "txnLastUpdateTimestamp; -1 unknown"),
        _c("start_ms", "int64", "txnStartTimestamp (JSON/raw decodes only); -1 unknown"),
        _c("timeout_ms", "int64", "txnTimeoutMs sent by the client; -1 unknown"),
        _c("value_version", "int32", "TransactionLogValue version (JSON/raw decodes only); -1 unknown"),
        _c("client_txn_version", "int32", "ClientTransactionVersion tag (2 = KIP-890 protocol v2); -1 unknown"),
        _c("previous_producer_id", "int64", "PreviousProducerId tag; -1 unknown"),
        _c("next_producer_id", "int64", "NextProducerId tag; -1 unknown"),
        _c("next_producer_epoch", "int32", "NextProducerEpoch tag; -1 unknown"),
    ),
    "One row per __transaction_state record (a coordinator state change or a tombstone).",
)

SNAPSHOT_ENTRIES = Schema(
    "snapshot_entries",
    (
        _c("file_id", "int32", "index of the input"),
        _c("line", "int64", "1-based line number; -1 unknown"),
        _c("byte", "int64", "byte offset of the line"),
        _c("topic", "object", "topic of the partition the snapshot belongs to; '' unknown"),
        _c("partition", "int32", "partition; -1 unknown"),
        _c("snapshot_offset", "int64", "offset in the snapshot file name; -1 unknown"),
        _c("producer_id", "int64", "producer id"),
        _c("producer_epoch", "int32", "producer epoch"),
        _c("coordinator_epoch", "int32", "coordinator epoch; -1 none"),
        _c("current_txn_first_offset", "int64", "first offset of the transaction open at snapshot time; -1 none"),
        _c("last_timestamp", "int64", "last write timestamp (ms); -1 unknown"),
        _c("first_sequence", "int64", "first sequence of the last batch; -1 unknown"),
        _c("last_sequence", "int64", "last sequence; -1 unknown"),
        _c("last_offset", "int64", "last offset written by the producer; -1 unknown"),
    ),
    "One row per producer in a producer-state .snapshot dump.",
)

ABORTED_TXNS = Schema(
    "aborted_txns",
    (
        _c("file_id", "int32", "index of the input"),
        _c("line", "int64", "1-based line number; -1 unknown"),
        _c("byte", "int64", "byte offset of the line"),
        _c("topic", "object", "topic; '' unknown"),
        _c("partition", "int32", "partition; -1 unknown"),
        _c("producer_id", "int64", "producer id of the aborted transaction"),
        _c("first_offset", "int64", "first offset of the aborted transaction"),
        _c("last_offset", "int64", "offset of the ABORT marker"),
        _c("last_stable_offset", "int64", "LSO right after the abort completed"),
    ),
    "One row per entry of a .txnindex (aborted transaction index) dump.",
)

LOG_EVENTS = Schema(
    "log_events",
    (
        _c("file_id", "int32", "index of the input"),
        _c("line", "int64", "1-based line number of the event's first line; -1 unknown"),
        _c("byte", "int64", "byte offset of the event's first line"),
        _c("lines", "int32", "physical lines the event spans (message plus stack trace)", 1),
        _c("seq", "int64", "order of the event within its input (events without a time keep their place)"),
        _c("time", "int64", "event time, epoch ms UTC; -1 when the line carries none"),
        _c("level", "object", "ERROR, WARN, INFO, DEBUG, TRACE or FATAL (librdkafka levels mapped); '' unknown"),
        _c("source", "object", "client, broker or tool"),
        _c("library", "object", "java, streams, spring, flink, librdkafka, kafkajs, sarama, franz-go, confluent-kafka-go, "
                                 "aiokafka, broker, kafka-transactions, kafka-consumer-groups, rpk, ..."),
        _c("logger", "object", "logger name, librdkafka facility (TXNERR, GETPID, ...) or broker component"),
        _c("client_id", "object", "client.id / librdkafka client name; '' unknown"),
        _c("transactional_id", "object", "transactional.id named by the event, or by an earlier event of the same "
                                         "client_id in the same input (librdkafka names it once, in its config dump); '' unknown"),
        _c("group_id", "object", "consumer group id; '' unknown"),
        _c("producer_id", "int64", "producer id named by the event; -1 unknown"),
        _c("producer_epoch", "int32", "producer epoch named by the event; -1 unknown"),
        _c("topic", "object", "topic of the topic-partition named by the event; '' none"),
        _c("partition", "int32", "partition; -1 none"),
        _c("coordinator_id", "int32", "broker id of the coordinator (broker logs: the component's id); -1 unknown"),
        _c("error", "object", "the main Kafka protocol error name (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, ...), "
                              "librdkafka codes normalised without the leading underscore (_FENCED -> FENCED); '' none"),
        _c("errors", "object", "every error name in the event, comma-joined"),
        _c("exception", "object", "outermost exception class (simple name); '' none"),
        _c("root_cause", "object", "innermost exception class of the Caused by chain; '' none"),
        _c("exceptions", "object", "the exception chain, outermost to root cause, simple names comma-joined"),
        _c("state_from", "object", "for state-transition messages: the from state; '' none"),
        _c("state_to", "object", "for state-transition messages: the to state; '' none"),
        _c("start_offset", "int64", "tool output: first offset of an open transaction; -1 none"),
        _c("duration_ms", "int64", "tool output: age or duration of a transaction; -1 none"),
        _c("timeout_ms", "int64", "transaction timeout named by the event; -1 none"),
        _c("txn_state", "object", "transaction state named by the event (tool output, coordinator logs); '' none"),
        _c("message", "object", "the event's message (first line, without timestamp/level/logger prefix), at most 1000 chars"),
        _c("current_offset", "int64", "tool output (kafka-consumer-groups): the group's committed CURRENT-OFFSET; -1 none"),
        _c("log_end_offset", "int64", "tool output (kafka-consumer-groups): LOG-END-OFFSET of the partition; -1 none"),
        _c("lag", "int64", "tool output (kafka-consumer-groups): LAG; -1 none"),
    ),
    "One row per client, broker or tool log event (a line, or a line plus its stack trace).",
)

EVENT_TABLES: dict[str, Schema] = {s.name: s for s in (BATCHES, TXN_RECORDS, SNAPSHOT_ENTRIES, ABORTED_TXNS, LOG_EVENTS)}

#: The internal topic where transaction coordinators keep their state.
TXN_TOPIC = "__transaction_state"

#: States the coordinator persists, in protocol order.
TXN_STATES = (
    "Empty",
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
    "PrepareEpochFence",
)
