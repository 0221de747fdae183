"""Producer-state snapshots, .txnindex, .index/.timeindex dumps and the tool's own messages."""

from __future__ import annotations

import pytest

from dump_reading import read_text

SNAP = "Dumping /k/orders-2/00000000000000000912.snapshot\n"


@pytest.mark.parametrize(
    "line, want, era",
    [
        (
            "producerId: 3005 producerEpoch: 2 lastSequence: 9 lastOffset: 912 offsetDelta: 2 lastTimestamp: 1500000000900 "
            "coordinatorEpoch: 11 currentTxnFirstOffset: Some(905)",
            (3005, 2, 11, 905, 1500000000900, 7, 9, 912),
            "0.11.0.0-0.11.0",
        ),
        (
            "producerId: 3005 producerEpoch: 2 coordinatorEpoch: 11 currentTxnFirstOffset: None cachedMetadata: "
            "Queue(BatchMetadata(firstSeq=1, lastSeq=3, firstOffset=800, lastOffset=802, timestamp=10), "
            "BatchMetadata(firstSeq=4, lastSeq=6, firstOffset=900, lastOffset=902, timestamp=20))",
            (3005, 2, 11, -1, 20, 4, 6, 902),
            "1.0.0-1.0.1",
        ),
        (
            "producerId: 3005 producerEpoch: 2 coordinatorEpoch: 11 currentTxnFirstOffset: Some(912) firstSequence: 7 "
            "lastSequence: 7 lastOffset: 912 offsetDelta: 0 timestamp: 1600000000900 ",
            (3005, 2, 11, 912, 1600000000900, 7, 7, 912),
            "1.0.2-3.0",
        ),
        (
            "producerId: 3005 producerEpoch: 2 coordinatorEpoch: 11 currentTxnFirstOffset: None lastTimestamp: 1650000000900 "
            "firstSequence: 7 lastSequence: 8 lastOffset: 913 offsetDelta: 1 timestamp: 1650000000900 ",
            (3005, 2, 11, -1, 1650000000900, 7, 8, 913),
            "3.1-3.4",
        ),
        (
            "producerId: 2001 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong[912] lastTimestamp: "
            "1700000000500 firstSequence: 40 lastSequence: 41 lastOffset: 905 offsetDelta: 1 timestamp: 1700000000500",
            (2001, 0, -1, 912, 1700000000500, 40, 41, 905),
            "3.5+",
        ),
        (
            "producerId: 2002 producerEpoch: 1 coordinatorEpoch: 3 currentTxnFirstOffset: OptionalLong.empty ",
            (2002, 1, 3, -1, -1, -1, -1, -1),
            "3.5+",
        ),
    ],
)
def test_snapshot_lines_of_every_era(line: str, want: tuple, era: str) -> None:
    result = read_text(SNAP + line + "\n")
    (row,) = result["snapshot_entries"].to_dict("records")
    cols = (
        "producer_id", "producer_epoch", "coordinator_epoch", "current_txn_first_offset", "last_timestamp",
        "first_sequence", "last_sequence", "last_offset",
    )
    assert tuple(row[c] for c in cols) == want
    assert (row["topic"], row["partition"], row["snapshot_offset"], row["line"], row["byte"]) == ("orders", 2, 912, 2, len(SNAP))
    assert result.report.kinds == ["dump-log/snapshot"] and result.report.era == era and result.report.skipped == 0


def test_snapshot_errors_are_notes() -> None:
    text = SNAP + "Snapshot is corrupt (CRC is no longer valid). Stored crc: 1. Computed crc: 2\n"
    result = read_text(text)
    assert result["snapshot_entries"].empty and result.report.notes == {"snapshot error": 1} and result.report.skipped == 0


def test_txnindex_lines() -> None:
    text = (
        "Dumping /k/orders-2/00000000000000000000.txnindex\n"
        "version: 0 producerId: 4001 firstOffset: 350 lastOffset: 357 lastStableOffset: 358\n"
        "version: 0 producerId: 4002 firstOffset: 400 lastOffset: 410 lastStableOffset: 411\n"
    )
    result = read_text(text)
    rows = result["aborted_txns"].to_dict("records")
    assert [(r["producer_id"], r["first_offset"], r["last_offset"], r["last_stable_offset"]) for r in rows] == [
        (4001, 350, 357, 358),
        (4002, 400, 410, 411),
    ]
    assert rows[0]["topic"] == "orders" and rows[0]["partition"] == 2 and rows[1]["line"] == 3
    assert result.report.kinds == ["dump-log/txnindex"]


def test_index_and_timeindex_lines_are_recognised_without_rows() -> None:
    text = (
        "Dumping /k/orders-2/00000000000000000000.index\n"
        "offset: 40 position: 4096\n"
        "offset: 81 position: 8200\n"
        "Dumping /k/orders-2/00000000000000000000.timeindex\n"
        "timestamp: 1700000000000 offset: 40\n"
        "Dumping /k/orders-2/00000000000000000001.index\n"
        "/k/orders-2/00000000000000000001.index is empty.\n"
        "Mismatches in :/abs/k/orders-2/00000000000000000000.index\n"
        "  Index offset: 81, log offset: 80\n"
        "Found timestamp mismatch in :/abs/k/orders-2/00000000000000000000.timeindex\n"
        "  Index timestamp: 5, log timestamp: 6\n"
    )
    result = read_text(text)
    assert all(frame.empty for frame in result.tables.values())
    assert result.report.kinds == ["dump-log/index"] and result.report.skipped == 0
    assert result.report.era == "2.8+"


def test_tool_messages_are_recognised() -> None:
    text = (
        "Dumping /k/orders-2/00000000000000000000.log\n"
        "Starting offset: 0\n"
        "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 "
        "partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 1 size: 70 magic: 2 "
        "compresscodec: NONE crc: 1 isvalid: true\n"
        "Found 4821 invalid bytes at the end of 00000000000000000000.log\n"
        "Ignoring unknown file /k/orders-2/00000000000000000000.log.deleted\n"
        "Non-consecutive offsets in :/abs/k/orders-2/00000000000000000000.log\n"
        "  12 is followed by 15\n"
        'Exception in thread "main" org.apache.kafka.common.errors.CorruptRecordException: Found record size 0 smaller than minimum record overhead (14) in file x.\n'
        "\tat org.apache.kafka.common.record.FileLogInputStream.nextBatch(FileLogInputStream.java:73)\n"
        "\t... 4 more\n"
        "Caused by: java.io.EOFException\n"
        "\n"
    )
    result = read_text(text)
    assert len(result["batches"]) == 1
    assert result.report.skipped == 0
    assert result.report.notes == {
        "invalid bytes at end of segment": 1,
        "ignored unknown file": 1,
        "non-consecutive offsets": 1,
        "stack trace": 4,
    }
    assert result.report.era == "2.2"
