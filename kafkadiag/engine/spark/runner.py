"""The Spark runner's read stage: plan pieces, run them as Spark tasks, join them in order.

Results come back one task at a time (``toLocalIterator``) and are joined at once, file after
file and range after range, by the same code that joins the local runner's parallel ranges; the
driver holds the reduced events (spans, sequence breaks, coordinator records, log events), never
the batch rows. Everything after the read is the shared pipeline.
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Mapping

from ...facts.build import CollectedEvents
from ...readers.base import InputReport, ReadOptions
from ..evidence import local_lines
from ..local import reduction_options
from ..pipeline import Collected
from ..ranges import _Joiner, read_range
from .hadoop import HadoopFile, hadoop_lines, list_uri, spark_skips
from .plan import Plan, expand, is_uri, make_plan
from .session import SparkFailed, SparkUnavailable, first_error, log_path, start_session
from .task import Piece, PieceResult, read_fetched, read_pieces, read_whole


class SparkRunner:
    """Reads the inputs with Spark tasks on ``master``; ``conf`` holds ``--spark-conf`` settings."""

    name = "spark"

    def __init__(self, master: str | None = "local[*]", conf: Mapping[str, str] | None = None) -> None:
        self.master = master
        self.conf = dict(conf or {})
        self.executor_modules: set[str] = set()  # where executors imported kafkadiag from
        self.details: dict[str, object] = {}  # what the report says about the run (tasks, package)

    def collect(self, paths: list[str], options: ReadOptions) -> Collected:
        spark = start_session(self.master, self.conf)
        try:
            return self._collect(spark, paths, options)
        except (SparkUnavailable, SparkFailed):
            raise
        except Exception as exc:
            if type(exc).__module__.startswith(("py4j", "pyspark")):
                where = f" (JVM log: {log_path()})" if log_path() else ""
                raise SparkFailed(f"the Spark job failed on {self.master}: {first_error(exc)}{where}") from None
            raise

    def _collect(self, spark: Any, paths: list[str], options: ReadOptions) -> Collected:
        from .ship import ship_package

        ship_package(spark, spark.sparkContext.master)
        options = reduction_options(options)
        uri_sizes: dict[str, int] = {}
        specs = expand(paths, lambda uri: list_uri(spark, uri, uri_sizes))
        sizes = {i: (uri_sizes.get(s.path, 0) if is_uri(s.path) else _size(s.path)) for i, s in enumerate(specs) if not s.error}
        plan = make_plan(specs, sizes, spark.sparkContext.defaultParallelism, spark_skips)
        reports = [InputReport(path=s.display, error=s.error) for s in specs]
        events = CollectedEvents()
        configs: list = []
        fetched = self._fetch_remote(spark, plan, options)
        local = self._run_local(spark, plan, options)
        for file_id, spec in enumerate(specs):
            if spec.error:
                continue
            if file_id in plan.on_driver:
                result = read_whole(Piece(file_id, spec.display, spec.path), options)
                self._join_whole(events, reports, configs, result)
            elif file_id in plan.remote_on_driver:
                piece = Piece(file_id, spec.display, spec.path)
                result = read_whole(piece, options, lambda uri: HadoopFile(spark, uri))
                assert result.report is not None
                result.report.notes[plan.remote_on_driver[file_id]] += 1
                self._join_whole(events, reports, configs, result)
            elif file_id in fetched:
                self._join_whole(events, reports, configs, fetched.pop(file_id))
            elif file_id in plan.pieces:
                results = [next(local) for _ in plan.pieces[file_id]]
                if results[0].piece.whole:
                    self._join_whole(events, reports, configs, results[0])
                else:
                    self.executor_modules.update(r.module_file for r in results if r.module_file)
                    _join_ranges(events, reports[file_id], results, options, sizes[file_id])
        self.master = spark.sparkContext.master
        self.details = {
            "master": self.master,
            "tasks": len(plan.tasks) + (1 if plan.remote else 0),
            # Where executors imported kafkadiag from: the archive this run shipped, or their own install.
            "executors_ran": sorted({"shipped package" if m.find("kafkadiag-package.zip") >= 0 else "installed package"
                                     for m in self.executor_modules}),
        }
        lines = hadoop_lines(spark) if plan.remote or plan.remote_on_driver else None
        return Collected(events, reports, plan.files, configs, _dispatch(lines) if lines else None)

    def _run_local(self, spark: Any, plan: Plan, options: ReadOptions) -> Iterator[PieceResult]:
        if not plan.tasks:
            return iter(())
        rdd = spark.sparkContext.parallelize(plan.tasks, len(plan.tasks))
        return iter(rdd.flatMap(lambda task: read_pieces(iter(task), options)).toLocalIterator(prefetchPartitions=True))

    def _fetch_remote(self, spark: Any, plan: Plan, options: ReadOptions) -> dict[int, PieceResult]:
        if not plan.remote:
            return {}
        files = {uri: (file_id, plan.specs[file_id].display) for uri, file_id in plan.remote.items()}
        frame = spark.read.format("binaryFile").load(list(plan.remote)).select("path", "content")
        results = frame.rdd.mapPartitions(lambda rows: read_fetched(rows, files, options)).collect()
        return {r.piece.file_id: r for r in results}

    def _join_whole(self, events: CollectedEvents, reports: list[InputReport], configs: list, result: PieceResult) -> None:
        assert result.events is not None and result.report is not None
        events.merge(result.events)
        reports[result.piece.file_id] = result.report
        configs.extend(result.configs)
        if result.module_file:
            self.executor_modules.add(result.module_file)


def _join_ranges(events: CollectedEvents, report: InputReport, results: list[PieceResult], options: ReadOptions,
                 size: int) -> None:
    """Join one file's ranges as the local runner does; a failed range is read from there on here."""
    joiner = _Joiner(events, report)
    for result in results:
        piece = result.piece
        if result.range is None:
            resume = joiner.state if piece.part else None
            rest = read_range(piece.location, piece.display, piece.file_id, options, piece.start, size, resume)
            joiner.add(piece.part, rest, (), reread=False)
            break
        args = (piece.location, piece.display, piece.file_id, options, piece.start, piece.end, None)
        joiner.add(piece.part, result.range, args)
    joiner.finish()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _dispatch(remote_lines):
    """Evidence lines of Hadoop inputs through the JVM, of the others from this machine."""

    def fetch(path: str, offsets: list[int], known: dict[int, int]):
        return remote_lines(path, offsets, known) if is_uri(path) else local_lines(path, offsets, known)

    return fetch
