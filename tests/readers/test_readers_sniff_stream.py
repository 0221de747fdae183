"""Content sniffing and the EventStream entry point over several inputs."""

from __future__ import annotations

import os

import pandas as pd

from dump_reading import FIXTURES
from dumplog_gen import dump_text, make_batches
from kafkadiag.readers import EventStream, ReadOptions
from kafkadiag.readers import sniff as sniff_mod
from kafkadiag.readers.sniff import sniff


def test_sniff_kinds() -> None:
    assert sniff(dump_text("3.6", make_batches(5, seed=1))) == "dump-log/data"
    assert sniff(dump_text("2.1", make_batches(5, seed=1), deep=True, path=None)) == "dump-log/data"
    assert sniff(b"Dumping /k/__transaction_state-3/00000000000000000000.log\nLog starting offset: 0\n") == "dump-log/transaction-state"
    assert sniff(b"Dumping /k/t-0/00000000000000000005.snapshot\nproducerId: 1 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: None\n") == "dump-log/snapshot"
    assert sniff(b"version: 0 producerId: 4 firstOffset: 1 lastOffset: 2 lastStableOffset: 3\n" * 2) == "dump-log/txnindex"
    assert sniff(b"offset: 40 position: 4096\noffset: 81 position: 8200\n") == "dump-log/index"
    assert sniff(b"") == "empty" and sniff(b"\n \n") == "empty"
    assert sniff(bytes(range(256)) * 10) == "binary"
    broker_log = b"[2024-01-01 10:00:00,000] INFO [TransactionCoordinator id=1] Initialized transactionalId t1 (kafka)\n" * 20
    assert sniff(broker_log) == "log/broker"  # claimed by the log reader, not mistaken for a dump
    prose = b"This dumps offsets: Dumping data is fun.\nbaseOffset is a word.\n"
    assert sniff(prose) == "unknown"


def test_sniff_seed_fixtures_with_surrounding_prose() -> None:
    for name in ("seed001_elided_deep.txt", "seed001_binary_payloads.txt"):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            assert sniff(f.read(65536)) == "dump-log/data", name


def test_sniff_registry_lets_a_new_reader_claim_inputs(monkeypatch) -> None:
    monkeypatch.setattr(sniff_mod, "_REGISTRY", list(sniff_mod._REGISTRY))

    def detect_broker(head: bytes):
        return (head.count(b"] INFO ") * 2, "broker-log/server") if b"] INFO " in head else None

    sniff_mod.register("broker-log", detect_broker)
    assert sniff(b"[2024-01-01 10:00:00,000] INFO x (kafka)\n" * 3) == "broker-log/server"
    assert sniff(dump_text("3.6", make_batches(5, seed=1))) == "dump-log/data"


def test_event_stream_over_a_directory_of_mixed_inputs(tmp_path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a-0.txt").write_bytes(dump_text("3.6", make_batches(40, seed=1), path=None))
    (tmp_path / "in" / "b.log").write_bytes(b"[2024-01-01 10:00:00,000] INFO hello (kafka)\n" * 3)
    (tmp_path / "in" / "c.bin").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "in" / "d.txt").write_bytes(b"")
    stream = EventStream([str(tmp_path / "in")], ReadOptions(chunk_rows=16))
    chunks = list(stream)
    assert [os.path.basename(p) for p in stream.files] == ["a-0.txt", "b.log", "c.bin", "d.txt"]
    assert all(len(df) <= 16 for _, df in chunks)
    batches = pd.concat([df for name, df in chunks if name == "batches"], ignore_index=True)
    assert len(batches) == 40 and set(batches["file_id"]) == {0} and set(batches["topic"]) == {"a"}
    a, b, c, d = stream.reports
    assert a.kinds == ["dump-log/data"] and a.era == "3.2+" and a.skipped == 0
    assert b.kinds and b.kinds[0].startswith("log/") and b.lines == 3  # a log line: the log reader's input
    assert c.kinds == ["binary"] and c.skip_reasons == {"binary data": 5}
    assert d.kinds == [] and d.lines == 0 and d.skipped == 0
    assert all(r.error == "" for r in stream.reports)
    assert a.to_json()["kind"] == "dump-log/data"


def test_event_stream_fixture_directory() -> None:
    stream = EventStream([FIXTURES])
    batches = pd.concat([df for name, df in stream if name == "batches"], ignore_index=True)
    assert len(batches) == 10
    assert all(r.kinds == ["dump-log/data"] for r in stream.reports)


def test_the_dump_tools_own_stderr_is_recognised(tmp_path) -> None:
    path = tmp_path / "__transaction_state-2.stderr.txt"
    path.write_bytes(
        b'Exception in thread "main" java.lang.NullPointerException\n'
        b"\tat kafka.tools.DumpLogSegments$TransactionLogMessageParser.parse(DumpLogSegments.scala)\n"
    )
    assert sniff(path.read_bytes()) == "dump-log/stderr"
    stream = EventStream([str(path)])
    assert list(stream) == []
    (report,) = stream.reports
    assert report.kinds == ["dump-log/stderr"] and report.notes == {"stack trace": 2} and report.skipped == 0
