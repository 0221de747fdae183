"""Java client layouts: Spring Boot, log4j/log4j2/logback, Kafka Streams, Flink, Quarkus, lines without timestamps."""

from __future__ import annotations

from loghelp import fixture_bytes, read_fixture, read_log, utc_ms


def test_spring_boot_3_events_fields_and_stack_traces() -> None:
    result = read_fixture("java_spring_boot.log")
    assert result.report.kinds == ["log/java"]
    assert result.report.lines == 35 and result.report.skipped == 0
    assert result.report.notes == {"other log lines": 2}  # order accepted, heap used: chatter, not skips
    config = result.at(1)
    assert config["lines"] == 7 and config["byte"] == 0 and config["seq"] == 0
    assert config["client_id"] == "orders-api-producer-1" and config["transactional_id"] == "orders-api-tx-0"
    assert config["timeout_ms"] == 60000 and config["message"] == "ProducerConfig values:"
    created = result.at(9)
    assert created["byte"] == 327 and created["time"] == utc_ms("2024-05-14T09:58:01.391")
    assert created["message"] == "Instantiated a transactional producer."
    assert (created["source"], created["library"], created["level"]) == ("client", "java", "INFO")
    assert created["logger"] == "o.a.k.clients.producer.KafkaProducer"
    assert result.at(13)["coordinator_id"] == 2
    pid = result.at(14)
    assert (pid["producer_id"], pid["producer_epoch"]) == (4001, 12)
    transition = result.at(15)
    assert (transition["level"], transition["state_from"], transition["state_to"]) == ("DEBUG", "READY", "IN_TRANSACTION")
    retry = result.at(17)
    assert (retry["topic"], retry["partition"], retry["error"]) == ("orders", 3, "REQUEST_TIMED_OUT")
    fatal = result.at(18)
    assert fatal["error"] == "PRODUCER_FENCED" and fatal["exception"] == "ProducerFencedException"
    assert fatal["message"].startswith("Transiting to fatal error state due to")
    listener = result.at(19)
    assert listener["library"] == "spring" and listener["lines"] == 3 and listener["error"] == "PRODUCER_FENCED"
    servlet = result.at(23)
    assert servlet["lines"] == 11 and servlet["level"] == "ERROR"
    assert servlet["exceptions"] == "KafkaException,ProducerFencedException"
    assert (servlet["exception"], servlet["root_cause"]) == ("KafkaException", "ProducerFencedException")
    assert list(result.events["seq"]) == list(range(len(result.events)))


def test_caused_by_chain_skips_suppressed_and_common_frames() -> None:
    result = read_fixture("java_boot2_log4j2.log")
    rolled_back = result.at(4)
    assert rolled_back["lines"] == 11 and rolled_back["library"] == "spring"
    assert rolled_back["exceptions"] == "ListenerExecutionFailedException,KafkaException,TimeoutException"
    assert rolled_back["root_cause"] == "TimeoutException"
    assert rolled_back["error"] == ""  # TimeoutException is not one protocol error; the suppressed one is not the chain
    assert "INVALID_TXN_STATE" not in rolled_back["errors"]
    assigned = result.at(2)
    assert (assigned["client_id"], assigned["group_id"], assigned["topic"], assigned["partition"]) == (
        "consumer-payments-1", "payments", "payments", 1)
    assert assigned["time"] == utc_ms("2024-05-14T10:02:11.602")


def test_short_time_only_layout_has_no_time_without_a_date() -> None:
    result = read_fixture("java_log4j2_short.log")
    assert set(result.events["time"]) == {-1}
    assert list(result.events["seq"]) == list(range(5))  # file order kept
    fatal = result.at(3)
    assert fatal["lines"] == 2 and fatal["error"] == "INVALID_PRODUCER_ID_MAPPING"
    assert fatal["exception"] == "InvalidPidMappingException"
    assert result.at(2)["producer_id"] == 90210
    assert result.at(5)["library"] == "java" and result.at(5)["transactional_id"] == "billing-tx-7"


def test_time_only_lines_take_the_last_full_date_and_roll_over_midnight() -> None:
    dated = b"2024-05-14 09:00:00,000 INFO  [main] org.apache.kafka.clients.producer.KafkaProducer - [Producer clientId=p, transactionalId=t] started\n"
    text = dated + fixture_bytes("java_log4j2_short.log")
    result = read_log(text)
    times = dict(zip(result.events["line"], result.events["time"]))
    assert times[1] == utc_ms("2024-05-14T09:00:00")
    assert times[2] == utc_ms("2024-05-14T10:12:00.101")  # the fixture's lines are one further down
    assert times[6] == utc_ms("2024-05-14T23:59:59.950")
    assert times[7] == utc_ms("2024-05-15T00:00:00.120")  # past midnight


def test_kafka_streams_in_kafka_log4j_layout() -> None:
    result = read_fixture("kafka_streams.log")
    assert result.report.kinds == ["log/java"]
    state = result.at(1)
    assert state["library"] == "streams" and state["state_from"] == "STARTING" and state["state_to"] == "PARTITIONS_ASSIGNED"
    assert state["logger"] == "org.apache.kafka.streams.processor.internals.StreamThread"
    pid = result.at(2)
    assert pid["transactional_id"] == "wordcount-7e8d9f00-5c1b-4d7e-9a11-3b2f6f9e1c2a-1"
    assert pid["client_id"] == "wordcount-7e8d9f00-5c1b-4d7e-9a11-3b2f6f9e1c2a-StreamThread-1-producer"
    assert (pid["producer_id"], pid["producer_epoch"], pid["time"]) == (7001, 3, utc_ms("2024-05-14T11:20:01.450"))
    fenced = result.at(3)
    assert fenced["lines"] == 5 and fenced["level"] == "WARN" and fenced["library"] == "streams"
    assert fenced["exceptions"] == "TaskMigratedException,InvalidProducerEpochException"
    assert fenced["error"] == "INVALID_PRODUCER_EPOCH"
    assert result.at(8)["group_id"] == "wordcount"


def test_flink_taskmanager_kafka_sink_and_two_phase_commit() -> None:
    result = read_fixture("flink_taskmanager.log")
    assert set(result.events["library"]) == {"flink", "java"}
    fenced = result.at(5)
    assert fenced["library"] == "flink" and fenced["lines"] == 2
    assert (fenced["transactional_id"], fenced["producer_id"], fenced["producer_epoch"]) == ("enriched-sink-0-17", 31005, 2)
    assert fenced["error"] == "PRODUCER_FENCED"
    legacy = result.at(7)
    assert legacy["logger"] == "org.apache.flink.streaming.api.functions.sink.TwoPhaseCommitSinkFunction"
    assert legacy["transactional_id"] == "Sink: legacy-sink-3b8f2a1c9d0e4f5a6b7c8d9e0f1a2b3c-4"
    assert (legacy["producer_id"], legacy["producer_epoch"]) == (31077, 5)
    lost = result.at(8)
    assert lost["error"] == "INVALID_TXN_STATE" and lost["transactional_id"] == "enriched-sink-1-17"
    assert result.at(3)["time"] == utc_ms("2024-05-14T12:00:01.748")


def test_quarkus_jboss_layout_with_abbreviated_loggers() -> None:
    result = read_fixture("quarkus.log")
    retry = result.at(3)
    assert retry["logger"] == "org.apa.kaf.cli.pro.int.TransactionManager" and retry["library"] == "java"
    assert (retry["client_id"], retry["transactional_id"]) == ("kafka-producer-shipments", "shipments-tx")
    assert (retry["topic"], retry["partition"], retry["error"]) == ("shipments", 2, "MESSAGE_TOO_LARGE")
    assert retry["time"] == utc_ms("2024-05-14T13:04:44.517")
    assert result.at(4)["exception"] == "TransactionAbortedException"
    assert 1 not in set(result.events["line"])  # Quarkus's own startup banner is chatter


def test_lines_without_any_timestamp() -> None:
    result = read_fixture("no_timestamps.log")
    assert set(result.events["time"]) == {-1}
    warn = result.at(1)
    assert (warn["level"], warn["logger"], warn["client_id"]) == ("WARN", "org.apache.kafka.clients.producer.internals.Sender", "reports-p-0")
    assert (warn["topic"], warn["partition"], warn["error"]) == ("reports", 1, "NOT_LEADER_OR_FOLLOWER")
    abortable = result.at(2)
    assert abortable["level"] == "ERROR" and abortable["transactional_id"] == "reports-tx-3"
    assert abortable["message"].startswith("Transiting to abortable error state")
    bare = result.at(3)
    assert bare["level"] == "" and (bare["producer_id"], bare["producer_epoch"]) == (17, 4)
    assert bare["lines"] == 2 and bare["error"] == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"


def test_log4j_thread_first_and_level_first_variants() -> None:
    text = (
        "2024-05-14 10:00:00,001 [kafka-producer-network-thread | p-1] WARN  org.apache.kafka.clients.producer.internals.TransactionManager - [Producer clientId=p-1, transactionalId=tx-a] Transiting to abortable error state due to org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available.\n"
        "2024-05-14 10:00:00,002 ERROR [main] org.apache.kafka.clients.producer.KafkaProducer:1234 - [Producer clientId=p-1, transactionalId=tx-a] Aborting incomplete transaction due to shutdown\n"
        "2024-05-14 10:00:00,003 INFO org.apache.kafka.clients.producer.internals.TransactionManager: [Producer clientId=p-1, transactionalId=tx-a] Invoking InitProducerId with current producer ID and epoch ProducerIdAndEpoch(producerId=77, epoch=9) in order to bump the epoch\n"
    )
    result = read_log(text)
    first, second, third = result.rows()
    assert first["level"] == "WARN" and first["error"] == "COORDINATOR_NOT_AVAILABLE"
    assert first["logger"] == "org.apache.kafka.clients.producer.internals.TransactionManager"
    assert second["level"] == "ERROR" and second["logger"] == "org.apache.kafka.clients.producer.KafkaProducer"
    assert second["message"] == "Aborting incomplete transaction due to shutdown"
    assert (third["producer_id"], third["producer_epoch"]) == (77, 9)
