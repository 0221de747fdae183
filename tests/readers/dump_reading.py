"""Helpers shared by the reader tests: run the dump reader on text and collect its tables.

A module of its own, not ``conftest``: test folders run together would import another folder's
``conftest`` by that name."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

import pandas as pd

from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.dumplog import read_dump
from kafkadiag.tables import EVENT_TABLES

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "fixtures", "readers")


@dataclass
class Result:
    tables: dict[str, pd.DataFrame]
    report: InputReport

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]


def read_text(
    text: bytes | str,
    *,
    fast: bool = True,
    path: str = "dump.txt",
    partition: str | None = None,
    chunk_rows: int = 65536,
    block_size: int | None = None,
    columns: dict[str, tuple[str, ...]] | None = None,
) -> Result:
    """All rows the dump reader yields for ``text``, one frame per table (empty frames included)."""
    data = text.encode() if isinstance(text, str) else text
    report = InputReport(path)
    options = ReadOptions(partition=partition, chunk_rows=chunk_rows, columns=columns or {})
    ctx = ReadContext(0, path, options, report)
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in EVENT_TABLES}
    kwargs = {} if block_size is None else {"block_size": block_size}
    for name, frame in read_dump(io.BytesIO(data), ctx, fast=fast, **kwargs):
        assert len(frame) <= chunk_rows
        assert list(frame.columns) == [c.name for c in EVENT_TABLES[name].project(options.columns.get(name))]
        parts[name].append(frame)
    tables = {
        name: pd.concat(frames, ignore_index=True) if frames else EVENT_TABLES[name].empty()[[c.name for c in EVENT_TABLES[name].project(options.columns.get(name))]]
        for name, frames in parts.items()
    }
    return Result(tables, report)


def assert_same_reads(text: bytes, block_size: int, calls: dict | None = None, **kwargs) -> None:
    """The vectorised paths and the line parser read ``text`` the same: rows, skips, kinds, lines, era.

    ``calls``: a counter a test's fixture bumps where the vectorised path under test runs; it
    must have run during the fast read.
    """
    if calls is not None:
        calls["n"] = 0
    fast = read_text(text, fast=True, block_size=block_size, **kwargs)
    if calls is not None:
        assert calls["n"] > 0, "the vectorised path under test was never taken"
    slow = read_text(text, fast=False, block_size=block_size, **kwargs)
    for name in fast.tables:
        assert fast[name].equals(slow[name]), name
    assert fast.report.skipped == slow.report.skipped
    assert fast.report.skip_reasons == slow.report.skip_reasons
    assert fast.report.kinds == slow.report.kinds
    assert fast.report.lines == slow.report.lines
    assert fast.report.era == slow.report.era


def with_odd_lines(text: bytes, eol: bytes, rnd, odd_line: bytes) -> bytes:
    """``text`` with, after about 3 % of its lines, a line no dump batch starts: a blank one, prose,
    ``odd_line`` (a tool message or an index entry) or binary junk."""
    out: list[bytes] = []
    for line in text.split(eol):
        out.append(line)
        roll = rnd.random()
        if roll < 0.01:
            out.append(b"")
        elif roll < 0.02:
            out.append(b"some prose that is not a dump line")
        elif roll < 0.025:
            out.append(odd_line)
        elif roll < 0.03:
            out.append(b"\x00\x01\x02binary junk")
    return eol.join(out)
