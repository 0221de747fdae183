"""The array helpers the fact builders rely on must agree with the plain numpy/pandas forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kafkadiag.facts.labels import select_labels
from kafkadiag.facts.runs import grouped_cummax, run_starts, sort_order
from kafkadiag.memory import return_free_memory


@pytest.mark.parametrize("seed", range(6))
def test_sort_order_is_the_stable_lexsort(seed: int) -> None:
    rnd = np.random.default_rng(seed)
    n = int(rnd.integers(1, 5000))
    keys = (
        rnd.integers(-1, 3, n),  # few values, many ties: stability matters
        rnd.integers(1_600_000_000_000, 1_600_000_000_000 + 10**6 * (seed + 1), n),
        rnd.integers(-1, 50, n).astype(np.int32),
        rnd.random(n) < 0.5,
    )
    assert np.array_equal(sort_order(keys), np.lexsort(keys))


def test_sort_order_falls_back_when_keys_do_not_pack() -> None:
    rnd = np.random.default_rng(1)
    keys = (rnd.integers(-(2**62), 2**62, 1000), rnd.integers(0, 2**40, 1000))
    assert np.array_equal(sort_order(keys), np.lexsort(keys))
    floats = (rnd.random(100), rnd.integers(0, 3, 100))
    assert np.array_equal(sort_order(floats), np.lexsort(floats))
    assert len(sort_order((np.zeros(0, dtype=np.int64),))) == 0


@pytest.mark.parametrize("lift_overflows", [False, True])
def test_grouped_cummax_restarts_at_each_run(lift_overflows: bool) -> None:
    rnd = np.random.default_rng(3)
    groups = np.sort(rnd.integers(0, 40, 3000))
    values = rnd.integers(-1, 2**40, 3000)
    if lift_overflows:
        values[::7] = 2**62
    expected = pd.Series(values).groupby(groups).cummax().to_numpy()
    assert np.array_equal(grouped_cummax(values, run_starts(groups)), expected)


def test_select_labels_is_np_select_with_shared_objects() -> None:
    rnd = np.random.default_rng(5)
    a, b = rnd.random(1000) < 0.3, rnd.random(1000) < 0.5
    per_row = np.array([f"cause-{i % 3}" for i in range(1000)], dtype=object)
    got = select_labels([a, b], ["first", per_row], default="other")
    assert got.tolist() == np.select([a, b], ["first", per_row], default="other").tolist()
    firsts = {id(x) for x in got[a]}
    assert len(firsts) == 1  # one str object for every row of a constant label


def test_returning_free_memory_is_harmless() -> None:
    return_free_memory()
    return_free_memory()
