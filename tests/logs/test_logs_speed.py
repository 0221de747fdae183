"""Throughput and memory: a Java application log streams fast, in bounded chunks."""

from __future__ import annotations

import io
import time

from loggen import write_log
from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.logs import read_logs


def test_java_log_throughput_and_bounded_chunks() -> None:
    buffer = io.StringIO()
    write_log(buffer, 12)
    data = buffer.getvalue().encode()
    ctx = ReadContext(0, "app.log", ReadOptions(chunk_rows=8192), InputReport("app.log"))
    started = time.perf_counter()
    rows = 0
    largest = 0
    for _, frame in read_logs(io.BytesIO(data), ctx):
        rows += len(frame)
        largest = max(largest, len(frame))
    elapsed = time.perf_counter() - started
    mb_per_s = len(data) / (1 << 20) / elapsed
    print(f"\n{len(data) / (1 << 20):.1f} MB, {rows} events in {elapsed:.2f}s: {mb_per_s:.1f} MB/s")
    assert largest <= 8192 and rows > 20_000
    assert ctx.report.lines == data.count(b"\n")
    assert mb_per_s > 8  # lenient for shared CI machines; the 100 MB figure is measured with loggen.py
