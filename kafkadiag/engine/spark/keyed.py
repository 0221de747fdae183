"""What Spark executors run between shuffles: pure functions over pieces and keyed groups.

The Spark runner (:mod:`.runner`) moves data between these by key, and the local engine runs
the fact stages of a large run with them bucket by bucket (:mod:`kafkadiag.engine.buckets`);
nothing here knows Spark, so every step can be run and tested in one process. The keys are the groups of
:mod:`kafkadiag.facts.stages`: topic-partition (the batch reduction), transactional.id (the
coordinator), producer id (spans and everything built on them), topic.

Rows are moved as pandas frames, one per (piece or group, bucket): a bucket is a stable hash of
the key modulo the number of Spark partitions, so all rows of one key meet in one task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from ...facts.batch_stream import PARTIAL_COLUMNS, BatchStream, PartitionStats
from ...facts.coordinator import log_partition_summary
from ...facts.id_shapes import family_and_shape
from ...facts.build import CollectedEvents, _shifted, with_subject_label
from ...facts.stages import PRODUCER_STAGE_TXN_COLUMNS, RunValues, combine_topics, coordinator_facts, producer_facts
from ...gctune import tune_for_batch
from ...readers.base import InputReport
from ...ruleset.representatives import GroupCounts
from ...readers.dumplog_parser import SectionState
from .task import PieceResult

Key = tuple[str, int]


# ------------------------------------------------------------------------------------------
# Pieces: what reading one file or range gave, split into what the driver needs and the rest.

@dataclass
class PieceMeta:
    """The small part of a piece's result: goes to the driver, which plans the joins from it."""

    order: int
    file_id: int
    part: int
    whole: bool
    report: InputReport | None
    configs: list = field(default_factory=list)
    end_state: SectionState | None = None
    shapes: list[str] = field(default_factory=list)
    lines: int = 0
    tp_keys: list[Key] = field(default_factory=list)
    partition_stats: list[PartitionStats] = field(default_factory=list)  # aligned with tp_keys
    log_partitions: dict = field(default_factory=dict)  # ``log_partition_summary`` of its coordinator records
    coordinator_records: int = 0  # none in the whole run: the coordinator stage is skipped
    error: str = ""
    module_file: str = ""


def events_of(result: PieceResult) -> CollectedEvents:
    if result.events is not None:
        return result.events
    return result.range.events if result.range is not None else CollectedEvents()


def piece_meta(order: int, result: PieceResult) -> PieceMeta:
    events = events_of(result)
    stream = events.batches
    records = [f for f in events.txn_records if len(f)]
    meta = PieceMeta(order, result.piece.file_id, result.piece.part, result.piece.whole, result.report,
                     list(result.configs), error=result.error, module_file=result.module_file,
                     tp_keys=list(stream.tp_keys),
                     partition_stats=[stream.partitions[i] for i in range(len(stream.tp_keys))],
                     log_partitions=log_partition_summary(pd.concat(records, ignore_index=True)) if records else {},
                     coordinator_records=sum(len(f) for f in records))
    if result.range is not None:
        meta.report = result.range.report
        meta.end_state = result.range.end_state
        meta.shapes = list(result.range.shapes)
        meta.lines = result.range.report.lines
    return meta


@dataclass(frozen=True)
class PieceJoin:
    """How one piece joins the run, decided by the driver: line shift, renames, global partition codes."""

    line_offset: int
    rename: dict[Key, Key]  # placeholder partition -> the partition the previous range ended in
    codes: list[int]  # the piece's partition codes -> the run's codes (first-seen order)
    shared: frozenset[int] = frozenset()  # run codes of partitions that other pieces hold too


# ------------------------------------------------------------------------------------------
# Buckets

def bucket_of(values: pd.Series, buckets: int) -> np.ndarray:
    """A hash of each key that is the same in every process (Python's own string hash is not)."""
    if buckets <= 1 or len(values) == 0:
        return np.zeros(len(values), dtype=np.int64)
    hashed = pd.util.hash_pandas_object(values.astype(str), index=False).to_numpy()
    return (hashed % np.uint64(buckets)).astype(np.int64)


def by_bucket(bucket: int) -> int:
    """The partition function of every keyed shuffle: the key already is the bucket. One function
    object, so that Spark sees one partitioner and unions of shuffled inputs stay aligned."""
    return bucket


def split(frame: pd.DataFrame, column: str, buckets: int, tag: str) -> Iterator[tuple[int, tuple[str, pd.DataFrame]]]:
    """``(bucket, (tag, rows))`` for each bucket the frame has rows in."""
    if frame is None or len(frame) == 0:
        return
    yield from split_by(frame, frame[column], buckets, tag)


def split_by_family(records: pd.DataFrame, buckets: int, tag: str) -> Iterator[tuple[int, tuple[str, pd.DataFrame]]]:
    """Coordinator records bucketed by their id's family: whole ids, and whole families, meet in one task,
    so the family combine step needs no second pass."""
    if records is None or len(records) == 0:
        return
    ids = records["transactional_id"].astype(str)
    families = {tid: family_and_shape(tid)[0] for tid in ids.unique().tolist()}
    yield from split_by(records, ids.map(families), buckets, tag)


def split_by(frame: pd.DataFrame, keys: pd.Series, buckets: int, tag: str) -> Iterator[tuple[int, tuple[str, pd.DataFrame]]]:
    where = bucket_of(keys, buckets)
    for b in np.unique(where).tolist():
        yield int(b), (tag, frame[where == b].reset_index(drop=True))


def gather(items: Iterable[tuple[int, tuple[str, pd.DataFrame]]]) -> dict[str, pd.DataFrame]:
    """All frames of one task (one bucket), concatenated per tag."""
    parts: dict[str, list[pd.DataFrame]] = {}
    for _bucket, (tag, frame) in items:
        parts.setdefault(tag, []).append(frame)
    return {tag: pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0] for tag, frames in parts.items()}


# ------------------------------------------------------------------------------------------
# Per piece: its events shifted into the run's numbering, keyed for the next stages.

def piece_tables(result: PieceResult, join: PieceJoin) -> dict[str, pd.DataFrame]:
    """Coordinator records, snapshots, .txnindex entries and log events of a piece, in the run's terms."""
    events = events_of(result)
    out = {}
    for name, frames in (("txn_records", events.txn_records), ("snapshots", events.snapshots),
                         ("aborted", events.aborted), ("log_events", events.log_events)):
        frames = [_shifted(f, join.line_offset, join.rename) for f in frames if len(f)]
        if frames:
            out[name] = pd.concat(frames, ignore_index=True)
    return out


def partition_slices(order: int, result: PieceResult, join: PieceJoin) -> Iterator[tuple[int, tuple[int, int, int, BatchStream]]]:
    """``(run partition code, (piece order, renamed first?, line offset, stream of that partition))``
    for each partition of the piece that other pieces hold too (those are merged after a shuffle)."""
    stream = events_of(result).batches
    for local, key in enumerate(stream.tp_keys):
        if join.codes[local] in join.shared:
            real = join.rename.get(key, key)
            yield join.codes[local], (order, 0 if key in join.rename else 1, join.line_offset, stream.only(local, real))


def own_partitions(order: int, result: PieceResult, join: PieceJoin) -> Iterator[dict]:
    """The partitions only this piece holds, finished where the piece is: no shuffle needed."""
    stream = events_of(result).batches
    for local, key in enumerate(stream.tp_keys):
        code = join.codes[local]
        if code not in join.shared:
            piece = stream.only(local, join.rename.get(key, key))
            yield fold_partition(code, [(order, 1, join.line_offset, piece)])


def fold_partition(code: int, slices: Iterable[tuple[int, int, int, BatchStream]]) -> dict:
    """One partition's pieces merged in input order: its partial spans and sequence breaks."""
    joined = BatchStream()
    for _order, _sub, offset, piece in sorted(slices, key=lambda s: (s[0], s[1])):
        joined.merge(piece, offset)
    merged, sequences = joined.finish()
    merged["tp"] = np.full(len(merged), code, dtype=np.int64)
    if len(sequences):
        sequences["tp"] = code
    return {"merged": merged, "sequences": sequences}


# ------------------------------------------------------------------------------------------
# Per group: the fact stages over whole keys.

def coordinator_bucket(tables: dict[str, pd.DataFrame], run: RunValues) -> dict[str, pd.DataFrame]:
    """The coordinator facts of the whole id families of one bucket, family combine included."""
    tune_for_batch()
    records = tables.get("txn_records")
    if records is None or records.empty:
        return {}
    return coordinator_facts(records, run, combine=True)


_EMPTY_MERGED = {c: np.int64 for c in PARTIAL_COLUMNS}


def producer_bucket(tables: dict[str, pd.DataFrame], run: RunValues) -> dict[str, pd.DataFrame]:
    """Every producer-id fact of the producer ids of one bucket (inputs in the order one run has them)."""
    tune_for_batch()
    merged = tables.get("merged")
    if merged is None:
        merged = pd.DataFrame({c: pd.Series(dtype=t) for c, t in _EMPTY_MERGED.items()})
    merged = merged.sort_values(["tp", "producer_id", "ordinal"], kind="stable").reset_index(drop=True)
    sequences = tables.get("sequences", pd.DataFrame())
    if len(sequences):
        sequences = sequences.sort_values(["file_id", "byte", "producer_id"], kind="stable").reset_index(drop=True)
    from ...tables import ABORTED_TXNS, SNAPSHOT_ENTRIES
    from ...facts.registry import COORDINATOR_TXNS

    txns = tables.get("coordinator_txns", pd.DataFrame(columns=list(COORDINATOR_TXNS.columns)))
    aborted = tables.get("aborted", ABORTED_TXNS.empty())
    snapshots = tables.get("snapshots", SNAPSHOT_ENTRIES.empty())
    return producer_facts(merged, sequences, txns, aborted, snapshots, run)


def log_bucket(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    logs = tables.get("log_events")
    return {"log_events": with_subject_label(logs)} if logs is not None and len(logs) else {}


# ------------------------------------------------------------------------------------------
# Rules: only the rows some rule matches leave the executors.

def matched_rows(tables: dict[str, pd.DataFrame], rules: list, config: dict) -> tuple[dict[str, pd.DataFrame], GroupCounts]:
    """Per table, the rows some rule's finding can show; and the size of every grouped rule's groups.

    A row-by-row rule keeps every row it matches. A grouped rule keeps only each group's
    representative rows (:mod:`kafkadiag.ruleset.representatives`) and counts the rest. The
    driver runs the rules again over these rows alone, with the counts summed over the tasks:
    the findings are those one run over everything gives.
    """
    from ...facts.registry import FACT_TABLES
    from ...ruleset.conditions import condition_mask
    from ...ruleset.config import ConfigView
    from ...ruleset.evaluate import finding_order, list_fields_of
    from ...ruleset.representatives import representative_rows

    view = ConfigView(config, None)
    out = {}
    counts: GroupCounts = {}
    for name, frame in tables.items():
        wanted = [r for r in rules if r.table == name]
        if frame is None or len(frame) == 0 or not wanted:
            continue
        frame = frame.reset_index(drop=True)
        mask = np.zeros(len(frame), dtype=bool)
        for rule in wanted:
            hits = condition_mask(rule.when, frame, view)
            if not rule.group_by:
                mask |= hits
                continue
            spec = rule.table_spec if rule.table_spec is not None else FACT_TABLES[rule.table]
            rows = np.flatnonzero(hits)
            if rows.size == 0:  # most rules match nothing in most tasks: no group to order or count
                add_group_counts(counts, {rule.id: {}})
                continue
            order = rows[finding_order(spec, frame.iloc[rows])]
            keep, sizes = representative_rows(rule, spec, frame, view, list_fields_of(rule), order, MAX_EVIDENCE)
            mask[keep] = True
            add_group_counts(counts, {rule.id: sizes})
        if mask.any():
            out[name] = frame[mask].reset_index(drop=True)
    return out, counts


#: Evidence lines a finding cites (``evaluate``'s default): the representatives keep as many.
MAX_EVIDENCE = 6


def add_group_counts(total: GroupCounts, part: GroupCounts) -> None:
    """Sum one task's group sizes into ``total``."""
    for rule_id, sizes in part.items():
        mine = total.setdefault(rule_id, {})
        for key, n in sizes.items():
            mine[key] = mine.get(key, 0) + n


def table_counts(tables: dict[str, pd.DataFrame]) -> dict[str, int]:
    """The run summary's counts over one task's tables (summed by the driver)."""
    spans = tables.get("spans")
    out: dict[str, int] = {}
    if spans is not None and len(spans):
        states = spans["state"].value_counts()
        out.update(transactions=len(spans), committed=int(states.get("committed", 0)),
                   aborted=int(states.get("aborted", 0)), open=int(states.get("open", 0)),
                   producer_ids=int(spans["producer_id"].nunique()))
    ids = tables.get("transactional_ids")
    if ids is not None:
        out["transactional_ids"] = len(ids)
    records = tables.get("txn_records")
    if records is not None:
        out["coordinator_records"] = len(records)
    return out


# ------------------------------------------------------------------------------------------
# One pass per piece: everything the keyed stages need from it, read from its result once.

#: What :func:`prepare_pieces` emits, as ``(kind, key, payload)``.
SLICE = "slice"  # key: run partition code; payload: ``partition_slices`` item (merged after a shuffle)
PRODUCER = "producer"  # key: producer bucket; payload: ``(tag, rows)`` for the producer stage
FAMILY = "family"  # key: family bucket; payload: ``(tag, coordinator records)``
DONE = "done"  # key: None; payload: a finished ``(matched rows, counts, topic partials, group sizes)``


def prepare_pieces(results: Iterable[tuple[int, PieceResult]], joins: dict[int, PieceJoin], buckets: int,
                   rules: list, config: dict) -> Iterator[tuple[str, object, object]]:
    """Every piece of one task prepared (:func:`prepare_piece`), their log events and coordinator
    records matched together at the end: the rules' conditions cost milliseconds per call, so one
    call per task, not per log file."""
    tune_for_batch()  # a new Python worker may take the stages after the read
    matched_later: dict[str, list[pd.DataFrame]] = {}
    for order, result in results:
        yield from prepare_piece(order, result, joins[order], buckets, matched_later)
    if matched_later:
        tables = {name: pd.concat(frames, ignore_index=True) for name, frames in matched_later.items()}
        logs = log_bucket(tables)
        if "txn_records" in tables:
            logs["txn_records"] = tables["txn_records"]
        yield DONE, None, finished(logs, rules, config)


def prepare_piece(order: int, result: PieceResult, join: PieceJoin, buckets: int,
                  matched_later: dict[str, list[pd.DataFrame]]) -> list[tuple[str, object, object]]:
    """A piece's partitions folded (those only it holds) or sliced (shared), its rows keyed by
    producer id and id family: the piece is read once. Its log events and coordinator records are
    added to ``matched_later``, for the rules' conditions."""
    out: list[tuple[str, object, object]] = []
    for code, item in partition_slices(order, result, join):
        out.append((SLICE, code, item))
    for fold in own_partitions(order, result, join):
        out.extend((PRODUCER, b, item) for b, item in fold_items(fold, buckets))
    tables = piece_tables(result, join)
    out.extend((FAMILY, b, item) for b, item in split_by_family(tables.get("txn_records"), buckets, "txn_records"))
    for tag in ("aborted", "snapshots"):
        out.extend((PRODUCER, b, item) for b, item in split(tables.get(tag), "producer_id", buckets, tag))
    for name in ("log_events", "txn_records"):
        if name in tables:
            matched_later.setdefault(name, []).append(tables[name])
    return out


def producer_side(prepared: Iterable[tuple[str, object, object]]) -> Iterator[tuple[int, tuple[str, object]]]:
    """Prepared items of a run with no shared partition and no coordinator records, all bound for
    the producer stage: ``(bucket, (tag, rows))``, and each task's finished log rows as
    ``(0, (DONE, finished))``, which the producer stage passes through."""
    for kind, key, payload in prepared:
        if kind == PRODUCER:
            yield key, payload  # type: ignore[misc]
        elif kind == DONE:
            yield 0, (DONE, payload)
        else:  # the driver chose this path for a run without slices or families
            raise ValueError(f"unexpected {kind} item on the producer-only path")


def producer_stage(items: Iterable[tuple[int, tuple[str, object]]], run: RunValues, rules: list, config: dict) -> list[tuple]:
    """One producer bucket's facts, finished, with the log rows other tasks finished passed through."""
    done: list[tuple] = []
    rows: list[tuple[int, tuple[str, pd.DataFrame]]] = []
    for bucket, (tag, payload) in items:
        if tag == DONE:
            done.append(payload)  # type: ignore[arg-type]
        else:
            rows.append((bucket, (tag, payload)))  # type: ignore[arg-type]
    return [finished(producer_bucket(gather(rows), run), rules, config), *done]


def fold_items(fold: dict, buckets: int) -> list[tuple[int, tuple[str, pd.DataFrame]]]:
    """A folded partition's rows for the producer stage, by producer bucket."""
    return [*split(fold["merged"], "producer_id", buckets, "merged"),
            *split(fold["sequences"], "producer_id", buckets, "sequences")]


def finished(tables: dict[str, pd.DataFrame], rules: list, config: dict) -> tuple:
    """What one group's fact tables send to the driver: matched rows, counts, topic partials."""
    from ...facts.stages import topic_partials

    rows, group_counts = matched_rows(tables, rules, config)
    return (rows, table_counts(tables), topic_partials(tables["spans"]) if "spans" in tables else None, group_counts)


def already_finished(rows: dict[str, pd.DataFrame], group_counts: GroupCounts) -> tuple:
    """As ``finished`` gives it, for rows already reduced to what findings show (their sizes counted)."""
    return (rows, {}, None, group_counts)


def gather_finished(done: Iterable[tuple], rules: list, config: dict) -> tuple[dict[str, pd.DataFrame], dict[str, int], GroupCounts]:
    """What every group's stage finished, joined where the rules run: matched rows per table,
    summed counts and group sizes, and the topic stage's combine step (one row per topic and bucket came back)."""
    matched: dict[str, list[pd.DataFrame]] = {}
    counts: dict[str, int] = {}
    group_counts: GroupCounts = {}
    partials = []

    def add(rows: dict[str, pd.DataFrame], sizes: GroupCounts) -> None:
        for name, frame in rows.items():
            matched.setdefault(name, []).append(frame)
        add_group_counts(group_counts, sizes)

    for rows, part_counts, topic_part, sizes in done:
        add(rows, sizes)
        for key, n in part_counts.items():
            counts[key] = counts.get(key, 0) + n
        if topic_part is not None:
            partials.append(topic_part)
    add(*matched_rows(combine_topics(partials), rules, config))
    return {name: pd.concat(frames, ignore_index=True) for name, frames in matched.items()}, counts, group_counts


def run_summary(counts: Mapping[str, int], batches: int, partitions: int) -> dict[str, object]:
    """The run's summary (as ``pipeline.summarize`` gives it) from the stages' summed counts."""
    return {
        "batches": int(batches), "partitions": int(partitions),
        **{key: int(counts.get(key, 0)) for key in ("transactions", "committed", "aborted", "open", "producer_ids",
                                                    "transactional_ids", "coordinator_records")},
    }


def coordinator_items(facts: dict[str, pd.DataFrame], buckets: int) -> list[tuple[int, tuple[str, pd.DataFrame]]]:
    """The coordinator's transactions of a family bucket, keyed for the producer stage (the columns it reads)."""
    txns = facts.get("coordinator_txns")
    if txns is not None and len(txns):
        txns = txns[list(PRODUCER_STAGE_TXN_COLUMNS)]
    return list(split(txns, "producer_id", buckets, "coordinator_txns"))


# ------------------------------------------------------------------------------------------
# Small inputs: every keyed stage in one task (one bucket), the same functions in the same order.

def stages_in_one_task(results: Iterable[tuple[int, PieceResult]], joins: dict[int, PieceJoin], run: RunValues,
                       rules: list, config: dict) -> list[tuple]:
    """What the shuffled stages give, for an input small enough that one task does it all.

    Starting a shuffle costs a fixed fraction of a second; below a few megabytes that is most of
    the run. The stages are the keyed functions above, with one bucket holding every key.
    """
    slices: dict[int, list] = {}
    producer_items: list = []
    family_items: list = []
    done: list[tuple] = []
    for kind, key, payload in prepare_pieces(sorted(results, key=lambda r: r[0]), joins, 1, rules, config):
        if kind == SLICE:
            slices.setdefault(key, []).append(payload)  # type: ignore[arg-type]
        elif kind == PRODUCER:
            producer_items.append((key, payload))
        elif kind == FAMILY:
            family_items.append((key, payload))
        else:
            done.append(payload)
    for code, items in slices.items():
        producer_items += fold_items(fold_partition(code, items), 1)
    coord = coordinator_bucket(gather(family_items), run) if family_items else {}
    producer_items += coordinator_items(coord, 1)
    producers = producer_bucket(gather(producer_items), run)
    return [finished(producers, rules, config), finished(coord, rules, config), *done]
