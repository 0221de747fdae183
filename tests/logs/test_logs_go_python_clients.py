"""sarama, franz-go, aiokafka / kafka-python: their log lines, error texts and Python tracebacks."""

from __future__ import annotations

from loghelp import read_fixture, utc_ms


def test_sarama_transaction_manager_lines() -> None:
    result = read_fixture("sarama.log")
    assert result.report.kinds == ["log/go"]
    init = result.at(2)
    assert (init["library"], init["transactional_id"], init["producer_id"], init["producer_epoch"]) == ("sarama", "audit-tx-1", 15000, 2)
    assert init["time"] == utc_ms("2024-05-14T19:00:00")
    transition = result.at(3)
    assert (transition["state_from"], transition["state_to"]) == ("ProducerTxnStateReady", "ProducerTxnStateInTransaction")
    assert result.at(4)["error"] == "CONCURRENT_TRANSACTIONS"
    fatal = result.at(5)
    assert fatal["state_to"] == "ProducerTxnStateInError|ProducerTxnStateFatalError" and fatal["exceptions"] == ""
    app = result.at(6)
    assert app["library"] == "sarama" and app["error"] == "INVALID_PRODUCER_EPOCH"


def test_franz_go_basic_logger_and_zap_lines() -> None:
    result = read_fixture("franz_go.log")
    init = result.at(1)
    assert (init["level"], init["producer_id"], init["producer_epoch"], init["time"]) == ("INFO", 22001, 5, -1)
    assert result.at(2)["transactional_id"] == "search-indexer-tx"
    concurrent = result.at(3)
    assert (concurrent["library"], concurrent["level"], concurrent["error"]) == ("franz-go", "WARN", "CONCURRENT_TRANSACTIONS")
    assert result.at(4)["error"] == "INVALID_PRODUCER_ID_MAPPING"
    zap = result.at(5)
    assert (zap["level"], zap["error"], zap["time"]) == ("ERROR", "PRODUCER_FENCED", utc_ms("2024-05-14T19:30:02.120"))


def test_aiokafka_and_kafka_python_tracebacks() -> None:
    result = read_fixture("aiokafka.log")
    assert result.report.kinds == ["log/python"]
    assert result.at(1)["library"] == "aiokafka"
    fenced = result.at(2)
    assert fenced["lines"] == 7 and fenced["library"] == "aiokafka"
    assert (fenced["exception"], fenced["error"]) == ("ProducerFenced", "PRODUCER_FENCED")
    chained = result.at(9)  # "The above exception was the direct cause": outermost is printed last
    assert chained["lines"] == 11 and chained["exceptions"] == "CheckoutError,KafkaTimeoutError"
    assert chained["root_cause"] == "KafkaTimeoutError" and chained["error"] == ""
    sequence = result.at(20)
    assert sequence["library"] == "kafka-python" and sequence["error"] == "OUT_OF_ORDER_SEQUENCE_NUMBER"
    assert (sequence["topic"], sequence["partition"]) == ("checkout", 3)
