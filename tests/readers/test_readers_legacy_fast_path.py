"""0.11 – 2.1 deep-iteration dumps (one line per record, no batch lines): the vectorised regrouping
(``readers.dumplog_legacy``) must give exactly the line parser's rows, report and era."""

from __future__ import annotations

import random

import pytest

from dump_reading import assert_same_reads, read_text, with_odd_lines
from dumplog_gen import dump_text, make_batches
from kafkadiag.readers import dumplog, dumplog_legacy

LEGACY_ERAS = ("0.11.0.0", "1.1", "2.0.0", "2.1")


@pytest.fixture
def legacy_calls(monkeypatch):
    """Let the legacy path run on the small blocks tests use, and count the batches it regrouped."""
    monkeypatch.setattr(dumplog_legacy, "MIN_RECORDS", 4)
    calls = {"n": 0}
    stretch = dumplog._BlockReader.legacy_stretch

    def counting(self, sb, k, end):
        before = len(self.parser.sink.tables["batches"])
        stretch(self, sb, k, end)
        calls["n"] += max(0, len(self.parser.sink.tables["batches"]) - before)
        return None

    monkeypatch.setattr(dumplog._BlockReader, "legacy_stretch", counting)
    return calls


_assert_same = assert_same_reads  # (text, block_size, calls, **read options)


@pytest.mark.parametrize("era", LEGACY_ERAS)
@pytest.mark.parametrize("block_size", [4096, 16384, 1 << 20])
@pytest.mark.parametrize("newlines", [False, True], ids=["one-line payloads", "multi-line payloads"])
def test_regrouped_batches_equal_the_line_parser_per_era(era: str, block_size: int, newlines: bool, legacy_calls) -> None:
    text = dump_text(era, make_batches(400, seed=21, newlines=newlines), deep=True)
    _assert_same(text, block_size, legacy_calls)


@pytest.mark.parametrize("era", ("0.11.0.0", "2.1"))
def test_regrouped_batches_equal_the_line_parser_when_arrow_parses_in_pieces(era: str, legacy_calls, monkeypatch) -> None:
    """Several chunks per column (each with its own dictionaries) give the rows of one."""
    monkeypatch.setattr(dumplog_legacy, "CSV_PIECE_BYTES", 4096)
    text = dump_text(era, make_batches(600, seed=47), deep=True)
    _assert_same(text, 65536, legacy_calls)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_odd_lines_between_records_go_to_the_line_parser(eol: bytes, legacy_calls) -> None:
    rnd = random.Random(8)
    parts: list[bytes] = []
    for p in range(3):
        text = dump_text("2.1", make_batches(300, seed=30 + p), path=f"/d/orders-{p}/00000000000000000000.log", deep=True, eol=eol)
        parts.append(with_odd_lines(text, eol, rnd, b"offset: 17 position: 4096"))  # an index entry
    text = b"".join(parts)
    used = 0
    for block_size in (2048, 8192, 65536):
        if eol == b"\r\n":
            legacy_calls["n"] = 1  # CR line ends stay on the line parser: only the equality is checked
        _assert_same(text, block_size, legacy_calls)
        used += legacy_calls["n"]
    assert used


def test_every_block_boundary_between_records(legacy_calls) -> None:
    text = dump_text("2.0.0", make_batches(120, seed=41, newlines=False), deep=True)
    for size in range(700, 6000, 97):
        _assert_same(text, size, legacy_calls)


def test_a_section_is_decided_by_its_first_payload(legacy_calls) -> None:
    text = dump_text("2.1", make_batches(500, seed=40), path=None, deep=True)
    _assert_same(text, 8192, legacy_calls)


def test_a_column_projection_keeps_the_same_values(legacy_calls) -> None:
    text = dump_text("1.1", make_batches(500, seed=44), deep=True)
    wanted = {"batches": ("producer_id", "base_offset", "marker", "timestamp", "is_valid")}
    lean = read_text(text, fast=True, block_size=8192, columns=wanted)
    full = read_text(text, fast=False, block_size=8192)
    assert lean["batches"].equals(full["batches"][list(lean["batches"].columns)])
    assert legacy_calls["n"] > 0


def test_a_batch_is_valid_only_when_all_its_records_are(legacy_calls) -> None:
    rnd = random.Random(5)
    text = dump_text("2.0.0", make_batches(300, seed=45, newlines=False), deep=True)
    lines = [line.replace(b"isvalid: true", b"isvalid: false") if rnd.random() < 0.05 else line for line in text.split(b"\n")]
    text = b"\n".join(lines)
    _assert_same(text, 8192, legacy_calls)
    assert not read_text(text, fast=True, block_size=8192)["batches"]["is_valid"].all()
