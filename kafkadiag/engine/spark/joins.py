"""The driver's join plan: how each piece's result fits into one run, from the pieces' metadata.

A range of a dump that starts inside a section reads its first lines under a placeholder
partition; the range before it says which partition that was. A range that starts outside a data
section (rare: the cut fell in a ``__transaction_state`` or snapshot section) is read again, by
the driver, from the state the previous range ended in; so is the rest of a file whose range
reader failed. Line numbers of a range count from the start of its file. Partitions get the run's
codes in the order a single sequential read would first meet them. These are the decisions the
local runner's range joiner makes, taken here on metadata alone so the data can stay where it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from ...facts.batch_stream import PartitionStats, join_partition_stats
from ...readers.base import InputReport, merge_report
from ...readers.dumplog_parser import SectionState
from ...readers.eras import EraTracker
from ..ranges import RangeResult, placeholder
from .keyed import Key, PieceJoin, PieceMeta, piece_meta
from .task import Piece, PieceResult

#: ``(piece, first byte, resume state) -> RangeResult``: a range read again by the driver.
Reread = Callable[[Piece, int, SectionState | None], RangeResult]


@dataclass
class JoinPlan:
    joins: dict[int, PieceJoin] = field(default_factory=dict)  # piece order -> how it joins
    reports: dict[int, InputReport] = field(default_factory=dict)  # file_id -> its report
    configs: list = field(default_factory=list)
    tp_keys: list[Key] = field(default_factory=list)  # run partition code -> (topic, partition)
    replaced: set[int] = field(default_factory=set)  # piece orders whose executor result is not used
    extra: list[tuple[int, PieceResult]] = field(default_factory=list)  # results the driver read instead
    module_files: set[str] = field(default_factory=set)
    stats: dict[int, PartitionStats] = field(default_factory=dict)  # run partition code -> joined stats
    log_partitions: list[dict] = field(default_factory=list)  # summaries of every piece's coordinator records
    coordinator_records: int = 0

    def add_piece(self, meta: PieceMeta, join: PieceJoin) -> None:
        """Record a piece's join and fold its small stats into the run's, in input order."""
        self.joins[meta.order] = join
        for code, (topic, partition), theirs in zip(join.codes, (join.rename.get(k, k) for k in meta.tp_keys),
                                                    meta.partition_stats):
            mine = self.stats.setdefault(code, PartitionStats(topic, partition))
            join_partition_stats(mine, theirs)
        if meta.log_partitions:
            self.log_partitions.append(meta.log_partitions)
        self.coordinator_records += meta.coordinator_records
        if meta.module_file:
            self.module_files.add(meta.module_file)


def plan_joins(metas: list[PieceMeta], pieces: dict[int, Piece], sizes: dict[int, int], reread: Reread,
               displays: dict[int, str]) -> JoinPlan:
    """Walk the pieces in input order and decide every join (``metas`` sorted by order)."""
    plan = JoinPlan()
    codes: dict[Key, int] = {}
    by_file: dict[int, list[PieceMeta]] = {}
    for meta in metas:
        by_file.setdefault(meta.file_id, []).append(meta)
    for file_id, group in by_file.items():
        if group[0].whole:
            meta = group[0]
            plan.add_piece(meta, PieceJoin(0, {}, _codes(meta.tp_keys, {}, codes, plan.tp_keys)))
            plan.reports[file_id] = meta.report or InputReport(displays[file_id])
            plan.configs.extend(meta.configs)
            continue
        _plan_ranges(plan, group, pieces, sizes, reread, displays[file_id], codes)
    holders: dict[int, int] = {}
    for join in plan.joins.values():
        for code in set(join.codes):
            holders[code] = holders.get(code, 0) + 1
    shared = frozenset(code for code, count in holders.items() if count > 1)
    plan.joins = {order: replace(join, shared=shared & frozenset(join.codes)) for order, join in plan.joins.items()}
    return plan


def _plan_ranges(plan: JoinPlan, group: list[PieceMeta], pieces: dict[int, Piece], sizes: dict[int, int],
                 reread: Reread, display: str, codes: dict[Key, int]) -> None:
    report = InputReport(display)
    eras = EraTracker()
    lines = 0
    state: SectionState | None = None
    stop = False
    for meta in group:
        piece = pieces[meta.order]
        if stop:
            plan.replaced.add(meta.order)
            continue
        k = piece.part
        rename: dict[Key, Key] = {}
        if meta.error:  # the range reader failed: the driver reads from here to the end of the file
            meta = _replace(plan, meta, piece, reread(Piece(piece.file_id, piece.display, piece.location, piece.start,
                                                            sizes[piece.file_id], k), piece.start, state if k else None))
            stop = True
        elif k and state is not None and (state.section != "log" or state.section_txn is not False):
            meta = _replace(plan, meta, piece, reread(piece, piece.start, state))
        elif k and state is not None:
            here = placeholder(k)
            rename = {(here.topic, here.partition): (state.topic, state.partition)}
        plan.add_piece(meta, PieceJoin(lines, rename, _codes(meta.tp_keys, rename, codes, plan.tp_keys)))
        lines += meta.lines
        if meta.report is not None:
            merge_report(report, meta.report)
        for shape in meta.shapes:
            eras.add(shape)
        end = meta.end_state
        if end is not None and k and state is not None and end.topic == placeholder(k).topic:
            end = SectionState(state.topic, state.partition, state.segment, end.section, end.section_txn)
        state = end
    report.lines = lines
    report.era = eras.era()
    plan.reports[group[0].file_id] = report


def _replace(plan: JoinPlan, meta: PieceMeta, piece: Piece, result: RangeResult) -> PieceMeta:
    plan.replaced.add(meta.order)
    again = PieceResult(piece, range=result)
    plan.extra.append((meta.order, again))
    return piece_meta(meta.order, again)


def _codes(keys: list[Key], rename: dict[Key, Key], codes: dict[Key, int], order: list[Key]) -> list[int]:
    """The run's code of each of a piece's partitions, numbering new ones as a sequential read would."""
    out = []
    for key in keys:
        real = rename.get(key, key)
        if real not in codes:
            codes[real] = len(order)
            order.append(real)
        out.append(codes[real])
    return out
