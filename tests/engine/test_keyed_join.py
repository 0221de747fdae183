"""The distributed runner's join, without Spark: pieces read apart (files cut into byte ranges),
planned from their metadata alone, cut per partition and merged per partition, give exactly the
partial spans, sequence breaks and partition stats of one sequential read."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kafkadiag.engine.local import collect, reduction_options
from kafkadiag.engine.ranges import cut_points
from kafkadiag.engine.spark import keyed
from kafkadiag.engine.spark.joins import plan_joins
from kafkadiag.engine.spark.task import Piece, read_piece
from kafkadiag.readers.base import ReadOptions

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402
from kafkasim import generate_bulk  # noqa: E402


def _pieces(paths: list[Path], parts: int) -> list[Piece]:
    """The first file cut into ``parts`` ranges, the others whole (as the runners cut only large dumps)."""
    pieces = []
    for file_id, path in enumerate(paths):
        size = path.stat().st_size
        cuts = cut_points(str(path), size, parts) if file_id == 0 else [0, size]
        if len(cuts) > 2:
            pieces += [Piece(file_id, str(path), str(path), a, b, k) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
        else:
            pieces.append(Piece(file_id, str(path), str(path)))
    return pieces


def _distributed(paths: list[Path], parts: int):
    options = reduction_options(ReadOptions())
    pieces = _pieces(paths, parts)
    results = [(order, read_piece(p, options)) for order, p in enumerate(pieces)]
    metas = [keyed.piece_meta(o, r) for o, r in results]
    plan = plan_joins(metas, dict(enumerate(pieces)), {i: p.stat().st_size for i, p in enumerate(paths)},
                      lambda piece, start, state: pytest.fail("no range here needs reading again"),
                      {i: str(p) for i, p in enumerate(paths)})
    slices: dict[int, list] = {}
    folds = []
    for order, result in results:
        for code, item in keyed.partition_slices(order, result, plan.joins[order]):
            slices.setdefault(code, []).append(item)
        folds += keyed.own_partitions(order, result, plan.joins[order])
    assert slices  # the cut dump's partitions are held by several pieces
    folds += [keyed.fold_partition(code, items) for code, items in slices.items()]
    return plan, folds, len(pieces)


def _by_key(frame: pd.DataFrame, keys: list) -> pd.DataFrame:
    frame = frame.copy()
    frame["tp"] = [keys[int(t)] for t in frame["tp"]]
    return frame.sort_values(list(frame.columns), key=lambda c: c.astype(str)).reset_index(drop=True)


@pytest.mark.parametrize("era,seed", [("3.3", 1), ("2.4", 2), ("4.1", 3)])
def test_per_partition_join_equals_one_read(tmp_path: Path, era: str, seed: int) -> None:
    bulk = tmp_path / "bulk.txt"
    generate_bulk(bulk, 3 << 20, era=era, seed=seed)
    case = tmp_path / "case"
    simulate.generate("mixed", era, case, seed=seed)
    paths = [bulk, *sorted(p for p in case.iterdir() if p.name != "expected.json" and "stderr" not in p.name)]
    events, _stream = collect([str(p) for p in paths], ReadOptions(), parallel=False)
    merged, sequences = events.batches.finish()
    plan, folds, pieces = _distributed(paths, parts=5)
    assert pieces >= len(paths) + 4  # the bulk dump really was cut
    assert plan.tp_keys == events.batches.tp_keys  # partitions numbered as one read numbers them
    mine = pd.concat([f["merged"] for f in folds], ignore_index=True)
    pd.testing.assert_frame_equal(_by_key(mine.drop(columns="chunk"), plan.tp_keys),
                                  _by_key(merged.drop(columns="chunk"), events.batches.tp_keys), check_dtype=False)
    seqs = [f["sequences"] for f in folds if len(f["sequences"])]
    if len(sequences):
        pd.testing.assert_frame_equal(_by_key(pd.concat(seqs, ignore_index=True), plan.tp_keys),
                                      _by_key(sequences, events.batches.tp_keys), check_dtype=False)
    else:
        assert not seqs
    for code, stats in plan.stats.items():
        assert stats == events.batches.partitions[code]
    assert sum(s.batches for s in plan.stats.values()) == events.batches.batches
    assert np.all(mine["first_offset"].notna())


def test_producer_only_path_equals_one_task(tmp_path: Path) -> None:
    """A run with no shared partition and no coordinator records goes from the prepared pieces
    straight to the producer stage (one shuffle); per bucket it gives what one task gives."""
    from kafkadiag.config import EffectiveConfig
    from kafkadiag.engine.log_filter import log_conditions
    from kafkadiag.engine.pipeline import v2_possible
    from kafkadiag.facts.coordinator import join_log_partitions
    from kafkadiag.facts.stages import run_values_from
    from kafkadiag.ruleset import load_rules

    bulk = tmp_path / "bulk.txt"
    generate_bulk(bulk, 2 << 20, era="3.3", seed=4)
    case = tmp_path / "case"
    simulate.generate("mixed", "3.3", case, seed=4)
    dumps = sorted(p for p in case.iterdir() if p.name.endswith(".log.txt") and not p.name.startswith("__"))
    paths = [bulk, *dumps, ROOT / "fixtures" / "logs" / "java_spring_boot.log", ROOT / "fixtures" / "logs" / "kafkajs.log"]
    rules = load_rules()
    config = EffectiveConfig.defaults()
    options = replace(reduction_options(ReadOptions()), log_conditions=log_conditions(rules))
    pieces = _pieces(paths, parts=1)
    results = [(order, read_piece(p, options)) for order, p in enumerate(pieces)]
    metas = [keyed.piece_meta(o, r) for o, r in results]
    plan = plan_joins(metas, dict(enumerate(pieces)), {i: p.stat().st_size for i, p in enumerate(paths)},
                      lambda piece, start, state: pytest.fail("no range here needs reading again"),
                      {i: str(p) for i, p in enumerate(paths)})
    assert not plan.coordinator_records and not any(j.shared for j in plan.joins.values())
    run = run_values_from(plan.tp_keys, plan.stats, join_log_partitions(plan.log_partitions), config.as_mapping(),
                          {k: v.is_default for k, v in config.values.items()}, v2_possible(plan.reports.values()), None)
    mapping = config.as_mapping()
    buckets = 3
    items = [item for half in (results[::2], results[1::2])  # two preparing tasks
             for item in keyed.producer_side(keyed.prepare_pieces(half, plan.joins, buckets, rules, mapping))]
    finished = [done for b in range(buckets)
                for done in keyed.producer_stage([i for i in items if i[0] == b], run, rules, mapping)]
    one = keyed.stages_in_one_task(results, plan.joins, run, rules, mapping)
    shuffled, counts, sizes = keyed.gather_finished(finished, rules, mapping)
    alone, counts_alone, sizes_alone = keyed.gather_finished(one, rules, mapping)
    assert counts == counts_alone and counts["transactions"] > 0 and sizes == sizes_alone
    assert sorted(shuffled) == sorted(alone) and "log_events" in alone  # the log rows passed through too

    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.sort_values(list(frame.columns), key=lambda c: c.astype(str)).reset_index(drop=True)

    for name in alone:
        pd.testing.assert_frame_equal(ordered(shuffled[name]), ordered(alone[name]), check_dtype=False)
