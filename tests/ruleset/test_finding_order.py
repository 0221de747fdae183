"""``finding_order`` ranks with numpy; it must give exactly the order pandas' stable sort gives."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from pandas.api import types as ptypes

from kafkadiag.facts.registry import FACT_TABLES
from kafkadiag.ruleset.evaluate import finding_order


def _sort_key(series: pd.Series) -> pd.Series:
    """Unknown (-1) numbers as missing values, so that they sort after known ones."""
    if ptypes.is_numeric_dtype(series.dtype) and not ptypes.is_bool_dtype(series.dtype):
        return series.where(series != -1)
    return series


def pandas_order(spec, frame: pd.DataFrame) -> np.ndarray:
    """The reference: a frame of sort keys sorted by pandas, stable, unknowns last."""
    from kafkadiag.facts.registry import SUBJECT_COLUMNS

    evidence_cols = [c for triple in spec.evidence for c in triple]
    order = [c for c in [spec.window[0], *SUBJECT_COLUMNS, *evidence_cols] if c in frame.columns]
    keys = pd.DataFrame({f"k{i}": _sort_key(frame[c]).reset_index(drop=True) for i, c in enumerate(dict.fromkeys(order))})
    try:
        return keys.sort_values(list(keys.columns), kind="stable", na_position="last").index.to_numpy()
    except TypeError:
        return np.arange(len(frame))


def random_log_events(rnd: random.Random, rows: int) -> pd.DataFrame:
    """Log-event rows with the duplicates, unknowns and missing values real runs have."""
    spec = FACT_TABLES["log_events"]
    data: dict[str, list] = {}
    ints: list[str] = []
    for column in spec.columns:
        kind = rnd.choice(["int", "str", "float"]) if column not in ("time_ms", "line", "producer_id") else "int"
        if kind == "int":
            ints.append(column)
            data[column] = [rnd.choice([-1, 0, 1, 2, 2, 7, 10**12]) for _ in range(rows)]
        elif kind == "float":
            data[column] = [rnd.choice([np.nan, 0.5, 1.0, 1.0, -1.0]) for _ in range(rows)]
        else:
            data[column] = [rnd.choice([None, "", "a", "b", "b", "txn-1", "Ä"]) for _ in range(rows)]
    frame = pd.DataFrame(data)
    return frame.astype({c: "int64" for c in ints})


@pytest.mark.parametrize("seed", range(40))
def test_same_order_as_pandas_stable_sort(seed: int) -> None:
    rnd = random.Random(seed)
    spec = FACT_TABLES["log_events"]
    frame = random_log_events(rnd, rnd.choice([0, 1, 2, 5, 50, 400]))
    if len(frame) and rnd.random() < 0.5:
        frame = frame.iloc[rnd.sample(range(len(frame)), len(frame))]  # an index out of order, as in a slice
    assert finding_order(spec, frame).tolist() == pandas_order(spec, frame).tolist()


def test_mixed_types_are_ordered_as_pandas_orders_them() -> None:
    spec = FACT_TABLES["log_events"]
    frame = random_log_events(random.Random(1), 6)
    frame["transactional_id"] = pd.Series(["b", 3, "a", 1.5, "c", 2], dtype=object)
    assert finding_order(spec, frame).tolist() == pandas_order(spec, frame).tolist()


def test_unknown_numbers_and_missing_values_sort_last() -> None:
    spec = FACT_TABLES["log_events"]
    frame = random_log_events(random.Random(2), 4)
    frame[spec.window[0]] = [30, -1, 10, 20]
    got = finding_order(spec, frame).tolist()
    assert got[:3] == [2, 3, 0] and got[3] == 1
