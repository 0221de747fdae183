"""Readers: turn every input into chunks of the event tables in ``kafkadiag.tables``.

:class:`EventStream` is the one entry point the rest of the tool uses: it expands the user's
paths, sniffs each input, plans which readers read it through which view (:mod:`route`: a mixed
paste is read by the dump and the log reader, each seeing only its own lines) and yields
``(table_name, DataFrame)`` chunks, streaming, one input after another. Per-input reports (kind,
era, lines, skips, errors) are complete once iteration ends.
"""

from __future__ import annotations

import os

from typing import BinaryIO, Callable, Iterator

import pandas as pd

from kafkadiag import progress
from kafkadiag.inputs import (InputSpec, InputStream, Replay, expand_inputs, in_canonical_order, open_error, open_input,
                              real_path)
from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions, counted
from kafkadiag.readers import logs as _logs  # noqa: F401  (registers the log detector)
from kafkadiag.readers.configs import read_config_input, read_fenced_configs
from kafkadiag.readers.dumplog import read_dump
from kafkadiag.readers.paste import LineView
from kafkadiag.readers.route import plan
from kafkadiag.readers.sniff import BINARY, EMPTY, HEAD_BYTES
from kafkadiag.readers.sniff import sniff as sniff_head

Reader = Callable[[BinaryIO, ReadContext], Iterator[tuple[str, pd.DataFrame]]]

#: ``(file_id, display path, path on disk, report) -> handled?``: reads a large plain dump file
#: some other way (in ranges, in parallel) and fills its report; False falls back to streaming.
RangeReader = Callable[[int, str, str, InputReport], bool]

def read_logs(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[str, pd.DataFrame]]:
    """The client/broker log reader, imported on first use: a run over dumps alone never needs it."""
    from kafkadiag.readers.logs.reader import read_logs as read

    return read(stream, ctx)


#: Kind prefix (text before the first ``/``) -> reader.
READERS: dict[str, Reader] = {"dump-log": read_dump, "log": read_logs, "config": read_config_input,
                              "fenced-config": read_fenced_configs}  # type: ignore[dict-item]


def register_reader(prefix: str, reader: Reader) -> None:
    """Let a new reader claim the inputs its sniff detector labels ``<prefix>/...``."""
    READERS[prefix] = reader


class EventStream:
    """Iterate the event-table chunks of all inputs; ``reports``/``files`` describe the inputs.

    ``files[file_id]`` is the display path of input ``file_id`` (as given, or as found in a
    directory walk), numbered in name order; ``reports[file_id]`` its report. Inputs that could not be opened keep their
    place (with ``error`` set) so ids never shift.
    """

    def __init__(
        self,
        paths: list[str],
        options: ReadOptions | None = None,
        stdin: BinaryIO | None = None,
        range_reader: RangeReader | None = None,
    ) -> None:
        self.options = options or ReadOptions()
        self.range_reader = range_reader
        self._inputs = in_canonical_order(expand_inputs(paths, stdin=stdin))
        self.files: list[str] = [spec.display for spec in self._inputs]
        self.reports: list[InputReport] = [InputReport(path=spec.display, error=spec.error) for spec in self._inputs]
        self.configs: list = []  # configuration files among the inputs (lint ConfigFile objects)
        #: Inputs read elsewhere ahead of their turn (``engine.ahead``): ``take(file_id)`` gives what
        #: reading it here would have given, or None (read it here).
        self.ahead = None
        #: True while the chunks of an input read ahead are yielded: they come already reduced.
        self.yielding_ahead = False

    @property
    def specs(self) -> list:
        """The inputs, numbered (their index is their ``file_id``)."""
        return list(self._inputs)

    def __iter__(self) -> Iterator[tuple[str, pd.DataFrame]]:
        self.reports[:] = [InputReport(path=spec.display, error=spec.error) for spec in self._inputs]
        self.configs.clear()
        for file_id, spec in enumerate(self._inputs):
            yield from self._one(file_id, spec)
            counting = progress.active()
            if counting is not None:
                counting.input_done(file_id)

    def _one(self, file_id: int, spec: InputSpec) -> Iterator[tuple[str, pd.DataFrame]]:
        """One input's chunks: taken from the read-ahead pool when it read it, else read here."""
        report = self.reports[file_id]
        if report.error:
            return
        done = self.ahead.take(file_id) if self.ahead is not None else None
        if done is not None:
            self.reports[file_id] = done.report
            self.configs.extend(done.configs)
            self.yielding_ahead = True
            yield from done.chunks
            self.yielding_ahead = False
            return
        yield from read_input(file_id, spec.display, report, self.options, self.configs, self.range_reader)


#: Opens an input by its display path as a stream of decompressed bytes (``open_input`` for files
#: on this machine; a distributed engine passes one for bytes it fetched itself).
Opener = Callable[[str], InputStream]


def read_input(
    file_id: int,
    display: str,
    report: InputReport,
    options: ReadOptions,
    configs: list,
    range_reader: RangeReader | None = None,
    opener: Opener = open_input,
) -> Iterator[tuple[str, pd.DataFrame]]:
    """Sniff one input and yield its event chunks, filling ``report`` (and ``configs``).

    A reader that crashes ends this input with ``report.failed`` set and the error named; it never
    takes the other inputs of the run with it.
    """
    try:
        yield from _read_one(file_id, display, report, options, configs, range_reader, opener)
    except Exception as exc:  # a reader bug must not lose the other inputs, nor go unsaid
        report.error = f"reader failed after {report.lines} lines: {type(exc).__name__}: {exc}"
        report.failed = True


def _client_code(display: str, head: bytes) -> bool:
    """Application code (by its name) that sets Kafka client properties in literals."""
    from kafkadiag.lint.codeconf import CODE_SUFFIXES, code_dialect

    suffix = os.path.splitext(display)[1].lower()
    if suffix not in CODE_SUFFIXES:
        return False
    return code_dialect(head.decode("utf-8", "replace"), suffix) is not None


def _read_one(
    file_id: int, display: str, report: InputReport, options: ReadOptions, configs: list,
    range_reader: RangeReader | None, opener: Opener,
) -> Iterator[tuple[str, pd.DataFrame]]:
    try:
        stream = opener(display)
    except OSError as exc:
        report.error = open_error(display, exc)
        return
    _count_progress(stream, file_id)
    with stream:
        head = stream.read(HEAD_BYTES)
        kind = sniff_head(head)
        if kind not in (EMPTY, BINARY) and _client_code(display, head):
            kind = "config/code"  # a client's set-up code: its settings, as lint reads them
        ctx = ReadContext(file_id=file_id, path=display, options=options, report=report, configs=configs)
        if kind in (EMPTY, BINARY):
            lines = _count_lines(head, stream)
            report.lines = lines
            if kind == BINARY:
                report.kinds = ["binary"]
                ctx.skip("binary data", max(lines, 1))
            _stream_problem(stream, report)
            return
        passes = plan(kind, head)
        first = passes[0]
        reader = READERS[first.reader]
        if (first.view is None and reader is read_dump and range_reader is not None and not stream.compressed
                and not stream.cr_lines):
            if range_reader(file_id, display, real_path(display), report):
                return
        source = Replay(head, stream)
        yield from counted(reader(LineView(source, first.view) if first.view else source, ctx), report)  # type: ignore[arg-type]
        _stream_problem(stream, report)
    lines = report.lines
    for later in passes[1:]:
        report.lines = 0
        with opener(display) as again:
            _count_progress(again, file_id)
            view = LineView(again, later.view) if later.view else again
            yield from counted(READERS[later.reader](view, ctx), report)  # type: ignore[arg-type]
    report.lines = max(lines, report.lines)


def _count_progress(stream: InputStream, file_id: int) -> None:
    """While a progress bar listens, the stream tells it the bytes it has read (every megabyte or so)."""
    counting = progress.active()
    if counting is not None and hasattr(stream, "on_read"):
        stream.on_read = lambda done: counting.input_read(file_id, done)


def _stream_problem(stream: InputStream, report: InputReport) -> None:
    """A read that ended early: damage when something came before it (that part counts), else an error."""
    if stream.error and not report.error:
        if stream.position > 0:
            report.damage = stream.error
        else:
            report.error = stream.error


def _count_lines(head: bytes, stream: InputStream) -> int:
    count = head.count(b"\n")
    last = head[-1:]
    while True:
        chunk = stream.read(8 << 20)
        if not chunk:
            break
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (1 if last and last != b"\n" else 0)


__all__ = ["EventStream", "read_input", "InputReport", "ReadContext", "ReadOptions", "READERS", "register_reader", "read_dump"]
