"""The small parts: timestamps, levels, error names, identifier spellings, line cleaning."""

from __future__ import annotations

import pytest

from loghelp import utc_ms
from kafkadiag.readers.logs import errornames
from kafkadiag.readers.logs.clean import clean
from kafkadiag.readers.logs.errornames import find_errors
from kafkadiag.readers.logs.fields import Fields, read_pairs, read_phrases, strip_context
from kafkadiag.readers.logs.levels import normalise_level, syslog_level
from kafkadiag.readers.logs.times import Anchor, Stamp, parse_stamp


@pytest.mark.parametrize(("text", "iso"), [
    ("2024-05-14 10:15:02,117", "2024-05-14T10:15:02.117"),
    ("2024-05-14 10:15:02.117", "2024-05-14T10:15:02.117"),
    ("2024-05-14T10:15:02.117Z", "2024-05-14T10:15:02.117"),
    ("2024-05-14T12:15:02.117+02:00", "2024-05-14T10:15:02.117"),
    ("2024-05-14T05:15:02.117-0500", "2024-05-14T10:15:02.117"),
    ("2024-05-14 10:15:02.117456789", "2024-05-14T10:15:02.117"),
    ("2024-05-14T10:15:02.1174567Z", "2024-05-14T10:15:02.117"),
    ("[2024-05-14 10:15:02,117]", "2024-05-14T10:15:02.117"),
    ("2024/05/14 10:15:02.117000", "2024-05-14T10:15:02.117"),
    ("2024-05-14 10:15:02", "2024-05-14T10:15:02"),
    ("1715681702.117", "2024-05-14T10:15:02.117"),
    ("1715681702117", "2024-05-14T10:15:02.117"),
    ("1715681702117000000", "2024-05-14T10:15:02.117"),
    ("14-May-2024 10:15:02.117", "2024-05-14T10:15:02.117"),
    ("May 14, 2024 10:15:02", "2024-05-14T10:15:02"),
])
def test_timestamps(text: str, iso: str) -> None:
    assert parse_stamp(text).ms == utc_ms(iso)


def test_dateless_timestamps_need_an_anchor() -> None:
    assert parse_stamp("10:15:02.117") == Stamp(tod=36902117)
    syslog = parse_stamp("May 14 10:15:02")
    assert syslog.ms == -1 and syslog.month_day == 514
    anchor = Anchor()
    assert anchor.resolve(syslog) == -1  # no full date seen yet
    anchor.resolve(parse_stamp("2024-05-13 08:00:00"))
    assert anchor.resolve(syslog) == utc_ms("2024-05-14T10:15:02")
    assert parse_stamp("not a time").ms == -1 and parse_stamp("2024-13-45 10:15:02").ms == -1


@pytest.mark.parametrize(("word", "level"), [("WARNING", "WARN"), ("warn", "WARN"), ("ERR", "ERROR"), ("SEVERE", "ERROR"),
                                             ("fail", "ERROR"), ("CRITICAL", "FATAL"), ("Information", "INFO"),
                                             ("dbug", "DEBUG"), ("VRB", "TRACE"), ("nonsense", "")])
def test_levels(word: str, level: str) -> None:
    assert normalise_level(word) == level


def test_librdkafka_levels_follow_syslog() -> None:
    assert [syslog_level(n) for n in range(8)] == ["ERROR"] * 4 + ["WARN", "INFO", "INFO", "DEBUG"]


@pytest.mark.parametrize(("exception", "error"), [
    ("ProducerFencedException", "PRODUCER_FENCED"),
    ("InvalidProducerEpochException", "INVALID_PRODUCER_EPOCH"),
    ("InvalidPidMappingException", "INVALID_PRODUCER_ID_MAPPING"),
    ("InvalidTxnStateException", "INVALID_TXN_STATE"),
    ("OutOfOrderSequenceException", "OUT_OF_ORDER_SEQUENCE_NUMBER"),
    ("UnknownProducerIdException", "UNKNOWN_PRODUCER_ID"),
    ("TransactionalIdAuthorizationException", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"),
    ("InvalidTxnTimeoutException", "INVALID_TRANSACTION_TIMEOUT"),
    ("ConcurrentTransactionsException", "CONCURRENT_TRANSACTIONS"),
    ("CoordinatorNotAvailableException", "COORDINATOR_NOT_AVAILABLE"),
    ("NotCoordinatorException", "NOT_COORDINATOR"),
    ("CoordinatorLoadInProgressException", "COORDINATOR_LOAD_IN_PROGRESS"),
    ("TransactionAbortableException", "TRANSACTION_ABORTABLE"),
    ("TransactionalIdNotFoundException", "TRANSACTIONAL_ID_NOT_FOUND"),
    ("NotLeaderOrFollowerException", "NOT_LEADER_OR_FOLLOWER"),
    ("RecordTooLargeException", "MESSAGE_TOO_LARGE"),
    ("ProducerFenced", "PRODUCER_FENCED"),
    ("InvalidProducerEpoch", "INVALID_PRODUCER_EPOCH"),
    ("RequestTimedOutError", "REQUEST_TIMED_OUT"),
    ("TimeoutException", ""),
    ("KafkaException", ""),
    ("IllegalStateException", ""),
    ("TransactionAbortedException", ""),
])
def test_exception_classes_map_only_when_one_to_one(exception: str, error: str) -> None:
    assert errornames.error_of_exception(exception) == error


@pytest.mark.parametrize(("text", "errors"), [
    ("KafkaError{code=_FENCED,val=-144,str=\"x\"}", ["FENCED"]),
    ("RD_KAFKA_RESP_ERR__TIMED_OUT then ERR_INVALID_PRODUCER_EPOCH", ["TIMED_OUT", "INVALID_PRODUCER_EPOCH"]),
    ("Broker: Not leader for partition", ["NOT_LEADER_OR_FOLLOWER"]),
    ("Local: Message timed out", ["MSG_TIMED_OUT"]),
    ("Local: Timed out in queue", ["TIMED_OUT_QUEUE"]),
    ("kafka server: The producer attempted to use a producer id which is not currently assigned to its transactional id",
     ["INVALID_PRODUCER_ID_MAPPING"]),
    ("Error: NOT_LEADER_FOR_PARTITION", ["NOT_LEADER_OR_FOLLOWER"]),
    ("state IN_TRANSACTION to FATAL_ERROR, MY_APP_CODE", []),
    ("Aborting after error: Local_MsgTimedOut", ["MSG_TIMED_OUT"]),
])
def test_error_names_are_normalised(text: str, errors: list[str]) -> None:
    assert find_errors(text, []) == errors


def test_main_error_prefers_transaction_errors() -> None:
    assert errornames.main_error(["REQUEST_TIMED_OUT", "PRODUCER_FENCED"]) == "PRODUCER_FENCED"
    assert errornames.main_error(["NOT_LEADER_OR_FOLLOWER", "COORDINATOR_NOT_AVAILABLE"]) == "COORDINATOR_NOT_AVAILABLE"
    assert errornames.main_error([]) == ""


def _fields(text: str, librdkafka: bool = False) -> Fields:
    fields = Fields()
    text = strip_context(text, fields)
    read_pairs(text, fields)
    read_phrases(text, fields, librdkafka)
    return fields


@pytest.mark.parametrize(("text", "pid", "epoch"), [
    ("producerId=1000, epoch=3", 1000, 3),
    ("producerId: 1000", 1000, -1),
    ("PID{Id:1000,Epoch:3}", 1000, 3),
    ("ProducerIdAndEpoch(producerId=1000, epoch=3)", 1000, 3),
    ("with current producer ID and epoch (producerId=1000, epoch=3) in order", 1000, 3),
    ("Ignoring batch with producer id 1000, epoch 3, and sequence number 5", 1000, 3),
    ("Initialized transactionalId t with producerId 1000 and producer epoch 3 on partition __transaction_state-2", 1000, 3),
    ("ProducerId set to 1000 with epoch 3", 1000, 3),
    ("Epoch of producer 1000 at offset 5 in t-0 is 2, which is smaller than the last seen epoch 3", 1000, 2),
    ('{"producerId":1000,"producerEpoch":3}', 1000, 3),
    ("leaderEpoch=7 coordinatorEpoch=9", -1, -1),
])
def test_producer_id_and_epoch_spellings(text: str, pid: int, epoch: int) -> None:
    fields = _fields(text)
    assert (fields.producer_id, fields.producer_epoch) == (pid, epoch)


@pytest.mark.parametrize(("text", "topic", "partition"), [
    ("on topic-partition orders-3, retrying", "orders", 3),
    ("TopicPartition(topic='orders', partition=3)", "orders", 3),
    ("Expiring 2 record(s) for my-topic.v2-11:120001 ms has passed", "my-topic.v2", 11),
    ("topicPartitions=HashSet(orders-7)", "orders", 7),
    ('"topic":"orders","partition":3', "orders", 3),
    ("for producer-1 and thread StreamThread-3", "", -1),
])
def test_topic_partition_spellings(text: str, topic: str, partition: int) -> None:
    fields = _fields(text)
    assert (fields.topic, fields.partition) == (topic, partition)


@pytest.mark.parametrize("text", ["payments [2]: 12 message(s) timed out", "Topic [payments] [2]: partition is down",
                                  'Failed to add partition "payments" [2] to transaction'])
def test_librdkafka_topic_partition(text: str) -> None:
    fields = _fields(text, librdkafka=True)
    assert (fields.topic, fields.partition) == ("payments", 2)


def test_librdkafka_thread_names_are_not_topics() -> None:
    assert _fields("[thrd:main] [3] nothing here", librdkafka=True).topic == ""


@pytest.mark.parametrize(("text", "txn"), [
    ("[Producer clientId=p-1, transactionalId=tx-1] hello", "tx-1"),
    ("transactional.id = tx-2", "tx-2"),
    ("TransactionalId tx-3: Invalid transition attempted from state A to state B", "tx-3"),
    ("Completed rollback of ongoing transaction for transactionalId tx-4 due to timeout", "tx-4"),
    ("Returning PRODUCER_FENCED error code to client for tx-5's InitProducerId request", "tx-5"),
    ("There is a newer producer with the same transactionalId which fences the current one.", ""),
    ("not currently assigned to its transactional id (INVALID_PRODUCER_ID_MAPPING)", ""),
    ("txnmgr/endtxn [tx-6] retrying after 100ms", "tx-6"),
    ("transactional.id = null", ""),
    ("Found duplicate transactionalIdPrefix for multiple Kafka sinks: orders-. Transactional id prefixes need to be unique.", ""),
    ("The transactional id mapping is no longer valid", ""),
])
def test_transactional_id_spellings(text: str, txn: str) -> None:
    assert _fields(text).transactional_id == txn


def test_client_and_group_ids_and_states() -> None:
    fields = _fields("[Consumer clientId=c-1, groupId=g-1] Transition from state READY to IN_TRANSACTION in state READY")
    assert (fields.client_id, fields.group_id, fields.state_from, fields.state_to) == ("c-1", "g-1", "READY", "IN_TRANSACTION")
    assert fields.txn_state == "READY"
    assert _fields("Preparing to rebalance group payments in state PreparingRebalance").txn_state == ""
    assert _fields("txnTimeoutMs=60000, state=Ongoing").timeout_ms == 60000


@pytest.mark.parametrize(("raw", "prefix", "text"), [
    ("kafka_1  | [2024-05-14 10:00:00,000] INFO x", "kafka_1", "[2024-05-14 10:00:00,000] INFO x"),
    ("[pod/web-7f9c/app] 2024-05-14 10:00:00 INFO x", "pod/web-7f9c/app", "2024-05-14 10:00:00 INFO x"),
    ("\x1b[32mINFO\x1b[0m done\r", "", "INFO done"),
    ("\\_\\_transaction\\_state-3 \u201cquoted\u201d", "", '__transaction_state-3 "quoted"'),
    ("INFO  | main | started", "", "INFO  | main | started"),
    ("| a | b | c |", "", "| a | b | c |"),
])
def test_clean(raw: str, prefix: str, text: str) -> None:
    assert clean(raw) == (prefix, text)


@pytest.mark.parametrize(("text", "errors"), [
    ("Received transactional response AddPartitionsToTxnResponseData(throttleTimeMs=0, errorCode=51) for request", ["CONCURRENT_TRANSACTIONS"]),
    ('produce response {"error_code": 47, "base_offset": -1}', ["INVALID_PRODUCER_EPOCH"]),
    ("EndTxnResponseData(throttleTimeMs=0, errorCode=0)", []),  # 0: no error
    ("query failed: SQL error code: 7", []),  # a number only names a Kafka error in a text about Kafka
])
def test_protocol_errors_by_number(text: str, errors: list[str]) -> None:
    assert find_errors(text, []) == errors
