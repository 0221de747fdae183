"""JSON layouts (logstash, ECS, log4j2 JsonLayout), cut JSON lines, KafkaJS JSON and printed error objects."""

from __future__ import annotations

import json

from loghelp import read_fixture, read_log, utc_ms


def test_logstash_ecs_and_log4j2_json_layouts() -> None:
    result = read_fixture("logstash.jsonl")
    assert result.report.kinds == ["log/java"] and result.report.notes == {"other log lines": 1}
    pid = result.at(1)
    assert pid["time"] == utc_ms("2024-05-14T12:00:00.120")  # +02:00 offset applied
    assert (pid["client_id"], pid["transactional_id"], pid["producer_id"], pid["producer_epoch"]) == (
        "inventory-p-1", "inventory-tx-3", 5120, 44)
    assert pid["logger"] == "org.apache.kafka.clients.producer.internals.TransactionManager"
    assert pid["message"] == "ProducerId set to 5120 with epoch 44"
    stack = result.at(2)  # stack_trace field + an MDC field carrying the transactional.id
    assert stack["exception"] == "InvalidPidMappingException" and stack["error"] == "INVALID_PRODUCER_ID_MAPPING"
    assert stack["transactional_id"] == "inventory-tx-3" and stack["library"] == "java"
    assert stack["message"] == "Failed to commit reservation batch"
    ecs = result.at(3)
    assert ecs["level"] == "WARN" and (ecs["topic"], ecs["partition"]) == ("inventory", 5)
    assert ecs["exception"] == "TimeoutException" and ecs["error"] == ""
    log4j2 = result.at(4)
    assert log4j2["time"] == utc_ms("2024-05-14T12:00:06.250") and log4j2["exception"] == "TimeoutException"
    cut = result.at(6)  # the last line was cut mid-way: fields still come out
    assert cut["level"] == "ERROR" and cut["transactional_id"] == "inventory-tx-4"
    assert (cut["state_from"], cut["state_to"]) == ("COMMITTING_TRANSACTION", "ABORTING_TRANSACTION")
    assert cut["exception"] == "IllegalStateException"


def test_kafkajs_json_lines_and_a_printed_error_object() -> None:
    result = read_fixture("kafkajs.log")
    assert result.report.kinds == ["log/kafkajs"]
    assert set(result.events["library"]) == {"kafkajs"}
    assert result.at(1)["group_id"] == "notifier"
    response = result.at(2)
    assert response["client_id"] == "notifier-svc" and response["error"] == "INVALID_PRODUCER_EPOCH"
    assert response["message"] == "[Connection] Response EndTxn(key: 26, version: 1)"
    assert response["time"] == utc_ms("2024-05-14T18:03:21.004")
    failed = result.at(3)
    assert failed["lines"] == 11  # the JSON line and the Node.js error object printed after it
    assert failed["exception"] == "KafkaJSProtocolError" and failed["error"] == "INVALID_PRODUCER_EPOCH"
    assert result.at(14)["level"] == "WARN"


def test_json_line_picks_fields_by_alias() -> None:
    lines = [
        {"ts": 1715688000.5, "level": "error", "logger": "kgo", "msg": "ending transaction failed",
         "err": "INVALID_TXN_STATE: The producer attempted a transactional operation in an invalid state.",
         "transactional_id": "search-tx"},
        {"time": "2024-05-14T12:00:01Z", "level": 50, "name": "notifier", "msg": "[Producer] produce failed",
         "producerId": 88, "producerEpoch": 1, "topic": "alerts", "partition": 4},
        {"@t": "2024-05-14T12:00:02.0000000Z", "@mt": "Kafka error {Reason}", "@l": "Warning",
         "@x": "Confluent.Kafka.KafkaException: Local: Timed out\n   at Confluent.Kafka.Producer`2.CommitTransaction()"},
    ]
    result = read_log("\n".join(json.dumps(x) for x in lines) + "\n")
    go, node, dotnet = result.rows()
    assert go["time"] == 1715688000500 and go["level"] == "ERROR" and go["error"] == "INVALID_TXN_STATE"
    assert go["transactional_id"] == "search-tx"
    assert node["level"] == "ERROR" and (node["producer_id"], node["producer_epoch"]) == (88, 1)
    assert (node["topic"], node["partition"]) == ("alerts", 4)
    assert dotnet["level"] == "WARN" and dotnet["error"] == "TIMED_OUT"
    assert dotnet["exception"] == "KafkaException" and dotnet["library"] == "confluent-kafka-dotnet"
