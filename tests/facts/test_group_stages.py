"""Each fact stage is a function over whole groups: split its inputs by the group key in any way,
run the stage per part, concatenate, and the tables equal one run over everything.

This is what lets a distributed runner run the stages per partition of keyed data with the
run-wide values broadcast; it is checked on every simulated incident of several eras and on the
real dump excerpts, with the groups dealt out at random into three parts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pandas as pd
import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import collect
from kafkadiag.engine.pipeline import v2_possible
from kafkadiag.facts.build import _concat
from kafkadiag.facts.stages import (
    GROUP_KEYS,
    canonical,
    combine_coordinator,
    combine_topics,
    coordinator_facts,
    producer_facts,
    run_values,
    topic_facts,
    topic_partials,
)
from kafkadiag.readers.base import ReadOptions
from kafkadiag.tables import ABORTED_TXNS, SNAPSHOT_ENTRIES, TXN_RECORDS

pytestmark = pytest.mark.slow  # every fact stage per group against one run, on every case

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

CASES = [(s, e) for s in ("mixed", "fencing", "expiration", "hanging", "sequence-gap", "invalid-transition", "unstable-ids")
         for e in ("0.11", "2.4", "3.3", "4.1")]
PARTS = 3


def _deal(values, seed: int) -> list[set]:
    """Every distinct value into one of PARTS parts, at random."""
    rng = random.Random(seed)
    parts: list[set] = [set() for _ in range(PARTS)]
    for v in sorted(set(values), key=str):
        parts[rng.randrange(PARTS)].add(v)
    return parts


def _part(frame: pd.DataFrame, column: str, keep: set) -> pd.DataFrame:
    return frame[frame[column].isin(keep)].reset_index(drop=True)


def _assert_tables_equal(whole: dict[str, pd.DataFrame], parts: list[dict[str, pd.DataFrame]]) -> None:
    for name, frame in whole.items():
        filled = [p[name] for p in parts if len(p[name])]
        joined = pd.concat(filled, ignore_index=True) if filled else frame.iloc[:0]
        assert len(joined) == len(frame), name
        pd.testing.assert_frame_equal(canonical(joined.astype(frame.dtypes.to_dict()) if len(joined) else joined),
                                      canonical(frame), check_dtype=False, obj=name)


def _check(paths: list[str], seed: int) -> int:
    config = EffectiveConfig.defaults()
    events, stream = collect(paths, ReadOptions(), parallel=False)
    records = _concat(events.txn_records, TXN_RECORDS.empty())
    snapshots = _concat(events.snapshots, SNAPSHOT_ENTRIES.empty())
    aborted = _concat(events.aborted, ABORTED_TXNS.empty())
    run = run_values(events.batches, records, config.as_mapping(), {k: v.is_default for k, v in config.values.items()},
                     v2_possible(stream.reports), None)
    merged, raw = events.batches.finish()

    coord = coordinator_facts(records, run)
    if len(records):
        parts = [coordinator_facts(_part(records, "transactional_id", ids), run, combine=False)
                 for ids in _deal(records["transactional_id"], seed) if ids]
        _assert_tables_equal(coord, [combine_coordinator(parts)])

    txns = coord["coordinator_txns"]
    whole = producer_facts(merged, raw, txns, aborted, snapshots, run)
    pids = set(merged["producer_id"]) | set(txns["producer_id"]) | set(snapshots["producer_id"]) | set(raw.get("producer_id", []))
    parts = [producer_facts(_part(merged, "producer_id", keep), _part(raw, "producer_id", keep) if len(raw) else raw,
                            _part(txns, "producer_id", keep) if len(txns) else txns,
                            _part(aborted, "producer_id", keep), _part(snapshots, "producer_id", keep), run)
             for keep in _deal(pids, seed)]
    _assert_tables_equal(whole, parts)

    spans = whole["spans"]
    topics = topic_facts(spans)
    shuffled = spans.sample(frac=1, random_state=seed).reset_index(drop=True)  # no stage may depend on row order
    _assert_tables_equal(topics, [topic_facts(_part(shuffled, "topic", keep)) for keep in _deal(spans["topic"], seed)])
    # The topic stage as a distributed runner runs it: partials per set of producer ids, then the combine step.
    by_pid = [topic_partials(_part(shuffled, "producer_id", keep)) for keep in _deal(spans["producer_id"], seed)]
    _assert_tables_equal(topics, [combine_topics(by_pid)])
    return len(spans)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim-groups")
    for scenario, era in CASES:
        simulate.generate(scenario, era, out / f"{scenario}-{era}", seed=2)
    return out


@pytest.mark.parametrize("scenario,era", CASES)
def test_stages_per_group_equal_one_run(scenario: str, era: str, simulated: Path) -> None:
    case = simulated / f"{scenario}-{era}"
    paths = sorted(str(p) for p in case.iterdir() if p.name != "expected.json" and not p.name.endswith(".stderr.txt"))
    assert _check(paths, seed=len(scenario) + len(era)) > 0


@pytest.mark.parametrize("case", sorted(p.name for p in (ROOT / "fixtures" / "cases").iterdir()))
def test_stages_per_group_on_fixture_cases(case: str) -> None:
    _check([str(ROOT / "fixtures" / "cases" / case / "input")], seed=7)


def test_every_fact_table_has_a_group_key() -> None:
    config = EffectiveConfig.defaults()
    from kafkadiag.facts.build import CollectedEvents, build_fact_tables

    tables = build_fact_tables(CollectedEvents(), config.as_mapping(), {}, True, None)
    assert set(tables) - {"txn_records", "log_events"} == set(GROUP_KEYS)
    for name, key in GROUP_KEYS.items():
        assert key in tables[name].columns, name
