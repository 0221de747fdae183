"""Single line shapes from the reference: legacy messages, control records, skip-metadata, elisions."""

from __future__ import annotations

import os

from dump_reading import FIXTURES, read_text
from kafkadiag.readers.dumplog_lines import parse_record, split_content

V2_22 = (
    "baseOffset: {b} lastOffset: {l} count: {n} baseSequence: -1 lastSequence: -1 producerId: {pid} producerEpoch: {e} "
    "partitionLeaderEpoch: 4 isTransactional: {t} isControl: {c} position: {pos} CreateTime: {ts} size: 78 magic: 2 "
    "compresscodec: NONE crc: 99 isvalid: true\n"
)


def test_legacy_shallow_message_lines_both_eras() -> None:
    text = (
        "offset: 10 position: 0 NoTimestampType: -1 isvalid: true size: 40 magic: 0 compresscodec: NONE crc: 7\n"
        "offset: 14 position: 40 CreateTime: 1500000000000 size: 80 magic: 1 compresscodec: GZIP crc: 8 isvalid: false\n"
    )
    rows = read_text(text)["batches"].to_dict("records")
    assert [(r["base_offset"], r["last_offset"], r["magic"], r["codec"], r["is_valid"], r["timestamp_type"]) for r in rows] == [
        (10, 10, 0, "none", True, "NoTimestampType"),
        (14, 14, 1, "gzip", False, "CreateTime"),
    ]
    assert rows[1]["producer_id"] == -1 and rows[1]["size"] == 80 and rows[1]["count"] == -1


def test_0_10_message_lines() -> None:
    text = (
        "offset: 0 position: 0 isvalid: true payloadsize: 5 magic: 0 compresscodec: NoCompressionCodec crc: 1 payload: hello\n"
        "offset: 1 position: 39 CreateTime: 1490000000000 isvalid: true payloadsize: 5 magic: 1 compresscodec: "
        "SnappyCompressionCodec crc: 2 keysize: 1 key: k payload: world\n"
    )
    result = read_text(text)
    rows = result["batches"].to_dict("records")
    assert [(r["base_offset"], r["codec"], r["magic"], r["position"]) for r in rows] == [(0, "none", 0, 0), (1, "snappy", 1, 39)]
    assert result.report.era == "0.10.0-0.10.1"


def test_compressed_legacy_inner_messages_share_a_position_and_form_one_row() -> None:
    text = "".join(
        f"offset: {o} position: 500 CreateTime: {1500000000000 + o} isvalid: true keysize: -1 valuesize: 3 magic: 1 "
        f"compresscodec: GZIP crc: {o} payload: abc\n"
        for o in (20, 21, 22)
    )
    (row,) = read_text(text)["batches"].to_dict("records")
    assert (row["base_offset"], row["last_offset"], row["timestamp"], row["codec"]) == (20, 22, 1500000000022, "gzip")


def test_superset_and_reduced_legacy_record_lines_parse() -> None:
    superset = parse_record(
        b"| offset: 3 isValid: true crc: 1234 keySize: -1 valueSize: 2 CreateTime: 5 baseOffset: 3 lastOffset: 3 "
        b"baseSequence: -1 lastSequence: -1 producerEpoch: -1 partitionLeaderEpoch: 0 batchSize: 40 magic: 1 "
        b"compressType: NONE position: 0 crc: 1234 isvalid: false payload: ok"
    )
    assert superset.offset == 3 and not superset.is_valid and superset.payload == b"ok" and superset.codec == "none"
    assert "pipe-record-superset" in superset.shapes
    braced = parse_record(b"| offset: 4 CreateTime: 6 keySize: -1 valueSize: 2 isValid: true crc: 77} payload: hi")
    assert braced.payload == b"hi" and "legacy-record-brace" in braced.shapes
    java = parse_record(b"| offset: 4 CreateTime: 6 keySize: -1 valueSize: 2 isValid: true crc: 77 payload: hi")
    assert "legacy-record-no-brace" in java.shapes


def test_control_records_of_every_kind() -> None:
    text = ""
    kinds = [
        "endTxnMarker: COMMIT coordinatorEpoch: 3",
        "endTxnMarker: ABORT coordinatorEpoch: 4",
        'LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}]}',
        'SnapshotHeader {"version":0,"lastContainedLogTimestamp":0}',
        "controlType: UNKNOWN(9)",
        "controlType: LEADER_CHANGE(2)",
    ]
    for i, tail in enumerate(kinds):
        text += V2_22.format(b=i, l=i, n=1, pid=7, e=1, t="true", c="true", pos=i * 78, ts=100 + i)
        text += f"| offset: {i} CreateTime: {100 + i} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] {tail}\n"
    rows = read_text(text)["batches"].to_dict("records")
    assert [(r["marker"], r["coordinator_epoch"]) for r in rows] == [
        ("COMMIT", 3),
        ("ABORT", 4),
        ("LeaderChange", -1),
        ("SnapshotHeader", -1),
        ("UNKNOWN(9)", -1),
        ("LEADER_CHANGE", -1),
    ]
    assert all(r["is_control"] for r in rows)


def test_shallow_control_batches_have_unknown_marker_and_0_11_ones_are_inferred() -> None:
    v011 = (
        "baseOffset: 9 lastOffset: 9 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 1 partitionLeaderEpoch: 0 "
        "isTransactional: true position: 0 CreateTime: 5 isvalid: true size: 78 magic: 2 compresscodec: NONE crc: 3\n"
        "baseOffset: 10 lastOffset: 11 baseSequence: 0 lastSequence: 1 producerId: 7 producerEpoch: 1 partitionLeaderEpoch: 0 "
        "isTransactional: true position: 78 CreateTime: 6 isvalid: true size: 90 magic: 2 compresscodec: NONE crc: 4\n"
    )
    rows = read_text(v011)["batches"].to_dict("records")
    assert [(r["is_control"], r["marker"]) for r in rows] == [(True, "UNKNOWN"), (False, "")]
    shallow = V2_22.format(b=0, l=0, n=1, pid=7, e=1, t="true", c="true", pos=0, ts=5)
    shallow += V2_22.format(b=1, l=1, n=1, pid=7, e=1, t="true", c="false", pos=78, ts=6)
    rows = read_text(shallow)["batches"].to_dict("records")
    assert [r["marker"] for r in rows] == ["UNKNOWN", ""]


def test_skip_record_metadata_shapes() -> None:
    text = (
        V2_22.format(b=0, l=2, n=3, pid=-1, e=-1, t="false", c="false", pos=0, ts=5)
        + "| key: k1 payload: v1\n"
        + " payload: no key\n"
        + "| payload: java port\n"
        + V2_22.format(b=3, l=3, n=1, pid=7, e=1, t="true", c="true", pos=100, ts=6)
        + "\n"
    )
    result = read_text(text)
    rows = result["batches"].to_dict("records")
    assert [r["marker"] for r in rows] == ["", "UNKNOWN"]
    assert result.report.skipped == 0
    assert "mixed" in result.report.era  # ` payload:` (<= 4.2) and `| payload:` (4.3) cannot both be true


def test_payloads_with_spaces_lookalikes_and_control_characters() -> None:
    line = b"| offset: 5 CreateTime: 1 keySize: 3 valueSize: 30 sequence: 5 headerKeys: [] key: a b payload: x key: y payload: \x01\x02\xff"
    meta, key, payload, control = split_content(line)
    assert key == b"a b" and payload == b"x key: y payload: \x01\x02\xff" and control is None
    record = parse_record(line)
    assert record.offset == 5 and record.key_size == 3 and record.sequence == 5


def test_unrecognised_lines_are_counted_skips_with_reasons() -> None:
    text = b"random words here\n\x00\x01\x02\x03\x04\x05 garbage\nbaseOffset: x\n"
    result = read_text(text)
    assert result.report.skip_reasons == {"unrecognised line": 1, "binary data": 1, "unparsable batch line": 1}
    assert result.report.lines == 3


def test_seed_excerpt_with_elided_deep_lines() -> None:
    with open(os.path.join(FIXTURES, "seed001_elided_deep.txt"), "rb") as f:
        text = f.read()
    result = read_text(text)
    rows = result["batches"].to_dict("records")
    got = [(r["base_offset"], r["producer_id"], r["producer_epoch"], r["is_control"], r["marker"], r["coordinator_epoch"]) for r in rows]
    assert got == [
        (0, 0, 5, False, "", -1),
        (1, 0, 6, True, "ABORT", 0),
        (2, 0, 7, False, "", -1),
        (3, 0, 7, True, "COMMIT", 0),
        (0, 0, 0, False, "", -1),
        (1, 1, 0, False, "", -1),
        (2, 1, 0, True, "COMMIT", 0),
    ]
    assert [r["line"] for r in rows] == [6, 7, 8, 9, 23, 24, 25]
    assert rows[1]["marker_line"] == 7 and rows[1]["is_transactional"]
    assert {(r["topic"], r["partition"]) for r in rows} == {("Topic-Test", 0)}  # from the pasted command line
    assert result.report.era == "0.11.0.2-2.1"


def test_seed_excerpt_with_binary_payloads() -> None:
    with open(os.path.join(FIXTURES, "seed001_binary_payloads.txt"), "rb") as f:
        text = f.read()
    result = read_text(text)
    rows = result["batches"].to_dict("records")
    got = [(r["base_offset"], r["last_offset"], r["count"], r["producer_epoch"], r["marker"], r["coordinator_epoch"], r["codec"]) for r in rows]
    assert got == [(2, 3, 2, 6, "", -1, "lz4"), (2059, 2060, 2, 9, "", -1, "lz4"), (2061, 2061, 1, 9, "ABORT", 18, "none")]
    assert rows[2]["position"] == 10908 and rows[2]["timestamp"] == 1703123297355
    assert result.report.era == "2.2-2.7"
