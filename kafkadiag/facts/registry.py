"""The fact tables rules can read: their columns, time window and evidence columns.

Rules name a table and its columns; the rule loader validates them against this registry so a
typo in a rule file is a load-time error naming the file and field, not a silent no-match.
Fact builders must produce exactly these columns (tests hold them to it).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FactTable:
    name: str
    doc: str
    columns: dict[str, str]
    window: tuple[str, str]  # columns holding the start / end (epoch ms, -1 unknown) of a row
    evidence: tuple[tuple[str, str, str], ...] = field(default=())  # (file_id, line, byte) column triples


SUBJECT_COLUMNS = ("transactional_id", "producer_id", "producer_epoch", "topic", "partition")

_SPAN_COLUMNS = {
    "topic": "topic of the data partition",
    "partition": "partition number",
    "producer_id": "producer id",
    "producer_epoch": "epoch of the transaction's data batches (of the marker for marker-only spans)",
    "transactional_id": "transactional.id when __transaction_state evidence maps this producer id; '' otherwise",
    "first_offset": "offset of the first data record",
    "last_offset": "offset of the last data record",
    "marker_offset": "offset of the COMMIT/ABORT marker; -1 when open",
    "first_time": "timestamp of the first data batch (ms); -1 unknown",
    "last_time": "timestamp of the last data batch (ms); -1 unknown",
    "marker_time": "timestamp of the end marker (ms); -1 when open or unknown",
    "end_time": "marker_time, or last_time while open",
    "state": "committed, aborted, open, or ended (a control batch whose type the dump did not print, or an "
             "unterminated span its producer superseded on a partition whose dump has offset holes)",
    "marker": "COMMIT, ABORT, UNKNOWN or ''",
    "marker_epoch": "producer epoch carried by the marker; -1 when open",
    "epoch_bump": "marker_epoch - producer_epoch (0 when open)",
    "coordinator_epoch": "coordinator epoch on the marker; -1 when open",
    "duration_ms": "end_time - first_time; -1 unknown",
    "batches": "data batches in the transaction on this partition",
    "records": "data records (-1 if the dump does not count them)",
    "protocol": "transaction protocol of the producer: v1, v2 or unknown",
    "ended_by": "producer, coordinator or unknown ('' while open)",
    "cause": "why the coordinator ended it: timeout, new-instance, coordinator-abort or ''",
    "timeout_ms": "transaction.timeout.ms that applied (coordinator record, --config or default)",
    "timeout_source": "coordinator, config or default",
    "partition_end_time": "last timestamp seen on this partition, or --now",
    "age_ms": "partition_end_time - first_time for open spans; -1 otherwise",
    "idle_before_ms": "gap since this producer id's previous transaction ended anywhere in the evidence; -1 if first",
    "prev_epoch": "epoch of the producer id's previous span on any partition; -1 if none",
    "next_epoch": "epoch of the producer id's next span on any partition; -1 if none",
    "next_gap_ms": "time from this span's end to the next span of the producer id; -1 if none",
    "zombie": "data written at this epoch after a higher epoch of the same producer id was already in the log",
    "recommended_timeout_ms": "transaction.timeout.ms that fits the observed durations of this producer id",
    "recommended_expiration_ms": "transactional.id.expiration.ms that outlasts idle_before_ms (capped at the int maximum)",
    "coordinator_seen": "__transaction_state evidence covers this transaction (its findings come from there)",
    "orphaned": "for open spans the coordinator will never end: marker-lost (the partition was in a transaction the "
                "coordinator completed) or unregistered (never added to a coordinator transaction); '' otherwise",
    "file_id": "input holding the first batch",
    "first_line": "line of the first data batch",
    "first_byte": "byte offset of the first data batch",
    "marker_file_id": "input holding the marker; -1 when open",
    "marker_line": "line of the marker",
    "marker_byte": "byte offset of the marker; -1 when open",
}

FACT_TABLES: dict[str, FactTable] = {}


def _register(table: FactTable) -> FactTable:
    FACT_TABLES[table.name] = table
    return table


SPANS = _register(
    FactTable(
        "spans",
        "One row per transaction per data partition: (topic-partition, producerId, epoch) from its "
        "first data batch to its COMMIT/ABORT marker.",
        _SPAN_COLUMNS,
        ("first_time", "end_time"),
        (("file_id", "first_line", "first_byte"), ("marker_file_id", "marker_line", "marker_byte")),
    )
)

EPOCH_CHANGES = _register(
    FactTable(
        "epoch_changes",
        "One row per change of a producer id's epoch in the data partitions, in time order.",
        {
            "producer_id": "producer id",
            "transactional_id": "transactional.id when known",
            "topic": "partition where the new epoch was first seen",
            "partition": "partition number",
            "from_epoch": "previous epoch",
            "producer_epoch": "new epoch",
            "jump": "producer_epoch - from_epoch",
            "protocol": "v1, v2 or unknown",
            "time": "time the new epoch was first seen (ms)",
            "prev_time": "time the previous epoch was last seen (ms)",
            "gap_ms": "time - prev_time; -1 unknown",
            "explained_by_abort": "a coordinator abort marker at an epoch between the two explains the jump",
            "file_id": "input", "line": "line", "byte": "byte offset",
            "prev_file_id": "input of the last batch at the previous epoch", "prev_line": "line", "prev_byte": "byte offset",
        },
        ("prev_time", "time"),
        (("prev_file_id", "prev_line", "prev_byte"), ("file_id", "line", "byte")),
    )
)

TOPIC_PRODUCERS = _register(
    FactTable(
        "topic_producers",
        "One row per topic: how its transactional producer ids behave as a population (per-start "
        "transactional ids show as many producer ids that each write one transaction at epoch 0).",
        {
            "topic": "topic",
            "transactional_producers": "transactional producer ids writing to the topic",
            "single_txn_epoch0": "of those, producer ids that wrote exactly one transaction, at epoch 0",
            "reinitialised": "producer ids seen at an epoch above 0 under protocol v1",
            "multi_txn_producers": "producer ids with more than one transaction on the topic",
            "window_ms": "last_time - first_time",
            "share_single": "single_txn_epoch0 / transactional_producers",
            "first_time": "first timestamp on the topic", "last_time": "last timestamp on the topic",
            "file_id": "input of an example batch", "line": "line", "byte": "byte offset",
        },
        ("first_time", "last_time"),
        (("file_id", "line", "byte"),),
    )
)

SEQUENCE_ANOMALIES = _register(
    FactTable(
        "sequence_anomalies",
        "One row per break in producer sequence continuity within one (topic-partition, producerId, epoch).",
        {
            "topic": "topic", "partition": "partition",
            "producer_id": "producer id", "producer_epoch": "epoch",
            "transactional_id": "transactional.id when known",
            "kind": "gap (records missing), duplicate (sequence repeated) or reset (restarted below the previous one)",
            "expected_sequence": "previous lastSequence + 1",
            "base_sequence": "sequence found",
            "missing": "number of sequence numbers skipped (gap) or repeated (duplicate)",
            "compacted": "the partition shows offset holes, so batches may have been removed by compaction",
            "contiguous": "the two batches are in the same dumped file",
            "prev_time": "time of the previous batch", "time": "time of the batch",
            "prev_offset": "last offset of the previous batch", "offset": "base offset of the batch",
            "prev_file_id": "input", "prev_line": "line", "prev_byte": "byte offset",
            "file_id": "input", "line": "line", "byte": "byte offset",
        },
        ("prev_time", "time"),
        (("prev_file_id", "prev_line", "prev_byte"), ("file_id", "line", "byte")),
    )
)

COORDINATOR_TXNS = _register(
    FactTable(
        "coordinator_txns",
        "One row per transaction seen in __transaction_state: from the first Ongoing to Complete*, "
        "or the last state seen.",
        {
            "transactional_id": "transactional.id",
            "producer_id": "producer id", "producer_epoch": "epoch while Ongoing",
            "topic": "first topic of the transaction's partitions ('' none)", "partition": "-1 (see partitions)",
            "partitions": "comma-joined topic-partitions of the transaction",
            "start_time": "lastUpdate of the first Ongoing record (or txnStartTimestamp when decoded)",
            "prepare_state": "PrepareCommit, PrepareAbort or ''",
            "prepare_time": "time of the Prepare* record; -1 none",
            "prepare_epoch": "epoch on the Prepare* record; -1 none",
            "complete_state": "CompleteCommit, CompleteAbort or ''",
            "complete_time": "time of the Complete* record; -1 none",
            "last_state": "last state seen for this transaction",
            "last_time": "time of the last record of this transaction",
            "duration_ms": "prepare_time - start_time; -1 unknown",
            "timeout_ms": "txnTimeoutMs",
            "epoch_bump": "prepare_epoch - producer_epoch",
            "protocol": "v1, v2 or unknown",
            "ended_by": "client, coordinator or unknown ('' while open)",
            "cause": "timeout, new-instance, or '' (client) when ended_by is coordinator",
            "next_init_time": "time of the next Empty (InitProducerId) record; -1 none",
            "next_init_epoch": "epoch of that record",
            "next_init_gap_ms": "next_init_time - prepare_time; -1 none",
            "evidence_end_time": "last record time of that __transaction_state partition, or --now",
            "age_ms": "evidence_end_time - last_time",
            "stuck": "the last state is Ongoing or Prepare* and it outlived its deadline",
            "recommended_timeout_ms": "transaction.timeout.ms fitting the observed durations of this id",
            "max_timeout_ms": "broker transaction.max.timeout.ms in effect",
            "file_id": "input of the first record", "line": "line", "byte": "byte offset",
            "end_file_id": "input of the last record", "end_line": "line", "end_byte": "byte offset",
        },
        ("start_time", "last_time"),
        (("file_id", "line", "byte"), ("end_file_id", "end_line", "end_byte")),
    )
)

TRANSACTIONAL_IDS = _register(
    FactTable(
        "transactional_ids",
        "One row per transactional.id seen in __transaction_state.",
        {
            "transactional_id": "transactional.id",
            "producer_id": "latest producer id", "producer_epoch": "latest epoch",
            "producer_ids": "distinct producer ids mapped over time",
            "pid_switches": "times the mapped producer id changed between two live records (not across a tombstone)",
            "records": "records seen", "inits": "Empty records (InitProducerId)",
            "first_epoch": "first epoch seen", "max_epoch": "highest epoch seen",
            "tombstones": "tombstones (expirations) seen",
            "last_state": "latest state ('' after a tombstone)",
            "first_time": "first record time", "last_time": "last record time",
            "max_idle_ms": "longest gap between a record at rest (no open transaction) and the next live record, across tombstones",
            "new_pid_after_idle": "the producer id changed after an idle gap longer than transactional.id.expiration.ms",
            "idle_end_time": "time the id came back after its longest idle gap; -1",
            "expiration_ms": "transactional.id.expiration.ms in effect",
            "recommended_expiration_ms": "transactional.id.expiration.ms that outlasts max_idle_ms (capped at the int maximum)",
            "family": "the id with generated parts (UUIDs, hex, host/pid numbers) replaced",
            "id_shape": "uuid, random, numbered or plain",
            "family_size": "ids in the same family",
            "family_once_epoch0": "ids of the family initialised once, at epoch 0, and never again",
            "once_epoch0": "this id was initialised once at epoch 0 and never again",
            "protocol": "v1, v2 or unknown",
            "file_id": "input", "line": "line of the first record", "byte": "byte offset",
            "end_file_id": "input", "end_line": "line of the last record", "end_byte": "byte offset",
        },
        ("first_time", "last_time"),
        (("file_id", "line", "byte"), ("end_file_id", "end_line", "end_byte")),
    )
)

TRANSITIONS = _register(
    FactTable(
        "transitions",
        "One row per consecutive pair of __transaction_state records of one transactional.id.",
        {
            "transactional_id": "transactional.id",
            "producer_id": "producer id", "producer_epoch": "epoch of the later record",
            "from_state": "earlier state ('' for a tombstone)", "to_state": "later state",
            "from_epoch": "earlier epoch", "from_producer_id": "earlier producer id",
            "valid": "the coordinator allows this transition (per Kafka version family)",
            "compacted": "the log partition shows offset holes (compaction can drop records in between)",
            "prev_time": "earlier record time", "time": "later record time", "gap_ms": "time between",
            "prev_file_id": "input", "prev_line": "line", "prev_byte": "byte offset",
            "file_id": "input", "line": "line", "byte": "byte offset",
        },
        ("prev_time", "time"),
        (("prev_file_id", "prev_line", "prev_byte"), ("file_id", "line", "byte")),
    )
)

OPEN_SNAPSHOT_TXNS = _register(
    FactTable(
        "snapshot_open_txns",
        "Producers that a producer-state snapshot recorded with an open transaction.",
        {
            "topic": "topic", "partition": "partition", "producer_id": "producer id",
            "producer_epoch": "epoch", "first_offset": "currentTxnFirstOffset",
            "snapshot_offset": "snapshot offset (file name)", "last_time": "last write time",
            "closed_in_evidence": "a marker for this producer after first_offset is in the data evidence",
            "in_data": "the data evidence holds this transaction's span (the span rules judge it then)",
            "age_ms": "--now (or the end of the data evidence) minus last_time; -1 unknown",
            "max_timeout_ms": "broker transaction.max.timeout.ms in effect",
            "file_id": "input", "line": "line", "byte": "byte offset",
        },
        ("last_time", "last_time"),
        (("file_id", "line", "byte"),),
    )
)

PARTITION_GAPS = _register(
    FactTable(
        "prepared_partitions",
        "One row per partition listed in a prepared transaction in __transaction_state, joined with "
        "the data evidence of that partition.",
        {
            "transactional_id": "transactional.id", "producer_id": "producer id", "producer_epoch": "epoch",
            "topic": "topic", "partition": "partition",
            "prepare_state": "PrepareCommit or PrepareAbort", "prepare_time": "time of the Prepare* record",
            "marker_seen": "the data evidence has this producer's marker after the prepare",
            "covered": "the data evidence of this partition extends past prepare_time",
            "first_offset": "first offset of the producer's open span on this partition; -1",
            "partition_end_time": "last time seen on the partition",
            "file_id": "input", "line": "line", "byte": "byte offset",
        },
        ("prepare_time", "partition_end_time"),
        (("file_id", "line", "byte"),),
    )
)

CONFIGS = _register(
    FactTable(
        "configs",
        "One row per client or broker configuration linted together as one deployment (`kafkadiag lint`): "
        "effective values after Kafka's version-aware defaults, plus the broker values the client meets. "
        "Secret values never reach this table.",
        {
            "row_id": "position of the row in the table (links findings back to the source lines)",
            "file_id": "input file number", "line": "line of the row's anchor key (1 when none)",
            "file": "path of the config file as given", "dialect": "java, librdkafka, streams, spring, flink or broker",
            "role": "producer, consumer, streams, broker, topic or client (no producer or consumer keys)",
            "section": "where in the file the row comes from (Spring scope, YAML document, kafka-configs entity, JSON section)",
            "kafka_version": "Kafka version whose defaults apply (--kafka-version)",
            "version_code": "that version as major*100+minor (3.7 is 307)",
            "version_assumed": "no --kafka-version (or kafka-version setting) was given: kafka_version is the newest known",
            "start_time": "always -1 (configs have no time)", "end_time": "always -1",
            "transactional_id": "transactional.id, Spring transaction-id-prefix or Flink transactional-id prefix; ''",
            "topic": "topic of a kafka-configs topic entity; ''",
            "transactional": "the client runs transactions (transactional.id, Streams exactly-once, Flink exactly-once)",
            "transactional_id_shape": "uuid, random, host, pid, time or plain: how the id is generated ('' none)",
            "idempotence_config": "enable.idempotence as written (true, false or '' when unset)",
            "idempotence_requested": "idempotence asked for: enable.idempotence=true, or implied by transactions",
            "enable_idempotence": "idempotence the client starts with: as set, implied by transactions, or the version default",
            "acks": "acks in effect (all, 1 or 0)",
            "retries": "retries in effect", "max_in_flight": "max.in.flight.requests.per.connection in effect",
            "max_in_flight_set": "max.in.flight.requests.per.connection is set explicitly",
            "linger_ms": "linger.ms in effect", "request_timeout_ms": "request.timeout.ms in effect",
            "delivery_timeout_ms": "delivery.timeout.ms (librdkafka: message.timeout.ms) in effect",
            "delivery_timeout_set": "delivery.timeout.ms / message.timeout.ms is set explicitly",
            "min_delivery_timeout_ms": "linger.ms + request.timeout.ms",
            "recommended_delivery_timeout_ms": "max(120000, linger.ms + request.timeout.ms)",
            "transaction_timeout_ms": "transaction.timeout.ms in effect",
            "transaction_timeout_set": "transaction.timeout.ms is set explicitly",
            "socket_timeout_ms": "librdkafka socket.timeout.ms in effect (-1 for other clients)",
            "socket_timeout_set": "socket.timeout.ms is set explicitly",
            "socket_timeout_limit_ms": "transaction.timeout.ms + 100 (the most librdkafka accepts for socket.timeout.ms)",
            "recommended_socket_timeout_ms": "max(transaction.timeout.ms - 100, 900), librdkafka's own choice",
            "isolation_level": "consumer isolation.level in effect ('' for non-consumers)",
            "processing_guarantee": "Kafka Streams processing.guarantee ('' for other clients)",
            "eos": "Kafka Streams runs with an exactly-once guarantee",
            "commit_interval_ms": "Kafka Streams commit.interval.ms in effect; -1",
            "recommended_commit_interval_ms": "half the producer transaction.timeout.ms",
            "delivery_guarantee": "Flink sink delivery guarantee (exactly-once, at-least-once, none; '')",
            "flink_prefix_required": "an exactly-once KafkaSink (not the legacy FlinkKafkaProducer's sink.semantic): it needs a transactional id prefix",
            "checkpoint_interval_ms": "Flink execution.checkpointing.interval from any Flink file of the deployment; -1",
            "recommended_flink_timeout_ms": "checkpoint interval + checkpoint timeout, capped at the broker maximum",
            "txn_state_replication_factor": "broker transaction.state.log.replication.factor; -1",
            "txn_state_min_isr": "broker transaction.state.log.min.isr; -1",
            "unknown_keys": "settings whose name Kafka does not know but is one or two edits from a real key",
            "unknown_key_list": "those settings, each with the real key it most likely meant",
            "ignored_keys": "settings the framework or client never passes on (wrong place, or overridden by Streams)",
            "ignored_key_list": "those settings, each with where it belongs",
            "recommended_txn_min_isr": "transaction.state.log.min.isr that fits the broker count (1 for one or two brokers, else 2)",
            "broker_count": "brokers of the cluster the file shows (compose broker services, Strimzi replicas); -1 unknown",
            "unclean_leader_election": "unclean.leader.election.enable of a broker or topic",
            "broker_given": "a broker config is part of the deployment",
            "broker_max_timeout_ms": "transaction.max.timeout.ms (lowest of the broker files, default 900000)",
            "broker_abort_interval_ms": "transaction.abort.timed.out.transaction.cleanup.interval.ms (default 10000)",
            "broker_producer_id_expiration_ms": "producer.id.expiration.ms (transactional.id.expiration.ms before 3.4)",
            "broker_transactional_id_expiration_ms": "transactional.id.expiration.ms (default 7 days)",
            "reads_txn_output": "a consumer the files show reading a transactional producer's output: a topic in common, or (topics unknown) the producer in another file",
            "deployment_txn": "yes (a transactional client is in the deployment), no (producers, none transactional) or unknown",
            "known_idle_ms": "longest known idle gap of this transactional.id (settings infrequent-producers / --idle); -1",
            "recommended_expiration_ms": "twice known_idle_ms, capped at the int maximum",
            "recommended_producer_id_expiration_ms": "max(86400000, delivery.timeout.ms)",
            "plaintext_secrets": "sensitive keys holding a literal credential rather than a placeholder",
            "plaintext_secret_keys": "names (never values) of those keys, comma-joined",
        },
        ("start_time", "end_time"),
        (("file_id", "line", "row_id"),),
    )
)


def _log_event_columns() -> dict[str, str]:
    from ..tables import LOG_EVENTS

    columns = {c.name: c.doc for c in LOG_EVENTS.columns}
    columns["who"] = "readable subject of the event: transactional.id, client, producer id or component, as known"
    return columns


LOG_EVENT_TABLE = _register(
    FactTable(
        "log_events",
        "One row per client, broker or tool log event (log-signature rules read it directly).",
        _log_event_columns(),
        ("time", "time"),
        (("file_id", "line", "byte"),),
    )
)
