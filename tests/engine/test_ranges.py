"""Reading a dump in parallel byte ranges must give exactly what one sequential read gives.

Simulated incidents (fencing, sequence gaps and duplicates, restarts, lost markers, hanging
transactions) are written as one multi-section dump, data sections first and a
``__transaction_state`` section and snapshots after them, then read whole and in 2 to 7 ranges:
every cut lands somewhere else, inside producers' transactions, between duplicates, inside the
transaction-log section (which must be read again from the right state).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine import local, ranges
from kafkadiag.facts.build import build_fact_tables
from kafkadiag.readers.base import ReadOptions

pytestmark = pytest.mark.slow  # every case read whole and in byte ranges

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

CASES = [
    ("sequence-duplicate", "3.3"), ("sequence-gap", "2.4.1"), ("fencing", "4.1"), ("mixed", "3.3"),
    ("restart", "2.8"), ("lost-marker", "3.5"), ("hanging", "2.4"), ("timeout", "4.0"),
    # 0.11 - 2.1 deep dumps: record lines only, cut where a batch's position starts
    ("fencing", "2.0"), ("sequence-gap", "0.11"), ("mixed", "2.1"), ("hanging", "1.1"),
]


def _one_dump(case: Path, out: Path) -> Path:
    """The case's dumps as one file: data sections, then the transaction log, then snapshots."""
    files = sorted(p for p in case.iterdir() if p.suffix == ".txt" and not p.name.endswith(".stderr.txt"))
    data = [p for p in files if ".log." in p.name and not p.name.startswith("__transaction_state")]
    rest = [p for p in files if p not in data]
    out.write_bytes(b"".join(p.read_bytes() for p in data + rest))
    return out


def _facts(path: Path, parallel: bool, options: ReadOptions | None = None):
    config = EffectiveConfig.defaults()
    events, stream = local.collect([str(path)], options or ReadOptions(), parallel=parallel)
    tables = build_fact_tables(events, config.as_mapping(), {k: v.is_default for k, v in config.values.items()}, True)
    return tables, [r.to_json() for r in stream.reports], events.batches.partitions


@pytest.mark.parametrize("scenario, era", CASES)
def test_ranges_give_the_same_facts_as_one_read(tmp_path, monkeypatch, scenario: str, era: str) -> None:
    simulate.generate(scenario, era, tmp_path / "case", seed=3)
    dump = _one_dump(tmp_path / "case", tmp_path / "all.txt")
    whole, whole_reports, whole_parts = _facts(dump, parallel=False)
    assert len(whole["spans"]) > 20
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    for workers in range(2, 8):
        monkeypatch.setattr(ranges, "range_workers", lambda workers=workers: workers)
        assert len(ranges.cut_points(str(dump), dump.stat().st_size, workers)) > 2
        split, reports, parts = _facts(dump, parallel=True)
        assert reports == whole_reports, workers
        for name, table in whole.items():
            assert split[name].equals(table), (workers, name)
        summary = lambda ps: {(v.topic, v.partition): (v.batches, v.holes, v.first_time, v.last_time, v.files) for v in ps.values()}  # noqa: E731
        assert summary(parts) == summary(whole_parts)


@pytest.mark.parametrize("era", ["3.3", "2.4.1", "2.0"])
def test_ranges_that_start_inside_a_partition_meet_its_later_segments(tmp_path, monkeypatch, era: str) -> None:
    """A partition dumped as many segments: a range begins inside one and reads the next ones by name."""
    from kafkasim import generate_bulk

    dump = tmp_path / "bulk.txt"
    generate_bulk(dump, 2_000_000, era=era, seed=5, producers=40, segment_bytes=60_000)
    assert dump.read_bytes().count(b"\nDumping ") > 10
    whole, whole_reports, _ = _facts(dump, parallel=False)
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    for workers in (2, 3, 5):
        monkeypatch.setattr(ranges, "range_workers", lambda workers=workers: workers)
        split, reports, _ = _facts(dump, parallel=True)
        assert reports == whole_reports
        for name, table in whole.items():
            assert split[name].equals(table), (workers, name)


def test_small_files_are_read_in_one_piece_and_transaction_logs_cut_only_when_asked(tmp_path) -> None:
    simulate.generate("commit", "3.3", tmp_path / "case", seed=1)
    case = tmp_path / "case"
    txnlog = next(case.glob("__transaction_state-*.log.txt"))
    data = next(case.glob("orders-0.log.txt"))
    assert ranges.cut_points(str(txnlog), txnlog.stat().st_size, 4) == [0, txnlog.stat().st_size]
    assert len(ranges.cut_points(str(txnlog), txnlog.stat().st_size, 4, transaction_log=True)) > 2
    events = local.CollectedEvents()
    report = local.InputReport(str(data))
    assert not ranges.read_in_ranges(events, 0, str(data), str(data), report, ReadOptions(), workers=4)
    assert events.batches.batches == 0


def test_a_failed_range_is_read_again_by_the_parent(tmp_path, monkeypatch) -> None:
    import os

    simulate.generate("mixed", "3.3", tmp_path / "case", seed=2)
    dump = _one_dump(tmp_path / "case", tmp_path / "all.txt")
    whole, whole_reports, _ = _facts(dump, parallel=False)
    parent = os.getpid()
    original = ranges.read_range

    def failing(*args, **kwargs):
        if os.getpid() != parent and args[4] > 0:  # every range but the first, in the child
            raise MemoryError("simulated")
        return original(*args, **kwargs)

    monkeypatch.setattr(ranges, "read_range", failing)
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    monkeypatch.setattr(ranges, "range_workers", lambda: 3)
    split, reports, _ = _facts(dump, parallel=True)
    assert reports == whole_reports
    for name, table in whole.items():
        assert split[name].equals(table), name


def test_crlf_dumps_without_a_dumping_line_use_the_partition_option_in_every_range(tmp_path, monkeypatch) -> None:
    from kafkasim import generate_bulk

    source = tmp_path / "bulk.txt"
    generate_bulk(source, 1_000_000, era="3.5", seed=9, producers=30)
    lines = [line for line in source.read_bytes().split(b"\n") if not line.startswith(b"Dumping ")]
    dump = tmp_path / "crlf.txt"
    dump.write_bytes(b"\r\n".join(lines))
    options = ReadOptions(partition="payments-3")
    whole, whole_reports, _ = _facts(dump, parallel=False, options=options)
    assert set(whole["spans"]["topic"]) == {"payments"} and set(whole["spans"]["partition"]) == {3}
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    monkeypatch.setattr(ranges, "range_workers", lambda: 3)
    split, reports, _ = _facts(dump, parallel=True, options=options)
    assert reports == whole_reports
    for name, table in whole.items():
        assert split[name].equals(table), name


@pytest.mark.parametrize("era", ["3.3", "2.4.1", "2.0", "4.1"])
def test_a_transaction_log_dump_read_in_ranges_gives_the_same_facts(tmp_path, monkeypatch, era: str) -> None:
    """``--transaction-log-decoder`` output of many ids over 50 partitions: ranges start inside
    coordinator partitions under a placeholder number, replaced by the partition before the cut."""
    from kafkasim.txnbulk import generate_txn_state

    dump = tmp_path / "txn.txt"
    generate_txn_state(dump, 1200, era=era, seed=4)
    whole, whole_reports, _ = _facts(dump, parallel=False)
    assert len(whole["transitions"]) > 3000 and whole["transactional_ids"]["transactional_id"].nunique() == 1200
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    rereads = []
    original = ranges.read_range
    monkeypatch.setattr(ranges, "read_range", lambda *args, **kw: rereads.append(args[4]) or original(*args, **kw))
    for workers in (2, 3, 7):
        monkeypatch.setattr(ranges, "range_workers", lambda workers=workers: workers)
        assert len(ranges.cut_points(str(dump), dump.stat().st_size, workers, transaction_log=True)) > 2
        split, reports, _ = _facts(dump, parallel=True)
        assert reports == whole_reports, workers
        # The parent reads the first range itself; any other range read here was read again.
        assert [start for start in rereads if start != 0] == [], "a range was read again: its placeholder did not fit"
        for name, table in whole.items():
            pd.testing.assert_frame_equal(split[name], table, obj=f"{name} ({workers} ranges)")


def test_range_readers_park_their_coordinator_records_until_the_join(tmp_path, monkeypatch) -> None:
    """A range reader (another process) keeps at most ``PARK_RECORDS`` coordinator records in
    memory: the rest wait in a file of a folder the join removes. The facts are those of one read."""
    import tempfile

    from kafkasim.txnbulk import generate_txn_state

    dump = tmp_path / "txn.txt"
    generate_txn_state(dump, 1200, era="3.3", seed=6)
    whole, whole_reports, _ = _facts(dump, parallel=False)
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    monkeypatch.setattr(ranges, "range_workers", lambda: 3)
    monkeypatch.setattr(ranges, "PARK_RECORDS", 200)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    parked: list[str] = []
    real_mkstemp = tempfile.mkstemp

    def counted(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        parked.append(made[1])
        return made

    monkeypatch.setattr(tempfile, "mkstemp", counted)
    split, reports, _ = _facts(dump, parallel=True)
    assert reports == whole_reports
    for name, table in whole.items():
        pd.testing.assert_frame_equal(split[name], table, obj=name)
    assert parked, "the parent's own range parks records too"
    assert not list(tmp_path.glob("kafkadiag-ranges-*")), "the parking folder outlives the read"


def _facts_of(paths: list[Path], parallel: bool):
    config = EffectiveConfig.defaults()
    events, stream = local.collect([str(p) for p in paths], ReadOptions(), parallel=parallel)
    tables = build_fact_tables(events, config.as_mapping(), {k: v.is_default for k, v in config.values.items()}, True)
    return tables, [r.to_json() for r in stream.reports]


@pytest.mark.parametrize("scenario, era", [("sequence-duplicate", "3.3"), ("fencing", "2.0")])
def test_a_later_dump_read_in_ranges_joins_the_partitions_of_an_earlier_one(tmp_path, monkeypatch, scenario, era) -> None:
    """Only the run's first range may drop what a join needs: the first range of a second dump
    continues partitions the first dump began (two segments of one partition, given as two files)."""
    simulate.generate(scenario, era, tmp_path / "case", seed=3)
    dump = _one_dump(tmp_path / "case", tmp_path / "all.txt")
    text = dump.read_bytes()
    batch = b"\nbaseOffset: " if era != "2.0" else b"\noffset: "
    cut = text.index(batch, len(text) // 2) + 1
    # The second file starts as the next segment of the same partition: its own header first.
    head = text.rindex(b"Dumping ", 0, cut)
    header = text[head : text.index(batch, head) + 1]
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_bytes(text[:cut])
    second.write_bytes(header + text[cut:])
    whole, whole_reports = _facts_of([first, second], parallel=False)
    assert len(whole["spans"]) > 20
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 0)
    monkeypatch.setattr(ranges, "range_workers", lambda: 3)
    split, reports = _facts_of([first, second], parallel=True)
    assert reports == whole_reports
    for name, table in whole.items():
        pd.testing.assert_frame_equal(split[name], table, obj=name)
