"""Inputs that must never crash the reader or blow its memory: empty, binary, huge lines, bad bytes."""

from __future__ import annotations

import time

from dump_reading import read_text
from dumplog_gen import dump_text, make_batches

BATCH = (
    "baseOffset: {o} lastOffset: {o} count: 1 baseSequence: 0 lastSequence: 0 producerId: 9 producerEpoch: 0 "
    "partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 "
    "CreateTime: 1 size: 70 magic: 2 compresscodec: none crc: 1 isvalid: true\n"
)


def test_empty_input() -> None:
    result = read_text(b"")
    assert all(frame.empty for frame in result.tables.values())
    assert result.report.lines == 0 and result.report.skipped == 0 and result.report.era == ""


def test_binary_garbage_is_counted_not_fatal() -> None:
    garbage = bytes(range(256)) * 40 + b"\n" + b"\x00" * 1000 + b"\n"
    result = read_text(garbage)
    assert all(frame.empty for frame in result.tables.values())
    assert result.report.skip_reasons == {"binary data": result.report.lines}


def test_a_3mb_line_is_counted_and_cheap() -> None:
    huge = b"x" * (3 << 20)
    text = BATCH.format(o=1).encode() + b"| offset: 1 CreateTime: 1 keySize: -1 valueSize: 3145728 sequence: 0 headerKeys: [] payload: " + huge + b"\n"
    text += huge + b"\n" + BATCH.format(o=2).encode()
    started = time.perf_counter()
    result = read_text(text)
    assert time.perf_counter() - started < 5
    assert list(result["batches"]["base_offset"]) == [1, 2]
    assert result.report.lines == 4 and result.report.skipped == 0  # the bare 3 MB line continues the payload


def test_a_line_longer_than_a_block_is_truncated_and_skipped() -> None:
    text = BATCH.format(o=1).encode() + b"y" * 300_000 + b"\n" + BATCH.format(o=2).encode()
    for block_size in (4096, 1 << 20):
        result = read_text(text, block_size=block_size)
        assert list(result["batches"]["base_offset"]) == [1, 2]
        assert result["batches"]["line"].tolist() == [1, 3]
        assert result["batches"]["byte"].tolist() == [0, len(BATCH.format(o=1)) + 300_001]
        assert result.report.skip_reasons == {"line too long": 1}
        assert result.report.lines == 3


def test_non_utf8_bytes_and_no_final_newline() -> None:
    text = (
        b"Dumping /k/\xff\xfeodd-1/00000000000000000000.log\n"
        + BATCH.format(o=5).encode()
        + b"| offset: 5 CreateTime: 1 keySize: 2 valueSize: 3 sequence: 0 headerKeys: [] key: \xc3\x28 payload: \xe2\x82"
    )
    result = read_text(text)
    (row,) = result["batches"].to_dict("records")
    assert row["base_offset"] == 5 and row["topic"] == "\ufffd\ufffdodd" and row["partition"] == 1
    assert result.report.lines == 3 and result.report.skipped == 0


def test_mixed_line_endings_and_blank_lines() -> None:
    text = b"\r\n\r\n" + BATCH.format(o=1).encode().replace(b"\n", b"\r\n") + b"\n" + BATCH.format(o=2).encode()
    result = read_text(text)
    assert list(result["batches"]["base_offset"]) == [1, 2] and result.report.skipped == 0


def test_payload_newlines_spaces_and_binary_do_not_produce_skips() -> None:
    batches = make_batches(200, seed=77, newlines=True, binary=True)
    result = read_text(dump_text("3.1", batches))
    assert len(result["batches"]) == 200 and result.report.skipped == 0
