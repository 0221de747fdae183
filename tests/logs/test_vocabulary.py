"""The error vocabulary (rules/vocabulary/errors.yaml): valid, shipped, and every spelling found end to end."""

from __future__ import annotations

import re

import tomllib
from pathlib import Path

import numpy as np
import pytest
import yaml

from loghelp import read_log
from kafkadiag.readers.logs import errornames
from kafkadiag.readers.logs.errornames import find_errors
from kafkadiag.readers.logs.hits import BASE_KEYWORDS, KEYWORDS, hit_mask, line_array
from kafkadiag.readers.logs.stack import exceptions_in_text
from kafkadiag.readers.logs.vocabulary import (
    CATEGORIES, FAMILIES, VOCABULARY, VocabularyError, parse, read_source, spelling_kind,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCE, TEXT = read_source()
#: Every listed spelling, and every entry's own name as clients print it.
SPELLINGS = sorted(set(VOCABULARY.spellings()) | {
    (e.name, "name", "_" + e.name if e.local else e.name) for e in VOCABULARY.entries.values()
})
README_CATEGORIES = {
    "fencing", "expired-transactional-id", "transaction-timeout", "hanging-transaction", "request-timeout",
    "out-of-order-sequence", "unknown-producer-id", "invalid-state-transition", "unresolved-sequences",
    "concurrent-transactions", "coordinator-unavailable", "authorization", "invalid-txn-timeout-config", "config-misuse",
}


def test_the_vocabulary_validates_and_every_category_is_known() -> None:
    vocabulary = parse(TEXT, SOURCE)
    assert CATEGORIES == README_CATEGORIES | {"other"}
    assert {e.category for e in vocabulary.entries.values()} <= CATEGORIES
    assert {e.tier for e in vocabulary.entries.values()} <= {0, 1, 2}
    assert {family for _, family, _ in vocabulary.spellings()} <= set(FAMILIES)
    assert len(vocabulary.kafka_errors) >= 134 and len(vocabulary.local_errors) >= 63  # Errors.java, rdkafka.h


@pytest.mark.parametrize(("name", "category", "tier"), [
    ("PRODUCER_FENCED", "fencing", 0), ("INVALID_PRODUCER_EPOCH", "fencing", 0), ("FENCED", "fencing", 0),
    ("INVALID_PRODUCER_ID_MAPPING", "expired-transactional-id", 0), ("TRANSACTIONAL_ID_NOT_FOUND", "expired-transactional-id", 0),
    ("INVALID_TXN_STATE", "invalid-state-transition", 0), ("OUT_OF_ORDER_SEQUENCE_NUMBER", "out-of-order-sequence", 0),
    ("DUPLICATE_SEQUENCE_NUMBER", "out-of-order-sequence", 0), ("UNKNOWN_PRODUCER_ID", "unknown-producer-id", 0),
    ("INVALID_TRANSACTION_TIMEOUT", "invalid-txn-timeout-config", 0),
    ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "authorization", 0), ("CONCURRENT_TRANSACTIONS", "concurrent-transactions", 0),
    ("TRANSACTION_ABORTABLE", "transaction-timeout", 0), ("TRANSACTION_COORDINATOR_FENCED", "coordinator-unavailable", 0),
    ("CLUSTER_AUTHORIZATION_FAILED", "authorization", 1), ("TOPIC_AUTHORIZATION_FAILED", "authorization", 1),
    ("GROUP_AUTHORIZATION_FAILED", "authorization", 1), ("COORDINATOR_NOT_AVAILABLE", "coordinator-unavailable", 1),
    ("NOT_COORDINATOR", "coordinator-unavailable", 1), ("COORDINATOR_LOAD_IN_PROGRESS", "coordinator-unavailable", 1),
    ("REQUEST_TIMED_OUT", "request-timeout", 1), ("TIMED_OUT", "request-timeout", 1), ("MSG_TIMED_OUT", "request-timeout", 1),
    ("TIMED_OUT_QUEUE", "request-timeout", 1), ("FATAL", "other", 1),
    ("NOT_ENOUGH_REPLICAS", "other", 2), ("NOT_ENOUGH_REPLICAS_AFTER_APPEND", "other", 2),
    ("NOT_LEADER_OR_FOLLOWER", "other", 2), ("UNSTABLE_OFFSET_COMMIT", "hanging-transaction", 2),
    ("NETWORK_EXCEPTION", "other", 2), ("STATE", "invalid-state-transition", 2), ("INCONSISTENT", "unresolved-sequences", 2),
    ("PURGE_QUEUE", "other", 2), ("PURGE_INFLIGHT", "other", 2), ("NOT_CONFIGURED", "config-misuse", 2),
])
def test_the_errors_that_bear_on_transactions_have_entries(name: str, category: str, tier: int) -> None:
    assert errornames.category_of(name) == category and errornames.tier(name) == tier
    assert VOCABULARY.entries[name].spellings


def test_entries_agree_with_kafka() -> None:
    fenced, concurrent, local = (VOCABULARY.entries[n] for n in ("PRODUCER_FENCED", "CONCURRENT_TRANSACTIONS", "FENCED"))
    assert (fenced.code, fenced.retriable, fenced.exception) == (90, False, "ProducerFencedException")
    assert (concurrent.code, concurrent.retriable) == (51, True)  # ConcurrentTransactionsException is retriable
    assert (local.code, local.local, local.exception) == (-144, True, None)
    assert errornames.category_of("_FENCED") == "fencing"
    assert errornames.category_of("OFFSET_OUT_OF_RANGE") == "other" and errornames.category_of("NOT_AN_ERROR") == ""


@pytest.mark.parametrize(("name", "family", "spelling"), SPELLINGS, ids=lambda v: str(v)[:60])
def test_every_spelling_alone_is_found_as_its_error(name: str, family: str, spelling: str) -> None:
    assert find_errors(spelling, exceptions_in_text(spelling))[:1] == [name]
    if spelling_kind(spelling) == "phrase":
        assert find_errors(spelling.upper() + ".", [])[:1] == [name]  # case and a final period do not matter


def test_every_spelling_passes_the_prefilter_alone_on_a_line() -> None:
    data = "".join(spelling + "\n" for _, _, spelling in SPELLINGS).encode()
    starts = np.flatnonzero(np.frombuffer(b"\n" + data[:-1], dtype=np.uint8) == 10)
    mask = hit_mask(line_array(data, starts))
    assert mask.all(), [SPELLINGS[i] for i in np.flatnonzero(~mask)]


def test_the_prefilter_keeps_its_own_words_and_matches_names_as_whole_tokens() -> None:
    assert KEYWORDS[: len(BASE_KEYWORDS)] == BASE_KEYWORDS and "thrd:" in BASE_KEYWORDS and "txn" in BASE_KEYWORDS
    lines = ["security.protocol = SASL_SSL", "KafkaError{code=_SSL,val=-181}", "state MY_STATE_X", "code=_STATE"]
    data = "".join(line + "\n" for line in lines).encode()
    starts = np.flatnonzero(np.frombuffer(b"\n" + data[:-1], dtype=np.uint8) == 10)
    assert hit_mask(line_array(data, starts)).tolist() == [False, True, False, True]


def test_every_spelling_passes_the_prefilter_in_any_case() -> None:
    """The readers match an error's text ignoring case, so the prefilter must keep it too: people quote
    Sarama's "the broker received an out of order sequence number" in lower case. Names stay exact, and
    a text that holds a name or one of the prefilter's own words (``Local: ``) is kept by it as written."""
    texts = [spelling for _, _, spelling in SPELLINGS
             if spelling_kind(spelling) != "token" and not any(k in spelling for k in BASE_KEYWORDS)
             and not re.search(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+", spelling)]
    assert len(texts) > 50
    lines = [t.lower() for t in texts] + [t.upper() for t in texts]
    data = "".join(line + "\n" for line in lines).encode()
    starts = np.flatnonzero(np.frombuffer(b"\n" + data[:-1], dtype=np.uint8) == 10)
    mask = hit_mask(line_array(data, starts))
    assert mask.all(), [lines[i] for i in np.flatnonzero(~mask)][:5]
    assert find_errors("Sarama fails with `the broker received an out of order sequence number` when", []) == [
        "OUT_OF_ORDER_SEQUENCE_NUMBER"]


# Lines as the clients print them (texts from each client's source), read by the whole log reader.
@pytest.mark.parametrize(("line", "error"), [
    # sarama errors.go: ErrProducerFenced has no text of its own
    ("[sarama] 2024/05/14 10:00:01 txnmgr/endtxn [orders-tx-1] committing failed: Unknown error, how did this happen? "
     "Error code = 90", "PRODUCER_FENCED"),
    ("[sarama] 2024/05/14 10:00:01 txnmgr/add-partition-to-txn [orders-tx-1] retrying after 20ms because kafka server: "
     "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing",
     "CONCURRENT_TRANSACTIONS"),
    # franz-go kerr.go
    ('{"level":"warn","ts":"2024-05-14T10:00:01Z","msg":"produce failed","err":"NOT_LEADER_FOR_PARTITION: This server is '
     'not the leader for that topic-partition."}', "NOT_LEADER_OR_FOLLOWER"),
    # segmentio/kafka-go error.go
    ("2024/05/14 10:00:01 transaction failed: [47] Invalid Producer Epoch: the producer attempted an operation with an old "
     "epoch, either there is a newer producer with the same transactional ID, or the producer's transaction has been "
     "expired by the broker", "INVALID_PRODUCER_EPOCH"),
    ("2024/05/14 10:00:01 commit offsets: [14] Group Load In Progress: the broker returns this error code",
     "COORDINATOR_LOAD_IN_PROGRESS"),
    # aiokafka errors.py: ProducerFenced's default message, BrokerResponseError.__str__
    ("2024-05-14 10:00:01,123 ERROR aiokafka.producer.sender: aiokafka.errors.ProducerFenced: There is a newer producer "
     "using the same transactional_id ortransaction timeout occurred (check that processing time is below "
     "transaction_timeout_ms)", "PRODUCER_FENCED"),
    ("2024-05-14 10:00:01,123 ERROR app: send_offsets_to_transaction failed: [Error 49] InvalidProducerIdMapping",
     "INVALID_PRODUCER_ID_MAPPING"),
    # kafka-python errors.py
    ("2024-05-14 10:00:01,123 ERROR kafka.producer.transaction_manager: [Error 120] TransactionAbortableError: The server "
     "encountered an error with the transaction.", "TRANSACTION_ABORTABLE"),
    # KafkaJS src/protocol/error.js (type and message)
    ('{"level":"ERROR","timestamp":"2024-05-14T10:00:01.123Z","logger":"kafkajs","message":"[Connection] Response '
     'FindCoordinator(key: 10, version: 2)","broker":"kafka-1:9092","clientId":"orders","error":"The group coordinator is '
     'not available","correlationId":3,"size":55}', "COORDINATOR_NOT_AVAILABLE"),
    # librdkafka rdkafka_request.c / rdkafka_txnmgr.c / rdkafka.c
    ("%3|1715680801.123|TXNERR|rdkafka#producer-1| [thrd:main]: Current transaction failed in state InTransaction: "
     "ProduceRequest for orders [0] with 3 message(s) failed: Broker: Producer attempted an operation with an old epoch "
     "(broker 1 PID{Id:1000,Epoch:0}, base seq 0): transactional producer fenced by newer producer instance",
     "INVALID_PRODUCER_EPOCH"),
    ("2024-05-14 10:00:01,123 ERROR app: commit_transaction failed: 2 message(s) failed delivery (see individual "
     "delivery reports)", "INCONSISTENT"),
    ("2024-05-14 10:00:01,123 WARN app: commit_transaction: Timed out waiting for operation to finish, retry call to resume",
     "TIMED_OUT"),
    # confluent-kafka-dotnet ErrorCode.cs
    ("2024-05-14T10:00:01.123Z fail: Orders.Producer[0] Transaction commit failed with Code: GroupLoadInProress",
     "COORDINATOR_LOAD_IN_PROGRESS"),
    # Java: Kafka < 2.7 message of ProducerFencedException, TransactionManager's template, Kafka 0.10 names
    ("2024-05-14 10:00:01,123 ERROR [main] o.a.k.c.p.i.TransactionManager - Producer attempted an operation with an old "
     "epoch. Either there is a newer producer with the same transactionalId, or the producer's transaction has been "
     "expired by the broker.", "INVALID_PRODUCER_EPOCH"),
    ("2024-05-14 10:00:01,123 ERROR [main] c.e.Orders - commit failed: Producer with transactionalId 'orders-tx-1' and "
     "ProducerIdAndEpoch(producerId=1000, epoch=3) has been fenced by another producer with the same transactionalId",
     "PRODUCER_FENCED"),
    ("2024-05-14 10:00:01,123 WARN [main] o.a.k.c.c.i.AbstractCoordinator - Offset commit failed: NOT_COORDINATOR_FOR_GROUP",
     "NOT_COORDINATOR"),
])
def test_client_lines_name_their_error(line: str, error: str) -> None:
    rows = read_log(line + "\n").rows()
    assert len(rows) == 1 and error in rows[0]["errors"].split(","), rows


# ---------------------------------------------------------------------------------------------
# A bad file is refused with the file, the entry and the field named
# ---------------------------------------------------------------------------------------------

GOOD = {
    "name": "PRODUCER_FENCED", "code": 90, "retriable": False, "exception": "ProducerFencedException",
    "message": "There is a newer producer.", "category": "fencing", "tier": 0,
    "spellings": {"java": ["ProducerFencedException"], "librdkafka": ["Broker: There is a newer producer"]},
}


def _doc(*entries: dict, **extra: object) -> str:
    return yaml.safe_dump({"version": 1, "errors": list(entries), **extra}, sort_keys=False)


@pytest.mark.parametrize(("change", "expected"), [
    ({"category": "fenced"}, "errors[0] (PRODUCER_FENCED): field 'category': 'fenced' is not one of"),
    ({"tier": 3}, "field 'tier': 3 is not one of [0, 1, 2]"),
    ({"code": "90"}, "field 'code': '90' is not a protocol error code"),
    ({"retriable": "no"}, "field 'retriable': 'no' is not true or false"),
    ({"exception": None}, "field 'exception': None is not a Java class name"),
    ({"spellings": {"perl": ["x"]}}, "unknown client family 'perl'"),
    ({"spellings": {"java": []}}, "field 'spellings.java': expected a non-empty list"),
    ({"spellings": {"java": ["Fenced"]}}, "'Fenced' is too plain a word to name an error"),
    ({"spellings": {"java": ["a producer"]}}, "shorter than 12 characters"),
    ({"spellings": {"java": ["INVALID_PRODUCER_EPOCH"]}}, "'INVALID_PRODUCER_EPOCH' is the name of another error"),
    ({"colour": "red"}, "unknown field(s) ['colour']"),
])
def test_bad_entries_are_refused_naming_file_and_field(change: dict, expected: str) -> None:
    entry = {**GOOD, **change}
    with pytest.raises(VocabularyError) as err:
        parse(_doc(entry, other_protocol_errors={"INVALID_PRODUCER_EPOCH": 47}), "my-errors.yaml")
    assert str(err.value).startswith("my-errors.yaml: ") and expected in str(err.value)


def test_a_spelling_names_one_error_only_and_keys_are_not_repeated() -> None:
    other = {**GOOD, "name": "INVALID_PRODUCER_EPOCH", "code": 47, "exception": "InvalidProducerEpochException"}
    with pytest.raises(VocabularyError, match=r"errors\[1\] \(INVALID_PRODUCER_EPOCH\).*already spells PRODUCER_FENCED"):
        parse(_doc(GOOD, other), "x.yaml")
    with pytest.raises(VocabularyError, match="listed twice"):
        parse(_doc(GOOD, other_protocol_errors={"PRODUCER_FENCED": 90}), "x.yaml")
    with pytest.raises(VocabularyError, match=r"x.yaml: line \d+: invalid YAML: found duplicate key 'java'"):
        parse("version: 1\nerrors:\n- spellings:\n    java: [A]\n    java: [B]\n", "x.yaml")
    with pytest.raises(VocabularyError, match="x.yaml: version: 2 is not a supported version"):
        parse(_doc(GOOD).replace("version: 1", "version: 2"), "x.yaml")


def test_the_vocabulary_ships_in_the_wheel_as_its_own_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "kafkadiag.builtin_rules.vocabulary" in config["packages"]
    assert config["package-dir"]["kafkadiag.builtin_rules.vocabulary"] == "rules/vocabulary"
    assert "*.yaml" in config["package-data"]["kafkadiag.builtin_rules.vocabulary"]
    assert (ROOT / "rules" / "vocabulary" / "errors.yaml").is_file()


def test_kafka_counts_only_beyond_a_broker_logger_name_on_lines_no_keyword_kept() -> None:
    """The "kafka" pass runs on the lines the keywords left; a mixed block must come out as line by line."""
    lines = [
        "[2024-05-14 10:00:01,000] INFO [Log partition=orders-0] Rolled new segment (kafka.log.LocalLog)",  # logger only
        "2024-05-14 10:00:01 INFO kafka-clients version 3.7.0 started",  # "kafka" in the text
        "2024-05-14 10:00:01 INFO [thrd:main]: nothing else",  # a keyword
        "[2024-05-14 10:00:02,000] INFO kafka restarted (kafka.server.KafkaServer)",  # text and logger
        "plain chatter",
    ]
    data = "".join(line + "\n" for line in lines).encode()
    starts = np.flatnonzero(np.frombuffer(b"\n" + data[:-1], dtype=np.uint8) == 10)
    assert hit_mask(line_array(data, starts)).tolist() == [False, True, True, True, False]
    only_keywords = "".join(lines[2] + "\n" for _ in range(3)).encode()
    starts = np.flatnonzero(np.frombuffer(b"\n" + only_keywords[:-1], dtype=np.uint8) == 10)
    assert hit_mask(line_array(only_keywords, starts)).tolist() == [True, True, True]
