"""The local runner: read every input in this process, large plain dumps in parallel byte ranges.

Small inputs answer without starting anything heavy; the stages after the read are
:mod:`pipeline`'s, shared with the Spark runner.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from .. import progress
from ..config import EffectiveConfig
from ..facts.batch_stream import BatchStream
from ..facts.build import CollectedEvents
from ..readers import EventStream
from ..readers.base import InputReport, ReadOptions
from .pipeline import AnalysisResult, Collected, diagnose, summarize, v2_possible  # noqa: F401  (re-exported)
from .ahead import ReadAhead
from .log_compact import LogCompactor
from .log_filter import LOG_TABLE, log_conditions, reduced
from .ranges import read_in_ranges


def reduction_options(options: ReadOptions) -> ReadOptions:
    """Batch chunks carry only the columns the batch reduction reads, as arrays (no frame is built
    only to be taken apart: a millisecond per chunk, which a folder of small dumps pays per file)."""
    return replace(options, columns={**options.columns, "batches": BatchStream.COLUMNS},
                   arrays=tuple(dict.fromkeys((*options.arrays, "batches"))))


def collect(paths: list[str], options: ReadOptions, parallel: bool = True,
            spill_beyond: int | None = None, compactor: LogCompactor | None = None) -> tuple[CollectedEvents, EventStream]:
    """Stream every input into the collected events.

    With ``parallel``, large plain dump files are read in ranges by several processes;
    ``options.log_conditions`` reduce each chunk of log events as it arrives (see :mod:`.log_filter`);
    with ``spill_beyond``, partial spans (and coordinator records) beyond that many wait on disk for
    the bucketed fact stage;
    with ``compactor``, the log rows kept stay bounded (see :mod:`.log_compact`).
    """
    options = reduction_options(options)
    events = CollectedEvents()
    if spill_beyond is not None:
        from .buckets import record_shard, spill_shard

        events.batches.spill_beyond(spill_beyond, spill_shard)
        events.spill_records_beyond(spill_beyond, record_shard)

    def ranges(file_id: int, display: str, path: str, report: InputReport) -> bool:
        return read_in_ranges(events, file_id, display, path, report, options)

    stream = EventStream(paths, options, range_reader=ranges if parallel else None)
    # Counted in shared memory created before any reader process forks (when a progress bar listens).
    progress.begin(["" if spec.error else spec.path for spec in stream.specs])
    try:
        if parallel:
            stream.ahead = ReadAhead(stream.specs, options)  # large logs read by other cores meanwhile
        for table, chunk in stream:
            chunk = chunk if stream.yielding_ahead else reduced(table, chunk, options.log_conditions)
            if compactor is not None and table == LOG_TABLE:
                compactor.add(chunk)
            else:
                events.add(table, chunk)
    finally:
        if stream.ahead is not None:
            stream.ahead.close()
        progress.finish()
    if compactor is not None:
        events.log_events, events.log_counts = compactor.finish()
    return events, stream


class LocalRunner:
    """In-process reading; the default for inputs below the Spark threshold."""

    name = "local"

    def __init__(self, parallel: bool = True, reduce_logs: bool = False, bucket_spans: int | None = None) -> None:
        self.parallel = parallel
        #: Keep only the log events a rule may match (``analyze``; the timeline needs them all).
        self.reduce_logs = reduce_logs
        #: Build the producer facts of a large run in buckets of this many transactions, keeping
        #: only the rows a finding can show (``analyze``; the timeline needs every row).
        self.bucket_spans = bucket_spans

    def collect(self, paths: list[str], options: ReadOptions, rules: list | None = None,
                config: EffectiveConfig | None = None) -> Collected:
        """Every input read; with ``config`` (and log reduction), the log rows kept in bounded memory."""
        compactor = None
        if self.reduce_logs and rules is not None:
            options = replace(options, log_conditions=log_conditions(rules))
            if config is not None:
                compactor = LogCompactor(rules, config.as_mapping())
        spill = 2 * self.bucket_spans if self.bucket_spans else None  # as many as a run built whole
        events, stream = collect(paths, options, self.parallel, spill, compactor)
        return Collected(events, stream.reports, stream.files, stream.configs)

    def analyze(self, paths: list[str], options: ReadOptions, rules: list, config: EffectiveConfig,
                now_ms: int | None, evaluate: Callable | None) -> AnalysisResult:
        return diagnose(self.collect(paths, options, rules, config), rules, config, now_ms, evaluate, self.bucket_spans)


def analyze(
    paths: list[str],
    rules: list,
    config: EffectiveConfig,
    now_ms: int | None = None,
    options: ReadOptions | None = None,
    evaluate: Callable | None = None,
    runner=None,
) -> AnalysisResult:
    """Run the whole pipeline with ``runner`` (local by default)."""
    from ..ruleset.evaluate import evaluate as default_evaluate

    return (runner or LocalRunner()).analyze(paths, options or ReadOptions(), rules, config, now_ms,
                                             evaluate or default_evaluate)
