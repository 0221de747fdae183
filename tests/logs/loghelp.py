"""Helpers for the log reader tests: read text or a fixture and get the LOG_EVENTS rows back."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

import pandas as pd

from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.logs import read_logs
from kafkadiag.tables import LOG_EVENTS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "fixtures", "logs")


@dataclass
class Result:
    events: pd.DataFrame
    report: InputReport

    def rows(self) -> list[dict]:
        return self.events.to_dict("records")

    def at(self, line: int) -> dict:
        """The event that starts on ``line``."""
        found = self.events[self.events["line"] == line]
        assert len(found) == 1, f"no single event on line {line}: {self.events[['line', 'message']].to_string()}"
        return found.iloc[0].to_dict()


def fixture_bytes(name: str) -> bytes:
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def read_log(
    data: bytes | str, *, chunk_rows: int = 65536, block_size: int | None = None, fast: bool = True, path: str = "x.log"
) -> Result:
    """All rows the log reader yields for ``data`` (frames checked against the schema)."""
    raw = data.encode() if isinstance(data, str) else data
    report = InputReport(path)
    ctx = ReadContext(0, path, ReadOptions(chunk_rows=chunk_rows), report)
    kwargs = {} if block_size is None else {"block_size": block_size}
    frames = []
    for name, frame in read_logs(io.BytesIO(raw), ctx, fast=fast, **kwargs):
        assert name == "log_events"
        assert list(frame.columns) == LOG_EVENTS.names
        assert 0 < len(frame) <= chunk_rows
        frames.append(frame)
    events = pd.concat(frames, ignore_index=True) if frames else LOG_EVENTS.empty()
    return Result(events, report)


def read_fixture(name: str, **kwargs) -> Result:
    return read_log(fixture_bytes(name), path=name, **kwargs)


def utc_ms(text: str) -> int:
    """``2024-05-14T09:58:02.140`` (UTC) -> epoch ms."""
    return int(pd.Timestamp(text, tz="UTC").value // 1_000_000)
