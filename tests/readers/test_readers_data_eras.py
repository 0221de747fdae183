"""Data-segment dumps of every era: parsed batch rows equal what the generator wrote."""

from __future__ import annotations

import pytest

from dump_reading import read_text
from dumplog_gen import ERAS, PIPE_ERAS, dump_text, make_batches

EXPECTED_ERA = {
    ("0.11.0.0", True): "0.11.0.0-0.11.0.1",
    ("0.11.0.0", False): "0.11.0.0-1.1",
    ("1.1", True): "0.11.0.2-2.1",
    ("1.1", False): "0.11.0.0-1.1",
    ("2.0.0", True): "0.11.0.2-2.1",
    ("2.0.0", False): "2.0.0",
    ("2.1", True): "0.11.0.2-2.1",
    ("2.1", False): "2.0.1-2.1",
    ("2.5", True): "2.2-2.7",
    ("2.5", False): "2.2-2.8",
    ("2.8", True): "2.8",
    ("2.8", False): "2.2-2.8",
    ("3.1", True): "3.0-3.1",
    ("3.1", False): "3.0-3.1",
    ("3.6", True): "3.3+",
    ("3.6", False): "3.3+",
}


def _expected(era: str, deep: bool, batch) -> dict:
    layout = ERAS[era][0]
    grouped = deep and era not in PIPE_ERAS  # 0.11-2.1 deep mode: rows built from record lines
    control = bool(batch.marker)
    row = {
        "base_offset": batch.base_offset,
        "last_offset": batch.last_offset,
        "base_sequence": batch.base_sequence,
        "last_sequence": batch.last_sequence,
        "producer_id": batch.producer_id,
        "producer_epoch": batch.producer_epoch,
        "is_transactional": batch.transactional,
        "is_control": control,
        "timestamp": batch.max_timestamp,
        "timestamp_type": batch.ts_type,
        "position": batch.position,
        "magic": 2,
        "codec": batch.codec,
        "is_valid": True,
        "topic": "orders",
        "partition": 3,
        "segment": 0,
    }
    if grouped:
        row.update(count=-1, size=-1, partition_leader_epoch=-1)
        if era == "0.11.0.0":
            row["producer_epoch"] = -1
    else:
        row.update(count=-1 if layout == "v011" else len(batch.records), size=batch.size, partition_leader_epoch=batch.leader_epoch)
    if control and deep:
        row.update(marker=batch.marker, coordinator_epoch=batch.coordinator_epoch)
    elif control:
        row.update(marker="UNKNOWN", coordinator_epoch=-1)
    else:
        row.update(marker="", coordinator_epoch=-1)
    return row


@pytest.mark.parametrize("era", list(ERAS))
@pytest.mark.parametrize("deep", [True, False])
def test_every_era_parses_to_the_written_batches(era: str, deep: bool) -> None:
    batches = make_batches(120, seed=11)
    text = dump_text(era, batches, deep=deep)
    result = read_text(text)
    rows = result["batches"]
    assert len(rows) == len(batches)
    for (_, got), batch in zip(rows.iterrows(), batches):
        want = _expected(era, deep, batch)
        assert {k: got[k] for k in want} == want
    assert result.report.era == EXPECTED_ERA[(era, deep)]
    assert result.report.kinds == ["dump-log/data"]
    assert result.report.skipped == 0
    assert result.report.lines == text.count(b"\n")


@pytest.mark.parametrize("era", list(ERAS))
def test_line_and_byte_point_at_the_batch_and_marker_lines(era: str) -> None:
    text = dump_text(era, make_batches(60, seed=5), deep=True)
    rows = read_text(text)["batches"]
    lines = text.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for _, row in rows.iterrows():
        line = lines[row["line"] - 1]
        assert starts[row["line"] - 1] == row["byte"]
        prefix = b"baseOffset: " if era in PIPE_ERAS else b"offset: "
        assert line.startswith(prefix + str(row["base_offset"]).encode() + b" ")
        if row["marker"] in ("COMMIT", "ABORT"):
            marker_line = lines[row["marker_line"] - 1]
            assert starts[row["marker_line"] - 1] == row["marker_byte"]
            assert b"endTxnMarker: " + row["marker"].encode() in marker_line
        else:
            assert row["marker_line"] == -1 and row["marker_byte"] == -1


def test_records_without_payload_and_payloads_with_newlines_are_not_skips() -> None:
    batches = make_batches(80, seed=2, newlines=True)
    text = dump_text("3.6", batches)
    assert b"\nsecond line" in text  # a payload continued on the next physical line
    result = read_text(text)
    assert len(result["batches"]) == 80
    assert result.report.skipped == 0


def test_crlf_line_endings_give_the_same_rows() -> None:
    batches = make_batches(50, seed=4)
    plain = read_text(dump_text("2.5", batches))
    crlf = read_text(dump_text("2.5", batches, eol=b"\r\n"))
    cols = [c for c in plain["batches"].columns if c not in ("byte", "marker_byte")]
    assert crlf["batches"][cols].equals(plain["batches"][cols])
    assert crlf.report.skipped == 0
    assert crlf["batches"]["is_valid"].all()


def test_chunks_respect_chunk_rows() -> None:
    text = dump_text("3.6", make_batches(300, seed=9))
    result = read_text(text, chunk_rows=7)
    assert len(result["batches"]) == 300
    assert result["batches"]["base_offset"].is_monotonic_increasing


def test_topic_partition_fallbacks() -> None:
    text = dump_text("3.6", make_batches(5, seed=1), path=None)
    assert read_text(text)["batches"]["topic"].eq("").all()
    by_option = read_text(text, partition="payments-12")["batches"]
    assert set(by_option["topic"]) == {"payments"} and set(by_option["partition"]) == {12}
    by_name = read_text(text, path="/tmp/out/my-topic-7.dump.txt")["batches"]
    assert set(by_name["topic"]) == {"my-topic"} and set(by_name["partition"]) == {7}
    header_wins = read_text(dump_text("3.6", make_batches(5, seed=1)), partition="payments-12")["batches"]
    assert set(header_wins["topic"]) == {"orders"} and set(header_wins["segment"]) == {0}


def test_segment_and_windows_style_paths() -> None:
    text = (
        "Dumping C:\\kafka\\data\\orders-11\\00000000000000004242.log\r\n"
        "Starting offset: 4242\r\n"
        "baseOffset: 4242 lastOffset: 4242 count: 1 baseSequence: 0 lastSequence: 0 producerId: 7 producerEpoch: 0 "
        "partitionLeaderEpoch: 1 isTransactional: false isControl: false position: 0 CreateTime: 1 size: 70 magic: 2 "
        "compresscodec: NONE crc: 1 isvalid: true\r\n"
    )
    row = read_text(text)["batches"].iloc[0]
    assert (row["topic"], row["partition"], row["segment"], row["codec"]) == ("orders", 11, 4242, "none")
