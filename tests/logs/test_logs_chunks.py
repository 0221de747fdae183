"""Memory: a Java application log streams in bounded chunks (its speed is measured in benchmarks/log_speed.py)."""

from __future__ import annotations

import io

from loggen import write_log
from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.logs import read_logs


def test_java_log_streams_in_bounded_chunks() -> None:
    buffer = io.StringIO()
    write_log(buffer, 12)
    data = buffer.getvalue().encode()
    ctx = ReadContext(0, "app.log", ReadOptions(chunk_rows=8192), InputReport("app.log"))
    rows = 0
    largest = 0
    for _, frame in read_logs(io.BytesIO(data), ctx):
        rows += len(frame)
        largest = max(largest, len(frame))
    assert largest <= 8192 and rows > 20_000
    assert ctx.report.lines == data.count(b"\n")
