"""The vectorised fast path and the line parser must produce identical rows."""

from __future__ import annotations

import random

import pytest

from dump_reading import assert_same_reads, read_text, with_odd_lines
from dumplog_gen import dump_text, make_batches
from kafkadiag.readers import dumplog


@pytest.fixture
def fast_calls(monkeypatch, small_fast_threshold):
    calls = {"n": 0}
    original = dumplog._BlockReader.fast_stretch

    def counting(self, sb, a, b):
        calls["n"] += 1
        return original(self, sb, a, b)

    monkeypatch.setattr(dumplog._BlockReader, "fast_stretch", counting)
    return calls


_assert_same = assert_same_reads  # (text, block_size, calls, **read options)


# 0.11-2.1 deep dumps have no batch lines, so only their shallow form can take the fast path.
ERA_MODES = [("1.1", False), ("2.0.0", False), ("2.1", False)] + [(e, d) for e in ("2.5", "2.8", "3.1", "3.6") for d in (True, False)]


@pytest.mark.parametrize("era, deep", ERA_MODES)
@pytest.mark.parametrize("block_size", [4096, 16384])
def test_fast_equals_general_per_era(era, deep, block_size, fast_calls) -> None:
    text = dump_text(era, make_batches(400, seed=21), deep=deep)
    _assert_same(text, block_size, fast_calls)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_fast_equals_general_with_odd_lines_mixed_in(eol, fast_calls) -> None:
    rnd = random.Random(8)
    parts: list[bytes] = []
    for p in range(3):
        batches = make_batches(300, seed=30 + p)
        text = dump_text("3.6", batches, path=f"/d/orders-{p}/00000000000000000000.log", eol=eol)
        parts.append(with_odd_lines(text, eol, rnd, b"Found 17 invalid bytes at the end of 00000000000000000000.log"))
    text = b"".join(parts) + b"Non-consecutive offsets in /d/orders-0/00000000000000000000.log" + eol + b"  5 is followed by 7" + eol
    for block_size in (2048, 8192, 65536):
        _assert_same(text, block_size, fast_calls)


def test_fast_equals_general_when_the_first_content_decides_the_section(fast_calls) -> None:
    text = dump_text("3.1", make_batches(500, seed=40), path=None)
    _assert_same(text, 8192, fast_calls)


def test_fast_equals_general_for_a_trailing_control_batch_at_a_block_end(fast_calls) -> None:
    batches = make_batches(400, seed=41, newlines=False)
    text = dump_text("3.6", batches)
    lines = text.split(b"\n")
    for cut in range(1, len(lines), 37):  # try many block boundaries
        size = len(b"\n".join(lines[:cut])) + 1
        if size > 1024:
            _assert_same(text, size, fast_calls)
            break
    for size in (1500, 3000, 6000):
        _assert_same(text, size, fast_calls)


@pytest.mark.parametrize("era, deep", [("2.1", False), ("2.8", True), ("3.6", False)])
def test_fast_equals_general_when_arrow_parses_a_block_in_pieces(era, deep, fast_calls, monkeypatch) -> None:
    """A block's batch lines are parsed in pieces (several chunks per column, each with its own
    dictionaries): the rows must be those of one piece, and of the line parser."""
    from kafkadiag.readers import dumplog_fast

    monkeypatch.setattr(dumplog_fast, "CSV_PIECE_BYTES", dumplog_fast.MAX_BATCH_LINE)
    text = dump_text(era, make_batches(600, seed=46), deep=deep)
    _assert_same(text, 65536, fast_calls)


@pytest.mark.parametrize("era, deep", [("2.1", False), ("2.5", True), ("3.6", False), ("3.6", True)])
@pytest.mark.parametrize("fast", [True, False])
def test_a_column_projection_keeps_exactly_the_same_values(era, deep, fast, fast_calls) -> None:
    """analyze asks only for the batch columns its reduction reads; those must equal a full read."""
    from kafkadiag.facts.batch_stream import BatchStream

    text = dump_text(era, make_batches(500, seed=44), deep=deep)
    full = read_text(text, fast=fast, block_size=8192)
    fast_calls["n"] = 0
    lean = read_text(text, fast=fast, block_size=8192, columns={"batches": BatchStream.COLUMNS})
    assert fast_calls["n"] > 0 or not fast
    wanted = [c for c in full["batches"].columns if c in BatchStream.COLUMNS]
    assert list(lean["batches"].columns) == wanted
    assert lean["batches"].equals(full["batches"][wanted])
    for name in full.tables:
        if name != "batches":
            assert lean[name].equals(full[name]), name
    assert lean.report.era == full.report.era and lean.report.lines == full.report.lines


def test_unknown_projected_columns_are_an_error() -> None:
    from kafkadiag.tables import BATCHES

    with pytest.raises(ValueError, match="unknown columns"):
        BATCHES.project(["producer_id", "no_such_column"])
