"""The bulk generator's truth (``benchmarks/truth.py``, what ``run.py`` and ``matrix.py`` check) is what kafkadiag finds.

The benchmark matrix fails a run whose report differs from the generator's counts; this keeps
both honest on small inputs in every commit: batches, transactions by outcome, and the findings
the generator decides (open within or past the timeout, commits near it), per era and across
many partitions.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from kafkasim import generate_bulk  # noqa: E402
from truth import compare, dump_truth  # noqa: E402

from kafkadiag.config import EffectiveConfig  # noqa: E402
from kafkadiag.engine.local import analyze  # noqa: E402
from kafkadiag.ruleset import load_rules  # noqa: E402


def _observed(paths: list[Path]) -> dict:
    result = analyze([str(p) for p in paths], load_rules(), EffectiveConfig.defaults())
    s = result.stats
    return {"batches": s["batches"], "committed": s["committed"], "aborted": s["aborted"], "open": s["open"],
            "findings": dict(Counter(f.rule for f in result.findings))}


@pytest.mark.parametrize("era, producers", [("2.0", 2000), ("3.3", 3000), ("4.1", 2000), ("0.11", 500)])
def test_the_generator_truth_is_what_is_found(tmp_path: Path, era: str, producers: int) -> None:
    path = tmp_path / "dump.txt"
    summary = generate_bulk(path, 3_000_000, era=era, seed=7, producers=producers, print_data=False)
    truth = dump_truth([summary])
    assert truth["findings"].get("HNG009", 0) > 50 and truth["open"] > 50  # idle producers leave transactions open
    assert compare(truth, _observed([path])) == []


def test_transactions_past_and_near_their_timeout(tmp_path: Path) -> None:
    """Minutes of simulated traffic from many idle producers: hanging transactions and long commits."""
    path = tmp_path / "dump.txt"
    summary = generate_bulk(path, 32_000_000, era="3.3", seed=3, producers=20000, print_data=False)
    truth = dump_truth([summary])
    assert truth["findings"]["HNG002"] > 100 and truth["findings"]["TMO004"] > 100
    assert compare(truth, _observed([path])) == []


def test_many_partitions_sum_up(tmp_path: Path) -> None:
    paths, summaries = [], []
    for p in range(6):
        path = tmp_path / f"orders-{p}.txt"
        summaries.append(generate_bulk(path, 400_000, era="3.3", seed=p, producers=300, partition=p,
                                       topic="orders", pid_base=p * 100_000, print_data=False))
        paths.append(path)
    truth = dump_truth(summaries)
    assert truth["findings"]["HNG009"] > 100
    assert compare(truth, _observed(paths)) == []


def test_a_transaction_state_dump_of_many_ids(tmp_path: Path) -> None:
    from kafkasim.txnbulk import generate_txn_state
    from truth import txn_state_truth

    path = tmp_path / "txn.txt"
    truth = txn_state_truth(generate_txn_state(path, 1500, era="3.3", seed=2))
    result = analyze([str(path)], load_rules(), EffectiveConfig.defaults())
    got = {"coordinator_records": result.stats["coordinator_records"], "transactional_ids": result.stats["transactional_ids"],
           "findings": dict(Counter(f.rule for f in result.findings))}
    assert truth["coordinator_records"] > 4 * 1500
    assert compare(truth, got) == []
