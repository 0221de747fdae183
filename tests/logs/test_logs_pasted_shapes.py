"""Evidence in the shapes people paste it: no layout, a language's repr, another library's log format."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkadiag.readers import EventStream
from kafkadiag.readers.base import ReadOptions

SHAPES = {
    # Kubernetes klog layout (Go operators and controllers)
    "klog": ("E1123 17:04:05.123456   12345 producer.go:123] failed to commit transaction: kafka server: The producer "
             "attempted to use a producer id which is not currently assigned to its transactional id\n",
             "INVALID_PRODUCER_ID_MAPPING"),
    # a Python dict holding confluent-kafka's KafkaError repr
    "python-dict": ("{'error': KafkaError{code=_FENCED,val=-144,str=\"Failed to end transaction: Local: This instance has been "
                    "fenced by a newer instance\"}, 'transactional_id': 'orders-tx-1', 'attempt': 3}\n", "FENCED"),
    # a Go struct printed with %+v
    "go-struct": ("commit failed: &{Err:INVALID_PRODUCER_EPOCH Message:Producer attempted to produce with an old epoch.}\n",
                  "INVALID_PRODUCER_EPOCH"),
    # KafkaJS error object through JSON.stringify: message and stack are JSON strings with \n inside
    "kafkajs-json": ('{"name":"KafkaJSProtocolError","retriable":false,"type":"INVALID_PRODUCER_EPOCH","code":47,'
                     '"message":"Producer attempted to produce with an old epoch","stack":"KafkaJSProtocolError: Producer '
                     'attempted to produce with an old epoch\\n    at createErrorFromCode (node_modules/kafkajs/src/protocol/'
                     'error.js:581:10)"}\n', "INVALID_PRODUCER_EPOCH"),
    # a bare stack trace, no log line above it
    "bare-trace": ("org.apache.kafka.common.KafkaException: Cannot execute transactional method because we are in an error state\n"
                   "\tat org.apache.kafka.clients.producer.internals.TransactionManager.maybeFailWithError(TransactionManager.java:1010)\n"
                   "Caused by: org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same "
                   "transactionalId which fences the current one.\n", "PRODUCER_FENCED"),
    # a trace pasted under a Markdown list item: every line indented, the cause as deep as the frames
    "indented-trace": ("* what the job printed\n\n    org.apache.flink.util.FlinkRuntimeException: Failed to send data to Kafka\n"
                       "      at org.apache.flink.connector.kafka.sink.KafkaWriter$WriterCallback.throwException(KafkaWriter.java:405)\n"
                       "      Caused by: org.apache.kafka.common.errors.UnknownProducerIdException: This exception is raised by "
                       "the broker if it could not locate the producer metadata\n", "UNKNOWN_PRODUCER_ID"),
}

#: The line an event is cited at when its first line names nothing: the prose above a trace is not the evidence.
CITED = {"indented-trace": 3}


def _read(path: Path, text: str) -> tuple[list, EventStream]:
    """Write ``text`` to ``path`` and read it: the log-event rows and the stream (for its reports)."""
    path.write_text(text)
    stream = EventStream([str(path)], ReadOptions())
    return [row for name, frame in stream if name == "log_events" for row in frame.itertuples()], stream


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_error_is_found_whatever_the_shape(tmp_path: Path, shape: str) -> None:
    text, error = SHAPES[shape]
    rows, stream = _read(tmp_path / "paste.txt", text)
    assert rows and any(error in row.errors.split(",") for row in rows), [(r.line, r.errors) for r in rows]
    assert rows[0].line == CITED.get(shape, 1) and stream.reports[0].evidence


def test_a_cause_indented_under_suppressed_stays_out_of_the_chain() -> None:
    from kafkadiag.readers.logs.stack import parse_trace

    trace = parse_trace([
        "Caused by: org.apache.kafka.common.errors.TimeoutException: Timeout expired",
        "\tSuppressed: java.lang.IllegalStateException: closing",
        "\t\tCaused by: org.apache.kafka.common.errors.ProducerFencedException: fenced",
        "    Caused by: org.apache.kafka.common.errors.UnknownProducerIdException: gone",
    ])
    assert trace.exceptions == ["TimeoutException"]
    assert parse_trace(["    Caused by: org.apache.kafka.common.errors.UnknownProducerIdException: gone"]).exceptions == [
        "UnknownProducerIdException"]


def test_a_paragraph_is_cited_at_the_line_that_names_the_error(tmp_path: Path) -> None:
    """An issue's prose runs the error on into its paragraph: the evidence is that line, quoted from it."""
    rows, _ = _read(tmp_path / "issue.md", "Hi,\n\nI use transactions as in the eos example.\n"
                    "Since the broker restarted I get UnstableOffsetCommit from every fetch of the group.\n\nThanks\n")
    assert [(r.line, r.errors) for r in rows] == [(4, "UNSTABLE_OFFSET_COMMIT")]
    assert rows[0].message.startswith("Since the broker restarted")


def test_a_log_pasted_as_an_indented_block_is_read_line_by_line(tmp_path: Path) -> None:
    """Markdown's four-space code block (or an RST literal block): every line indented alike. Each
    indented line with a head starts its own event; a trace indented deeper stays with its line."""
    text = (
        "Our producer logs this after a redeploy:\n"
        "\n"
        "    2024-05-14 09:12:01,044 INFO [kafka-producer-network-thread | p-1] o.a.k.c.p.i.TransactionManager - "
        "[Producer clientId=p-1, transactionalId=orders-1] ProducerId set to 4001 with epoch 7\n"
        "    2024-05-14 09:12:03,508 ERROR [main] o.a.k.c.p.i.TransactionManager - [Producer clientId=p-1, "
        "transactionalId=orders-1] Got error PRODUCER_FENCED\n"
        "        org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same "
        "transactionalId which fences the current one.\n"
        "            at org.apache.kafka.clients.producer.internals.TransactionManager.commitTransaction(TransactionManager.java:337)\n"
        "    2024-05-14 09:12:03,512 WARN [main] com.example.OrderSink - closing the producer\n"
    )
    rows, _ = _read(tmp_path / "issue.md", text)
    fenced = [r for r in rows if "PRODUCER_FENCED" in r.errors.split(",")]
    assert len(fenced) == 1 and fenced[0].line == 4 and fenced[0].lines == 3, [(r.line, r.lines, r.errors) for r in rows]
    assert fenced[0].level == "ERROR" and fenced[0].transactional_id == "orders-1"


def test_fields_between_pipes_are_a_layout() -> None:
    """``%logger | %date | %level | %msg | ...`` (verbatim from ONAP's HV-VES troubleshooting guide)."""
    from kafkadiag.readers.logs.layouts import recognise

    head = recognise("reactor.kafka.sender.internals.DefaultKafkaSender | 2018-10-22T10:04:23.519Z | ERROR | error {} | "
                     "org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s) for HV_VES_PERF3GPP-0: 30050 "
                     "ms has passed since batch creation plus linger time")
    assert head is not None and head.level == "ERROR" and head.logger == "reactor.kafka.sender.internals.DefaultKafkaSender"
    assert head.stamp.ms == 1540202663519 and head.message.startswith("error {} | org.apache.kafka.common.errors.TimeoutException")
    assert recognise("orders | 3 | 1500 | 1500") is None  # a table row is not a log line


def test_an_indented_paragraph_is_read_to_its_last_line(tmp_path: Path) -> None:
    """Prose indented as a whole (a pull request's body, a numbered list under a sentence): its later
    lines are sentences, not a dumped object under a log line, and the error they name is found."""
    text = (
        "What happens, at a high level is:\n"
        " 1. messages 1,2,3,4 are sent to the broker\n"
        " 2. the broker expected message 2, not 3, so returns an OutOfOrderSequence error\n"
        " 3. the producer raises a fatal exception\n"
    )
    rows, _ = _read(tmp_path / "comment.md", text)
    assert [(r.line, r.errors) for r in rows] == [(3, "OUT_OF_ORDER_SEQUENCE_NUMBER")]


def test_under_a_log_line_an_indented_sentence_is_not_read_for_errors() -> None:
    """Below a log head, indented lines that are neither frames nor fields stay unread, as before."""
    from kafkadiag.readers.logs.stack import parse_trace

    lines = ["    the broker expected message 2, so returns an OutOfOrderSequence error"]
    assert parse_trace(lines).texts == []
    assert parse_trace(lines, prose=True).texts == [lines[0].strip()]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("the broker returns an OutOfOrderSequence error", "OUT_OF_ORDER_SEQUENCE_NUMBER"),
        ("we got a ProducerFenced exception after the rebalance", "PRODUCER_FENCED"),
        ("UnknownProducerId errors after the retention ran out", "UNKNOWN_PRODUCER_ID"),
        ("then an OutOfOrderSequence exception, every time", "OUT_OF_ORDER_SEQUENCE_NUMBER"),
    ],
)
def test_an_exception_named_by_its_stem_in_prose_is_the_error(text: str, error: str) -> None:
    import numpy as np

    from kafkadiag.readers.logs.errornames import find_errors
    from kafkadiag.readers.logs.hits import hit_mask, line_array

    assert find_errors(text, []) == [error]
    assert hit_mask(line_array((text + "\n").encode(), np.array([0])))[0], "the reader's pre-filter drops the line"


@pytest.mark.parametrize("text", ["a Sequence error in the ledger", "the Fenced error page", "OutOfOrderSequence handling"])
def test_a_stem_alone_or_a_one_word_stem_names_nothing(text: str) -> None:
    from kafkadiag.readers.logs.errornames import find_errors

    assert find_errors(text, []) == []
