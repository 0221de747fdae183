"""Grouped rules over representative rows and counts give the findings all rows give.

A distributed run keeps, per task, only the rows a grouped rule's finding can show plus each
group's size, and the driver evaluates the rules over what the tasks kept. Here the full log
tables of real client and broker logs (the real corpus, the log fixtures, a generated Spring log
of ~60k events) are cut into pieces the way tasks would hold them, reduced piece by piece, joined
and evaluated: every finding must equal the one-piece evaluation, and the rows kept must be
far fewer than the rows matched.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.engine.spark.keyed import add_group_counts, matched_rows
from kafkadiag.findings import Evidence
from kafkadiag.ruleset import evaluate, load_rules

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "fixtures" / "real"
RULES = load_rules()
CONFIG = EffectiveConfig.defaults().as_mapping()


def resolver(refs):
    return [Evidence(file=str(f), line=line, text="", byte=b) for f, line, b in refs]


def findings(tables: dict, **kw) -> list[dict]:
    return [dataclasses.asdict(f) for f in evaluate(RULES, tables, CONFIG, resolver, **kw)]


def log_table(paths: list[Path]) -> pd.DataFrame:
    result = analyze([str(p) for p in paths], RULES, EffectiveConfig.defaults())
    return result.tables["log_events"]


def reduced_in_pieces(frame: pd.DataFrame, pieces: list[np.ndarray]) -> tuple[dict, dict]:
    kept: list[pd.DataFrame] = []
    counts: dict = {}
    for rows in pieces:
        rows_kept, sizes = matched_rows({"log_events": frame.iloc[rows]}, RULES, CONFIG)
        kept += [rows_kept["log_events"]] if "log_events" in rows_kept else []
        add_group_counts(counts, sizes)
    joined = pd.concat(kept, ignore_index=True) if kept else frame.iloc[:0]
    return {"log_events": joined}, counts


def cuts(n: int, seed: int) -> list[list[np.ndarray]]:
    """The whole table as one piece, contiguous thirds, and rows dealt at random to five pieces."""
    rng = np.random.default_rng(seed)
    deal = rng.integers(0, 5, n)
    return [[np.arange(n)], np.array_split(np.arange(n), 3), [np.flatnonzero(deal == k) for k in range(5)]]


def assert_same_findings(frame: pd.DataFrame, seed: int = 1) -> int:
    """Checks every cut; returns the rows the finest cut kept."""
    whole = findings({"log_events": frame})
    kept = 0
    for pieces in cuts(len(frame), seed):
        tables, counts = reduced_in_pieces(frame, pieces)
        assert findings(tables, group_counts=counts) == whole
        kept = len(tables["log_events"])
    return kept


def real_cases() -> list[Path]:
    out = []
    for case in sorted(REAL.iterdir()):
        meta = case / "case.yaml"
        if meta.is_file():
            out.append(case)
    return out


def case_files(case: Path) -> list[Path]:
    return [case / name for name in yaml.safe_load((case / "case.yaml").read_text())["files"]]


@pytest.fixture(scope="module")
def corpus_logs() -> pd.DataFrame:
    """Every real case's log events in one table (file ids kept apart per case)."""
    frames = []
    for n, case in enumerate(real_cases()):
        table = log_table(case_files(case))
        if len(table):
            table = table.copy()
            table["file_id"] = table["file_id"] + 1000 * n
            frames.append(table)
    return pd.concat(frames, ignore_index=True)


def test_real_corpus_logs_give_the_same_findings_from_representatives(corpus_logs: pd.DataFrame) -> None:
    whole = findings({"log_events": corpus_logs})
    assert len(whole) > 30  # the corpus's logs carry many grouped findings
    assert_same_findings(corpus_logs)


def repeated(frame: pd.DataFrame, times: int) -> pd.DataFrame:
    """The same events ``times`` over, each copy its own file."""
    copies = []
    for k in range(times):
        part = frame.copy()
        part["file_id"] = part["file_id"] + 100_000 * k
        copies.append(part)
    return pd.concat(copies, ignore_index=True)


def test_repeated_errors_are_kept_as_a_few_rows_and_a_count(corpus_logs: pd.DataFrame) -> None:
    """The same logs 20 and 40 times over: the grouped findings' counts double, the rows kept for them do not."""
    grouped = [r for r in RULES if r.group_by and r.table == "log_events"]
    kept = {}
    for times in (20, 40):
        many = repeated(corpus_logs, times)
        rows, counts = matched_rows({"log_events": many}, grouped, CONFIG)
        kept[times] = len(rows["log_events"])
        assert sum(sum(sizes.values()) for sizes in counts.values()) >= times * 100
    assert kept[40] == kept[20] < len(corpus_logs) * 2
    assert_same_findings(repeated(corpus_logs, 20), seed=2)


def test_counts_reach_the_message_and_min_count(corpus_logs: pd.DataFrame) -> None:
    """Rules that need three events per group fire on three copies of the logs held by three pieces,
    none of which has three: the summed counts decide, and the message shows the sum."""
    needs_three = {r.id for r in RULES if r.group_by and r.min_count >= 3}
    many = repeated(corpus_logs, 3)
    whole = findings({"log_events": many})
    fired = {f["rule"] for f in whole} & needs_three
    assert fired - {f["rule"] for f in findings({"log_events": corpus_logs})}
    pieces = np.array_split(np.arange(len(many)), 3)  # one copy each
    tables, counts = reduced_in_pieces(many, pieces)
    assert findings(tables, group_counts=counts) == whole
    assert findings(tables) != whole  # without the counts the groups look smaller
