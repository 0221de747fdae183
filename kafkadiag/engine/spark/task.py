"""What one Spark task runs: the project's own reader and batch reduction over one piece of input.

A piece is a whole input (any kind: dump, log, config) or a byte range of a large plain dump.
The task returns the reduced events and the input's report, pickled; nothing per line leaves it.
Tasks must be importable functions of the installed (or shipped) package, so that executors run
exactly the code the driver does.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from typing import Iterator

from ...facts.batch_stream import BatchStream
from ...gctune import tune_for_batch
from ...facts.build import CollectedEvents
from ...inputs import RawOpener, open_input
from ...readers import read_input
from ...readers.base import InputReport, ReadOptions
from ...readers.prefetch import use_cores
from ..log_filter import reduced
from ..ranges import RangeResult, read_range


@dataclass(frozen=True)
class Piece:
    """One input file, or bytes ``[start, end)`` of it (``part`` counts ranges from 0)."""

    file_id: int
    display: str
    location: str  # where executors open it: an absolute path, or a Hadoop URI (read by Spark)
    start: int = 0
    end: int = -1  # -1: the whole input, read by whatever reader its content asks for
    part: int = 0

    @property
    def whole(self) -> bool:
        return self.end < 0


@dataclass
class PieceResult:
    """A whole input's events, report and configs; or one range's ``RangeResult``."""

    piece: Piece
    events: CollectedEvents | None = None
    report: InputReport | None = None
    configs: list = field(default_factory=list)
    range: RangeResult | None = None
    error: str = ""  # a range reader failed: the driver reads the rest of the file itself
    module_file: str = ""  # where the executor imported kafkadiag from (shows what was shipped)


def read_whole(piece: Piece, options: ReadOptions, open_raw: RawOpener | None = None) -> PieceResult:
    """Read one whole input as the local runner would (sniff, route, every reader pass).

    ``open_raw`` opens its bytes some other way than as a file here (bytes Spark fetched, a
    stream through the driver's JVM).
    """
    from ... import __file__ as module_file

    report = InputReport(piece.display)
    events = CollectedEvents(batches=BatchStream(joinable=True))
    configs: list = []
    if open_raw is None:
        opener = lambda _display: open_input(piece.location)  # noqa: E731
    else:
        opener = lambda _display: open_input(piece.location, open_raw)  # noqa: E731
    for table, chunk in read_input(piece.file_id, piece.display, report, options, configs, opener=opener):
        events.add(table, reduced(table, chunk, options.log_conditions))  # only log rows a rule may match leave
    return PieceResult(piece, events, report, configs, module_file=module_file)


def claim_task_cores() -> None:
    """Read with the cores Spark gave this task (``spark.task.cpus``), not with every core of the host.

    The reader scans blocks on a few threads. In a task those threads compete with the executor's
    other tasks, and on ``local[1]`` they made one task use one and a half cores.
    """
    try:
        from pyspark import TaskContext

        context = TaskContext.get()
        cores = context.cpus() if context is not None else None
    except Exception:  # an older pyspark, or not inside a task: keep the machine's count
        cores = None
    use_cores(cores)


def read_piece(piece: Piece, options: ReadOptions) -> PieceResult:
    """A whole input, or a byte range of a plain dump read from the state placeholder of its part."""
    tune_for_batch()  # the first thing an executor's Python worker runs for this package
    claim_task_cores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if piece.whole:
            return read_whole(piece, options)
        from ..ranges import placeholder

        resume = None if piece.part == 0 else placeholder(piece.part)
        try:
            result = read_range(piece.location, piece.display, piece.file_id, options, piece.start, piece.end, resume)
        except Exception as exc:  # as in the local runner: the driver reads from here on itself
            return PieceResult(piece, error=f"{type(exc).__name__}: {exc}")
        from ... import __file__ as module_file

        return PieceResult(piece, range=result, module_file=module_file)


def read_fetched(rows: Iterator, files: dict[str, tuple[int, str]], options: ReadOptions) -> Iterator[PieceResult]:
    """The body of a task over Spark's ``binaryFile`` rows: each row is one whole input's bytes."""
    tune_for_batch()
    claim_task_cores()
    for row in rows:
        file_id, display = files[row.path]
        piece = Piece(file_id, display, row.path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            content = bytes(row.content)
            yield read_whole(piece, options, lambda _path: io.BytesIO(content))


