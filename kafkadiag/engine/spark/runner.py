"""The Spark runner: every stage of the pipeline as Spark tasks, keyed by the groups facts live in.

1. **Read**: each input file, or byte range of a large plain dump, is one task running the
   project's reader and batch reduction (:mod:`.task`); results stay on the executors
   (persisted), only their metadata goes to the driver, which plans the joins (:mod:`.joins`).
2. **Per topic-partition**: each piece's reduction is cut per partition and the pieces of one
   partition are merged in input order (``BatchStream.merge``, as the local runner joins ranges).
3. **Run-wide values**: partition stats and the ``__transaction_state`` partitions' ends are
   small; the driver gathers them and broadcasts :class:`RunValues`.
4. **Per transactional.id family** (the coordinator's history, family sizes included), then **per
   producer id** (spans, epochs, sequences, cross-checks) with the coordinator's transactions
   joined by producer id; **per topic** as partials per producer bucket and a combine step on the
   driver (one row per topic and bucket): the stages of :mod:`kafkadiag.facts.stages`.
5. **Rules**: executors keep the rows some rule's finding can show (for a grouped rule, a few rows
   per group and the group's size); the driver runs the rules over those rows, correlates the
   findings and reads their evidence lines back by (file, byte).

Only findings, the rows they cite, reports and the small run-wide values reach the driver.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Callable, Mapping

from ...config import EffectiveConfig
from ...facts.build import CollectedEvents
from ...facts.coordinator import join_log_partitions
from ...facts.stages import RunValues, run_values_from
from ...readers.base import InputReport, ReadOptions
from ..correlate import correlate
from ..evidence import fill_evidence, local_lines
from ..local import reduction_options
from ..log_filter import log_conditions
from ..pipeline import AnalysisResult, Collected, apply_rules, v2_possible
from ..ranges import read_range
from . import keyed
from .hadoop import HadoopFile, hadoop_lines, list_uri, spark_skips
from .joins import plan_joins
from .plan import Plan, expand, is_uri, make_plan
from .task_order import balanced_order
from .session import SparkFailed, SparkUnavailable, first_error, log_path, start_session
from .task import Piece, PieceResult, read_fetched, read_piece, read_whole

#: Inputs smaller than this run the keyed stages in one task, without shuffles: starting a
#: shuffle costs a fixed fraction of a second, most of a small run. ``--spark-conf`` can move it
#: (0: always shuffle, as a large input does).
ONE_TASK_CONF = "spark.kafkadiag.oneTaskBytes"
ONE_TASK_BYTES = 64 << 20


class SparkRunner:
    """Runs the pipeline on ``master`` (None: spark-submit's, else local[*]) with ``--spark-conf`` settings."""

    name = "spark"

    def __init__(self, master: str | None = "local[*]", conf: Mapping[str, str] | None = None) -> None:
        self.master = master
        self.conf = dict(conf or {})
        self.details: dict[str, object] = {}  # what the report says about the run (master, tasks, package)

    def analyze(self, paths: list[str], options: ReadOptions, rules: list, config: EffectiveConfig,
                now_ms: int | None, evaluate: Callable) -> AnalysisResult:
        spark = start_session(self.master, self.conf)
        try:
            return _Run(spark, options, rules, config, now_ms, evaluate, self.details, self.conf).run(paths)
        except (SparkUnavailable, SparkFailed):
            raise
        except Exception as exc:
            if type(exc).__module__.startswith(("py4j", "pyspark")):
                where = f" (JVM log: {log_path()})" if log_path() else ""
                raise SparkFailed(f"the Spark job failed on {spark.sparkContext.master}: {first_error(exc)}{where}") from None
            raise


class _Run:
    """One analysis on one Spark session."""

    def __init__(self, spark: Any, options: ReadOptions, rules: list, config: EffectiveConfig, now_ms: int | None,
                 evaluate: Callable, details: dict, conf: Mapping[str, str]) -> None:
        from pyspark import StorageLevel

        self.spark, self.sc = spark, spark.sparkContext
        # Log events are reduced in the read tasks already, to the rows a rule may match.
        self.options = replace(reduction_options(options), log_conditions=log_conditions(rules))
        self.rules, self.config, self.now_ms, self.evaluate = rules, config, now_ms, evaluate
        self.details = details
        self.conf = conf  # this run's --spark-conf: its spark.kafkadiag.* keys apply even to a running session
        self.buckets = max(1, self.sc.defaultParallelism)
        self.level = StorageLevel.MEMORY_AND_DISK
        self.persisted: list = []

    def keep(self, rdd):
        rdd = rdd.persist(self.level)
        self.persisted.append(rdd)
        return rdd

    # ------------------------------------------------------------------------------------------
    def run(self, paths: list[str]) -> AnalysisResult:
        from .ship import ship_package

        ship_package(self.spark, self.sc.master, dict(self.conf))
        try:
            return self._run(paths)
        finally:
            for rdd in self.persisted:
                rdd.unpersist()

    def _run(self, paths: list[str]) -> AnalysisResult:
        uri_sizes: dict[str, int] = {}
        specs = expand(paths, lambda uri: list_uri(self.spark, uri, uri_sizes))
        sizes = {i: (uri_sizes.get(s.path, 0) if is_uri(s.path) else _size(s.path)) for i, s in enumerate(specs) if not s.error}
        plan = make_plan(specs, sizes, self.buckets, spark_skips)
        pieces, results = self._read(plan)
        metas = sorted(results.map(lambda r: keyed.piece_meta(*r)).collect(), key=lambda m: m.order)
        joins = plan_joins(metas, pieces, sizes, self._reread, {i: s.display for i, s in enumerate(specs)})
        reports = [joins.reports.get(i) or InputReport(path=s.display, error=s.error) for i, s in enumerate(specs)]
        for cfg in joins.configs:
            self.config.overlay_config(cfg)
        if joins.replaced:
            replaced = joins.replaced
            results = results.filter(lambda r: r[0] not in replaced)
        if joins.extra:
            results = results.union(self.sc.parallelize(joins.extra, len(joins.extra)))
        tables = self._facts(results, joins, reports, sum(sizes.values()))
        collected = Collected(CollectedEvents(), reports, plan.files, joins.configs)
        findings = apply_rules(tables["matched"], self.rules, collected, self.config, self.evaluate,
                               group_counts=tables["group_counts"])
        findings = correlate(findings, {r.id for r in self.rules if r.table == "log_events"})
        lines = hadoop_lines(self.spark) if plan.remote or plan.remote_on_driver else None
        fill_evidence(findings, _dispatch(lines) if lines else None)
        self.details.update({
            "master": self.sc.master,
            "tasks": len(plan.tasks) + (1 if plan.remote else 0),
            # Where executors imported kafkadiag from: the archive this run shipped, or their own install.
            "executors_ran": sorted({"shipped package" if "kafkadiag-package.zip" in m else "installed package"
                                     for m in joins.module_files}),
        })
        return AnalysisResult(findings, reports, plan.files, tables["matched"], self.config, self.now_ms, tables["stats"])

    # ------------------------------------------------------------------------------------------
    def _read(self, plan: Plan):
        """All pieces in input order as (order, piece); the RDD of (order, PieceResult), persisted."""
        options = self.options
        ordered: list[tuple[int, Piece]] = []
        local_tasks: list[list[tuple[int, Piece]]] = []
        by_piece = {}
        for task in plan.tasks:
            for piece in task:
                by_piece[(piece.file_id, piece.part)] = piece
        remote: dict[str, tuple[int, str, int]] = {}
        on_driver: list[tuple[int, PieceResult]] = []
        for file_id, spec in enumerate(plan.specs):
            if spec.error:
                continue
            if file_id in plan.pieces:
                for piece in plan.pieces[file_id]:
                    ordered.append((len(ordered), piece))
            elif spec.path in plan.remote:
                order = len(ordered)
                ordered.append((order, Piece(file_id, spec.display, spec.path)))
                remote[spec.path] = (file_id, spec.display, order)
            else:
                order = len(ordered)
                piece = Piece(file_id, spec.display, spec.path)
                ordered.append((order, piece))
                if file_id in plan.remote_on_driver:
                    result = read_whole(piece, options, lambda uri: HadoopFile(self.spark, uri))
                    assert result.report is not None
                    result.report.notes[plan.remote_on_driver[file_id]] += 1
                else:
                    result = read_whole(piece, options)
                on_driver.append((order, result))
        order_of = {(p.file_id, p.part): o for o, p in ordered}
        for i in balanced_order(plan.weights, self.buckets):  # results carry their order: any task order joins the same
            local_tasks.append([(order_of[(p.file_id, p.part)], p) for p in plan.tasks[i]])
        parts = []
        if local_tasks:
            rdd = self.sc.parallelize(local_tasks, len(local_tasks))
            parts.append(rdd.flatMap(lambda task: [(o, read_piece(p, options)) for o, p in task]))
        if remote:
            files = {uri: (file_id, display) for uri, (file_id, display, _o) in remote.items()}
            orders = {uri: o for uri, (_f, _d, o) in remote.items()}
            frame = self.spark.read.format("binaryFile").load(list(remote)).select("path", "content")
            parts.append(frame.rdd.mapPartitions(
                lambda rows: ((orders[r.piece.location], r) for r in read_fetched(rows, files, options))))
        if on_driver:
            parts.append(self.sc.parallelize(on_driver, len(on_driver)))
        results = self.sc.union(parts) if len(parts) > 1 else (parts[0] if parts else self.sc.parallelize([], 1))
        return dict(ordered), self.keep(results)

    def _reread(self, piece: Piece, start: int, state) -> Any:
        """A range read again on the driver (from the state the previous range ended in)."""
        return read_range(piece.location, piece.display, piece.file_id, self.options, start, piece.end, state)

    # ------------------------------------------------------------------------------------------
    def _facts(self, results, joins, reports: list[InputReport], input_bytes: int) -> dict:
        """Every fact stage, keyed, and the rule filter: one Spark job; matched rows and counts come back."""
        sc, n = self.sc, self.buckets
        by_order = sc.broadcast(joins.joins)
        run_b = sc.broadcast(self._run_values(joins, reports))
        rules, config = self.rules, self.config.as_mapping()
        if input_bytes < int(self.conf.get(ONE_TASK_CONF) or self.spark.conf.get(ONE_TASK_CONF, str(ONE_TASK_BYTES))):
            done = results.coalesce(1).mapPartitions(
                lambda it: keyed.stages_in_one_task(it, by_order.value, run_b.value, rules, config)).collect()
            self.details["keyed_stages"] = "one task"
            return self._gather(done, joins, rules, config)
        self.details["keyed_stages"] = f"{n} buckets"
        if not joins.coordinator_records and not any(j.shared for j in joins.joins.values()):
            # Every prepared row goes to the producer stage: one shuffle straight from the tasks
            # that prepare them, with nothing kept in between (a kept stage is read back by a
            # second Python worker per task, once per kind of row).
            finished = (results.coalesce(n)
                        .mapPartitions(lambda it: keyed.producer_side(keyed.prepare_pieces(it, by_order.value, n, rules, config)))
                        .partitionBy(n, keyed.by_bucket)
                        .mapPartitions(lambda it: keyed.producer_stage(it, run_b.value, rules, config)))
            return self._gather(finished.collect(), joins, rules, config)
        # Each piece's result is read once, by one task per core (a task costs tens of
        # milliseconds): folded or sliced per partition, keyed by producer and id family, its log
        # events matched. What the next stages take from it is kept (it is small).
        prepared = self.keep(results.coalesce(n).mapPartitions(
            lambda it: keyed.prepare_pieces(it, by_order.value, n, rules, config)))
        of_kind = lambda kind: prepared.filter(lambda x: x[0] == kind).map(lambda x: (x[1], x[2]))  # noqa: E731
        # Each input of a keyed stage is shuffled by itself with one partitioner: their union is
        # then bucket-aligned on the JVM side, and a task's Python runs in one worker (a Python
        # step over a union of Python steps would start a second worker and pickle twice).
        bucketed = lambda rdd: rdd.partitionBy(n, keyed.by_bucket)  # noqa: E731
        producer_inputs = [bucketed(of_kind(keyed.PRODUCER))]
        groups = []
        if joins.coordinator_records:
            coord = self.keep(bucketed(of_kind(keyed.FAMILY))
                              .mapPartitions(lambda it: [keyed.coordinator_bucket(keyed.gather(it), run_b.value)]))
            producer_inputs.append(bucketed(coord.flatMap(lambda d: keyed.coordinator_items(d, n))))
            groups.append(coord)
        if any(j.shared for j in joins.joins.values()):
            # Partitions held by several pieces meet by partition and are merged in input order.
            producer_inputs.append(bucketed(
                of_kind(keyed.SLICE).groupByKey(n)
                .flatMap(lambda kv: keyed.fold_items(keyed.fold_partition(kv[0], kv[1]), n))))
        producers = (sc.union(producer_inputs)
                     .mapPartitions(lambda it: [keyed.producer_bucket(keyed.gather(it), run_b.value)]))
        finished = sc.union([*(g.map(lambda d: keyed.finished(d, rules, config)) for g in [producers, *groups]),
                             prepared.filter(lambda x: x[0] == keyed.DONE).map(lambda x: x[2])])
        return self._gather(finished.collect(), joins, rules, config)

    def _gather(self, finished: list, joins, rules: list, config: dict) -> dict:
        """Matched rows per table, summed counts, and the topic stage's combine step, on the driver."""
        tables, counts, group_counts = keyed.gather_finished(finished, rules, config)
        summary = keyed.run_summary(counts, sum(s.batches for s in joins.stats.values()), len(joins.stats))
        return {"matched": tables, "stats": summary, "group_counts": group_counts}

    def _run_values(self, joins, reports: list[InputReport]) -> RunValues:
        """The run-wide values, from the pieces' metadata alone (computed before any fact stage)."""
        config = self.config
        return run_values_from(joins.tp_keys, joins.stats, join_log_partitions(joins.log_partitions, self.now_ms),
                               config.as_mapping(), {k: v.is_default for k, v in config.values.items()},
                               v2_possible(reports), self.now_ms)


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
