"""Fixtures for rule-engine tests: synthetic fact-table frames with the registry's columns.

Test modules get helpers only through fixtures (the suite runs with --import-mode=importlib, so
conftest is not importable as a module)."""

from __future__ import annotations

import numpy as np
import pytest
import pandas as pd

from kafkadiag.facts.registry import FACT_TABLES

TEXT_COLUMNS = {
    "topic", "transactional_id", "state", "marker", "protocol", "ended_by", "cause", "timeout_source",
    "kind", "partitions", "prepare_state", "complete_state", "last_state", "family", "id_shape",
    "from_state", "to_state",
}
BOOL_COLUMNS = {
    "zombie", "explained_by_abort", "compacted", "contiguous", "stuck", "new_pid_after_idle",
    "once_epoch0", "valid", "closed_in_evidence", "marker_seen", "covered",
}


def make_frame(table: str, n: int, **columns: object) -> pd.DataFrame:
    """A frame with every column of ``table``: given values, else -1 / '' / False, with the
    dtypes fact builders produce (int64, str, bool)."""
    data: dict[str, object] = {}
    for name in FACT_TABLES[table].columns:
        value = columns.pop(name, None)
        if value is not None and np.ndim(value) == 0:
            value = [value] * n
        if name in TEXT_COLUMNS:
            data[name] = pd.Series([""] * n if value is None else list(value), dtype="str")
        elif name in BOOL_COLUMNS:
            data[name] = np.zeros(n, dtype=bool) if value is None else np.asarray(value, dtype=bool)
        else:
            data[name] = np.full(n, -1, dtype=np.int64) if value is None else np.asarray(value, dtype=np.int64)
    assert not columns, f"not columns of {table}: {sorted(columns)}"
    return pd.DataFrame(data)


@pytest.fixture
def frame():
    return make_frame
