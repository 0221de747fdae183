"""`__transaction_state` dumps in every decoder era, raw bytes, and console-consumer lines."""

from __future__ import annotations

import struct

import pytest

from dump_reading import read_text
from kafkadiag.readers.txnlog_decode import decode_raw, join_partitions, raw_value

HEADER = "Dumping /k/__transaction_state-30/00000000000000000000.log\n"
BATCH_33 = (
    "baseOffset: {o} lastOffset: {o} count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
    "partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty "
    "position: {o}00 CreateTime: {t} size: 120 magic: 2 compresscodec: none crc: 1 isvalid: true\n"
)
REC_3X = "| offset: {o} CreateTime: {t} keySize: {k} valueSize: {v} sequence: -1 headerKeys: []"
REC_22 = "| offset: {o} CreateTime: {t} keysize: {k} valuesize: {v} sequence: -1 headerKeys: []"
REC_011 = (
    "offset: {o} position: {o}00 CreateTime: {t} isvalid: true keysize: {k} valuesize: {v} magic: 2 "
    "compresscodec: NONE producerId: -1 producerEpoch: -1 sequence: -1 isTransactional: false headerKeys: []"
)
TEXT_VALUE = "producerId:{pid},producerEpoch:{e},state={s},partitions={p},txnLastUpdateTimestamp={u},txnTimeoutMs=60000"


def _txn(result) -> list[dict]:
    return result["txn_records"].to_dict("records")


def test_2_5_to_4_0_text_decoder_with_tombstone_and_unknown_key_version() -> None:
    text = HEADER + "Log starting offset: 0\n"
    text += BATCH_33.format(o=0, t=1700000000100)
    text += REC_3X.format(o=0, t=1700000000100, k=15, v=59) + " key: transaction_metadata::transactionalId=kafka-txn-0 payload: "
    text += TEXT_VALUE.format(pid=1, e=0, s="Ongoing", p="[output-topic-0,__consumer_offsets-22]", u=1700000000099) + "\n"
    text += BATCH_33.format(o=1, t=1700000000200)
    text += REC_3X.format(o=1, t=1700000000200, k=15, v=-1) + " key: transaction_metadata::transactionalId=kafka-txn-0 payload: <DELETE>\n"
    text += BATCH_33.format(o=2, t=1700000000300)
    text += REC_3X.format(o=2, t=1700000000300, k=15, v=37) + " key: unknown::version=1\n"
    result = read_text(text)
    rows = _txn(result)
    assert len(rows) == 2
    first, tomb = rows
    assert first["transactional_id"] == "kafka-txn-0" and first["producer_id"] == 1 and first["producer_epoch"] == 0
    assert first["state"] == "Ongoing" and first["partitions"] == "output-topic-0,__consumer_offsets-22"
    assert (first["last_update_ms"], first["timeout_ms"], first["record_time"]) == (1700000000099, 60000, 1700000000100)
    assert (first["log_partition"], first["offset"], first["line"]) == (30, 0, 4)
    assert first["start_ms"] == -1 and first["value_version"] == -1
    assert tomb["tombstone"] and tomb["producer_id"] == -1 and tomb["state"] == "" and tomb["offset"] == 1
    assert result.report.skip_reasons == {"unknown transaction key version": 1}
    assert result.report.kinds == ["dump-log/transaction-state"]
    assert result.report.era == "3.4.1-4.0"
    assert len(result["batches"]) == 3 and set(result["batches"]["topic"]) == {"__transaction_state"}


@pytest.mark.parametrize(
    "key_prefix, parts, era",
    [
        ("transactionalId=", "Set(t-0, t-1)", "2.2-2.4.0"),
        ("transactionalId=", "HashSet(t-0, t-1)", "2.4.0"),
        ("transaction_metadata::transactionalId=", "Set(t-0, t-1)", "2.4.1"),
        ("transaction_metadata::transactionalId=", "[t-0,t-1]", "2.5-2.7"),
    ],
)
def test_2_2_to_2_7_decoder_forms(key_prefix: str, parts: str, era: str) -> None:
    text = REC_22.format(o=7, t=1567000000123, k=13, v=49) + f" key: {key_prefix}my-txn-id payload: "
    text += TEXT_VALUE.format(pid=2000, e=3, s="PrepareCommit", p=parts, u=1567000000120) + "\n"
    result = read_text(text, partition="__transaction_state-11")
    (row,) = _txn(result)
    assert row["transactional_id"] == "my-txn-id" and row["state"] == "PrepareCommit"
    assert row["partitions"] == "t-0,t-1" and row["producer_epoch"] == 3 and row["log_partition"] == 11
    assert result.report.era == era


def test_0_11_deep_lines_with_decoder_and_tool_crash_on_tombstone() -> None:
    text = "Starting offset: 0\n"
    text += REC_011.format(o=0, t=1510000000000, k=13, v=37) + " key: transactionalId=my-txn-id payload: "
    text += TEXT_VALUE.format(pid=5, e=0, s="Empty", p="Set()", u=1510000000000) + "\n"
    text += REC_011.format(o=1, t=1510000000100, k=13, v=-1) + "\n"
    text += 'Exception in thread "main" java.lang.NullPointerException\n'
    text += "\tat kafka.tools.DumpLogSegments$TransactionLogMessageParser.parse(DumpLogSegments.scala:1)\n"
    result = read_text(text)
    (row,) = _txn(result)
    assert row["state"] == "Empty" and row["partitions"] == "" and row["producer_id"] == 5
    assert result.report.notes == {"stack trace": 2}
    assert result.report.skipped == 0
    assert len(result["batches"]) == 2  # each record is its own (single-record) batch
    assert result.report.era == "0.11.0.2-2.1"


def test_4_1_json_decoder() -> None:
    key = '{"type":"0","data":{"transactionalId":"my-txn-id"}}'
    value = (
        '{"version":"1","data":{"producerId":0,"previousProducerId":9,"nextProducerId":11,"producerEpoch":1,'
        '"nextProducerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":2,"transactionPartitions":'
        '[{"topic":"txtest","partitionIds":[0,4]},{"topic":"b","partitionIds":[1]}],'
        '"transactionLastUpdateTimestampMs":1750000000499,"transactionStartTimestampMs":1750000000100,'
        '"clientTransactionVersion":2}}'
    )
    text = HEADER + "Log starting offset: 0\n"
    text += BATCH_33.format(o=3, t=1750000000500)
    text += REC_3X.format(o=3, t=1750000000500, k=13, v=52) + f" key: {key} payload: {value}\n"
    text += REC_3X.format(o=4, t=1750000000600, k=13, v=-1) + f" key: {key} payload: <DELETE>\n"
    text += REC_3X.format(o=5, t=1750000000700, k=13, v=5) + " key: Unknown record type 5 at offset 5, skipping.\n"
    text += REC_3X.format(o=6, t=1750000000800, k=13, v=5) + " key: Error at offset 6, skipping. Unknown version 9\n"
    result = read_text(text)
    row, tomb = _txn(result)
    assert row["state"] == "PrepareCommit" and row["partitions"] == "txtest-0,txtest-4,b-1"
    assert (row["value_version"], row["client_txn_version"], row["start_ms"]) == (1, 2, 1750000000100)
    assert (row["previous_producer_id"], row["next_producer_id"], row["next_producer_epoch"]) == (9, 11, 2)
    assert tomb["tombstone"] and tomb["transactional_id"] == "my-txn-id"
    assert result.report.skip_reasons == {"unknown transaction record type": 1, "transaction record decode error": 1}
    assert result.report.era == "4.1+"


def _raw_key(txn_id: str) -> bytes:
    raw = txn_id.encode()
    return struct.pack(">hh", 0, len(raw)) + raw


def _raw_value_v0(pid: int, epoch: int, timeout: int, status: int, parts: dict[str, list[int]] | None, update: int, start: int) -> bytes:
    out = struct.pack(">hqhib", 0, pid, epoch, timeout, status)
    if parts is None:
        out += struct.pack(">i", -1)
    else:
        out += struct.pack(">i", len(parts))
        for topic, ids in parts.items():
            out += struct.pack(">h", len(topic)) + topic.encode() + struct.pack(">i", len(ids))
            out += b"".join(struct.pack(">i", i) for i in ids)
    return out + struct.pack(">qq", update, start)


def test_raw_bytes_without_decoder_are_decoded_when_the_text_survived() -> None:
    ts = 1 << 40  # all bytes below 0x80, so the UTF-8 round trip kept them
    value = _raw_value_v0(10, 2, 30000, 1, {"orders": [0, 1]}, ts, ts)  # producer id 10 holds a newline byte
    assert b"\n" in value and all(b < 0x80 for b in value)
    key = _raw_key("kafka-txn-0")
    lost = _raw_value_v0(1, 0, 60000, 1, {"orders": [0]}, ts, ts).replace(b"\xea", "\ufffd".encode())
    text = HEADER.encode()
    text += REC_3X.format(o=0, t=5, k=len(key), v=len(value)).encode() + b" key: " + key + b" payload: " + value + b"\n"
    text += REC_3X.format(o=1, t=6, k=len(key), v=-1).encode() + b" key: " + key + b"\n"
    text += REC_3X.format(o=2, t=7, k=len(key), v=37).encode() + b" key: " + key + b" payload: " + lost + b"\n"
    result = read_text(text)
    row, tomb = _txn(result)
    assert row["transactional_id"] == "kafka-txn-0" and row["producer_id"] == 10 and row["producer_epoch"] == 2
    assert row["state"] == "Ongoing" and row["partitions"] == "orders-0,orders-1" and row["timeout_ms"] == 30000
    assert row["start_ms"] == ts and row["value_version"] == 0
    assert tomb["tombstone"] and tomb["offset"] == 1
    assert result.report.skip_reasons == {"transaction value bytes lost in text": 1}


def test_raw_value_v1_with_tagged_fields() -> None:
    body = struct.pack(">hqhib", 1, 0, 0, 60000, 1)
    body += bytes([2, 7]) + b"txtest" + bytes([2]) + struct.pack(">i", 0) + b"\x00"
    body += struct.pack(">qq", 1750000000499, 1750000000100)
    body += bytes([2, 0, 8]) + struct.pack(">q", 41) + bytes([2, 2]) + struct.pack(">h", 2)
    values = raw_value(body)
    assert values is not None
    assert values["partitions"] == "txtest-0" and values["previous_producer_id"] == 41 and values["client_txn_version"] == 2
    assert raw_value(body[:-1]) is None
    assert decode_raw(_raw_key("x"), body, 5, len(body)).values["transactional_id"] == "x"  # type: ignore[union-attr]


def test_data_topic_keys_are_not_taken_for_transaction_keys() -> None:
    key = _raw_key("looks-like-a-txn-key")
    text = b"Dumping /k/orders-0/00000000000000000000.log\n"
    text += REC_3X.format(o=0, t=5, k=len(key), v=-1).encode() + b" key: " + key + b"\n"
    result = read_text(text)
    assert result["txn_records"].empty and result.report.skipped == 0


def test_console_consumer_formatter_lines() -> None:
    text = (
        "kafka-txn-0::TransactionMetadata(transactionalId=kafka-txn-0, producerId=1, producerEpoch=0, txnTimeoutMs=60000, "
        "state=Ongoing, pendingState=None, topicPartitions=HashSet(output-topic-0, output-topic-1), "
        "txnStartTimestamp=1700000000000, txnLastUpdateTimestamp=1700000000099)\n"
        "kafka-txn-0::NULL\n"
        '{"key":{"version":0,"data":{"transactionalId":"t1"}},"value":{"version":0,"data":{"producerId":7,'
        '"producerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":5,"transactionPartitions":[],'
        '"transactionLastUpdateTimestampMs":5,"transactionStartTimestampMs":4}}}\n'
        '{"key":{"type":0,"data":{"transactionalId":"t1"}},"value":null}\n'
    )
    result = read_text(text)
    meta, null, js, js_null = _txn(result)
    assert meta["partitions"] == "output-topic-0,output-topic-1" and meta["start_ms"] == 1700000000000
    assert null["tombstone"] and js["state"] == "CompleteAbort" and js["producer_id"] == 7
    assert js_null["tombstone"] and js_null["transactional_id"] == "t1"
    assert result.report.kinds == ["console-consumer/transaction-state"]


def test_join_partitions_forms() -> None:
    assert join_partitions("Set(a-0, b-1)") == ("a-0,b-1", "Set")
    assert join_partitions("[]") == ("", "list")
    assert join_partitions("HashSet()") == ("", "HashSet")
