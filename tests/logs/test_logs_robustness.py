"""Bad input never crashes the reader: CRLF, ANSI, bad bytes, cut and huge lines, block edges, pasted text."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest

from loghelp import FIXTURES, read_fixture, read_log, utc_ms

LINE = ("2024-05-14 10:00:{s:02d}.{ms:03d}  WARN 1 --- [ad | p-1] o.a.k.clients.producer.internals.Sender  : "
        "[Producer clientId=p-1, transactionalId=tx-{n}] Got error produce response with correlation id {n} on "
        "topic-partition orders-{p}, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER\n")
TRACE = ("2024-05-14 10:01:00.000 ERROR 1 --- [main] c.e.App : commit failed\n"
         "org.apache.kafka.common.KafkaException: Cannot execute transactional method because we are in an error state\n"
         + "".join(f"\tat com.example.App.step{i}(App.java:{i})\n" for i in range(40))
         + "Caused by: org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one.\n"
         "\t... 40 more\n")


def _place_free(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["byte"])


def test_crlf_gives_the_same_events_as_lf() -> None:
    text = "".join(LINE.format(s=i % 60, ms=i, n=i, p=i % 4) for i in range(50)) + TRACE
    lf = read_log(text)
    crlf = read_log(text.replace("\n", "\r\n"))
    pd.testing.assert_frame_equal(_place_free(lf.events), _place_free(crlf.events))
    assert lf.events["lines"].iloc[-1] == 44 and lf.events["error"].iloc[-1] == "PRODUCER_FENCED"


@pytest.mark.parametrize("name", sorted(os.listdir(FIXTURES)))
def test_line_templates_give_the_same_rows_as_full_parsing(name: str) -> None:
    fast = read_fixture(name)
    full = read_fixture(name, fast=False)
    pd.testing.assert_frame_equal(fast.events, full.events)
    assert fast.report.to_json() == full.report.to_json()


@pytest.mark.parametrize("name", ["java_spring_boot.log", "broker_server.log", "kafkajs.log", "python_confluent_kafka.log",
                                  "kafka_transactions.txt", "app_stdout_mixed.log"])
def test_tiny_blocks_give_the_same_rows(name: str) -> None:
    whole = read_fixture(name)
    for block_size in (64, 333, 4096):
        pieces = read_fixture(name, block_size=block_size, chunk_rows=3)
        pd.testing.assert_frame_equal(whole.events, pieces.events)
        assert pieces.report.lines == whole.report.lines and pieces.report.notes == whole.report.notes


def test_template_rows_match_for_many_shapes() -> None:
    text = "".join(LINE.format(s=i % 60, ms=i % 1000, n=i * 7919 % 100000, p=i % 12) for i in range(2000))
    fast, full = read_log(text), read_log(text, fast=False)
    pd.testing.assert_frame_equal(fast.events, full.events)
    assert fast.events["partition"].tolist()[:3] == [0, 1, 2]


def test_ansi_colours_markdown_escapes_and_curly_quotes() -> None:
    result = read_fixture("pasted_issue.md")
    assert result.report.kinds == ["log/broker", "log/java"] and result.report.skipped == 0
    rollback = result.at(4)
    assert rollback["transactional_id"] == "ledger_tx_1" and rollback["source"] == "broker"
    state = result.at(5)
    assert (state["topic"], state["partition"]) == ("__transaction_state", 7)
    client = result.at(11)
    assert client["transactional_id"] == "ledger_tx_1" and client["error"] == "INVALID_PRODUCER_EPOCH"
    assert '"Producer attempted' in client["message"]
    coloured = "\x1b[1;31m2024-05-14 10:00:00.000 ERROR 1 --- [main] o.a.k.c.p.internals.TransactionManager : \x1b[0m[Producer clientId=p, transactionalId=t] Transiting to fatal error state due to org.apache.kafka.common.errors.ProducerFencedException: fenced\x1b[0m\n"
    (row,) = read_log(coloured).rows()
    assert row["level"] == "ERROR" and row["transactional_id"] == "t" and row["error"] == "PRODUCER_FENCED"
    assert "\x1b" not in row["message"] and row["time"] == utc_ms("2024-05-14T10:00:00")


def test_invalid_utf8_and_nul_free_garbage() -> None:
    text = (b"2024-05-14 10:00:00.000  INFO 1 --- [main] o.a.k.clients.producer.KafkaProducer : "
            b"[Producer clientId=p\xff\xfe-1, transactionalId=tx-\xc3\x28] Instantiated a transactional producer.\n"
            b"\xff\xfe\xfd broken bytes mentioning kafka \x80\x81\n")
    result = read_log(text)
    first = result.at(1)
    assert first["client_id"] == "p\ufffd\ufffd-1" and first["transactional_id"] == "tx-\ufffd("
    assert result.report.lines == 2


def test_cut_lines_and_missing_final_newline() -> None:
    text = (
        "2024-05-14 10:00:00.000  INFO 1 --- [main] o.a.k.clients.producer.KafkaProducer : [Producer clientId=p, transactionalId=t] Instantia\n"
        "2024-05-14 10:0\n"  # a line cut by log rotation: it continues the event above
        "2024-05-14 10:00:02.000 ERROR 1 --- [main] o.a.k.c.p.internals.TransactionManager : [Producer clientId=p, transactionalId=t] Transiting to fatal error state due to org.apache.kafka.common.errors.InvalidProducerEpochException: Producer attem"
    )
    result = read_log(text)
    assert result.report.lines == 3
    assert list(result.events["line"]) == [1, 3] and result.at(1)["lines"] == 2
    assert result.at(3)["error"] == "INVALID_PRODUCER_EPOCH" and result.at(3)["level"] == "ERROR"


def test_a_huge_line_is_cut_and_offsets_stay_exact() -> None:
    head = b"2024-05-14 10:00:00.000  INFO 1 --- [main] o.a.k.clients.producer.KafkaProducer : [Producer clientId=p, transactionalId=t] payload "
    huge = head + b"x" * (9 << 20) + b"\n"
    tail = b"2024-05-14 10:00:01.000  WARN 1 --- [main] o.a.k.clients.producer.internals.Sender : [Producer clientId=p, transactionalId=t] Got error produce response with correlation id 1 on topic-partition t-0, retrying (1 attempts left). Error: REQUEST_TIMED_OUT\n"
    started = time.perf_counter()
    result = read_log(huge + tail + tail, block_size=1 << 20)
    assert time.perf_counter() - started < 10
    assert list(result.events["line"]) == [1, 2, 3]
    assert list(result.events["byte"]) == [0, len(huge), len(huge) + len(tail)]
    assert result.report.notes["long lines cut to 64 KiB"] == 1
    assert len(result.at(1)["message"]) == 1000


def test_out_of_order_and_missing_times_keep_file_order() -> None:
    text = (
        "2024-05-14 10:00:05.000 INFO [main] org.apache.kafka.clients.producer.KafkaProducer - [Producer clientId=p, transactionalId=t] b\n"
        "2024-05-14 10:00:01.000 INFO [main] org.apache.kafka.clients.producer.KafkaProducer - [Producer clientId=p, transactionalId=t] a\n"
        "WARN [main] org.apache.kafka.clients.producer.KafkaProducer - [Producer clientId=p, transactionalId=t] c\n"
    )
    result = read_log(text)
    assert list(result.events["seq"]) == [0, 1, 2]
    assert list(result.events["time"]) == [utc_ms("2024-05-14T10:00:05"), utc_ms("2024-05-14T10:00:01"), -1]
    assert list(result.events["message"]) == ["b", "a", "c"]


def test_a_log_mixed_with_librdkafka_lines_and_an_uncaught_exception() -> None:
    result = read_fixture("app_stdout_mixed.log")
    assert result.report.kinds == ["log/librdkafka", "log/java"]
    assert result.report.notes == {"other log lines": 5}  # banner, two app lines, two progress lines
    assert result.at(3)["producer_id"] == 30301 and result.at(7)["error"] == "INVALID_TXN_STATE"
    failed = result.at(8)
    assert failed["lines"] == 5 and failed["exceptions"] == "IngestException,InvalidTxnStateException"
    uncaught = result.at(13)  # the JVM's own report: an event of its own, with no time
    assert uncaught["time"] == -1 and uncaught["lines"] == 4 and uncaught["exception"] == "KafkaException"
    assert (uncaught["transactional_id"], uncaught["state_from"], uncaught["state_to"]) == (
        "ingest-tx", "COMMITTING_TRANSACTION", "ABORTING_TRANSACTION")
    assert uncaught["message"].startswith('Exception in thread "main" org.apache.kafka.common.KafkaException')


def test_a_file_that_is_clearly_not_a_log_counts_skips() -> None:
    text = "".join(f"row {i}, kafka topic orders, {i * 3}\n" for i in range(40))
    text += "2024-05-14 10:00:00,000 ERROR [main] org.apache.kafka.clients.producer.KafkaProducer - [Producer clientId=p, transactionalId=t] boom\n"
    result = read_log(text)
    assert result.report.skip_reasons == {"not a log line": 40}
    assert len(result.events) == 1 and result.events["transactional_id"].iloc[0] == "t"


def test_empty_and_blank_inputs() -> None:
    assert read_log(b"").events.empty and read_log(b"\n\n\n").report.lines == 3
