"""Helpers for contiguous runs in sorted numpy arrays.

Fact builders sort rows by a key (topic-partition, producer id, ...) and then reduce each run of
equal keys with ``numpy.ufunc.reduceat``: one C loop per column instead of a Python loop per row,
which is what keeps a gigabyte of batches affordable.
"""

from __future__ import annotations

import numpy as np

BIG = np.iinfo(np.int64).max


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Indices where any of the (already sorted) key arrays changes value; always includes 0."""
    n = len(keys[0]) if keys else 0
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in keys:
        change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def run_ends(starts: np.ndarray, n: int) -> np.ndarray:
    """Index of the last row of each run."""
    return np.append(starts[1:], n) - 1


def min_ignoring(values: np.ndarray, mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per-run minimum of values where mask holds; -1 for runs with none."""
    masked = np.where(mask, values, BIG).astype(np.int64)
    out = np.minimum.reduceat(masked, starts) if len(starts) else np.zeros(0, dtype=np.int64)
    out[out == BIG] = -1
    return out


def max_ignoring(values: np.ndarray, mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per-run maximum of values where mask holds; -1 for runs with none."""
    masked = np.where(mask, values, -1).astype(np.int64)
    return np.maximum.reduceat(masked, starts) if len(starts) else np.zeros(0, dtype=np.int64)


def first_index(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per run, the index of the first row where mask holds; -1 when none."""
    idx = np.where(mask, np.arange(len(mask), dtype=np.int64), BIG)
    out = np.minimum.reduceat(idx, starts) if len(starts) else np.zeros(0, dtype=np.int64)
    out[out == BIG] = -1
    return out


def last_index(mask: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per run, the index of the last row where mask holds; -1 when none."""
    idx = np.where(mask, np.arange(len(mask), dtype=np.int64), -1)
    return np.maximum.reduceat(idx, starts) if len(starts) else np.zeros(0, dtype=np.int64)


def take_or(values: np.ndarray, index: np.ndarray, default: int = -1) -> np.ndarray:
    """values[index] with `default` where index is -1."""
    if len(values) == 0:
        return np.full(len(index), default, dtype=values.dtype if values.dtype != object else object)
    out = values[np.where(index >= 0, index, 0)]
    if out.dtype == object:
        out = out.copy()
        out[index < 0] = default
        return out
    return np.where(index >= 0, out, default)
