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


def grouped_cummax(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running maximum of int64 values restarting at each run start (runs given by ``starts``).

    Each run is lifted above the previous one by a constant so one ``maximum.accumulate`` does
    every run at once; when the lift could overflow, runs are done one by one.
    """
    values = np.asarray(values, dtype=np.int64)
    n = len(values)
    if n == 0:
        return values.copy()
    low, high = int(values.min()), int(values.max())
    step = high - low + 1
    if step * len(starts) >= BIG // 2:
        out = values.copy()
        for a, b in zip(starts.tolist(), run_ends(starts, n).tolist()):
            out[a : b + 1] = np.maximum.accumulate(out[a : b + 1])
        return out
    run = np.zeros(n, dtype=np.int64)
    run[starts[1:]] = 1
    lift = np.cumsum(run) * step - low
    return np.maximum.accumulate(values + lift) - lift


def sort_order(keys: tuple[np.ndarray, ...]) -> np.ndarray:
    """The stable order of ``np.lexsort(keys)`` (last key primary), computed faster.

    Integer keys that fit together with the row number into 63 bits are packed into one int64
    key; with the row number in it every key is distinct, so the quick unstable sort gives the
    stable order (an order of magnitude quicker than ``lexsort`` on a few hundred thousand rows).
    """
    n = len(keys[0]) if keys else 0
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    parts: list[tuple[np.ndarray, int, int]] = []  # (key, minimum, bits), least significant first
    total = (n - 1).bit_length()
    for key in keys:
        key = np.asarray(key)
        if key.dtype.kind not in "iub":
            return np.lexsort(keys)
        key = key.astype(np.int64, copy=False)
        low = int(key.min())
        bits = (int(key.max()) - low).bit_length()
        parts.append((key, low, bits))
        total += bits
    if total > 63:
        return np.lexsort(keys)
    packed = np.arange(n, dtype=np.int64)
    shift = (n - 1).bit_length()
    for key, low, bits in parts:
        if bits:
            packed |= (key - low) << shift
        shift += bits
    return np.argsort(packed)


def roll(values: np.ndarray, shift: int) -> np.ndarray:
    """``np.roll`` of a 1-d array by one place either way, without its generic machinery (it
    costs more than the work on the few rows of a small input's chunk, thousands of times)."""
    n = len(values)
    if n < 2:
        return values.copy()
    out = np.empty_like(values)
    if shift == 1:
        out[0] = values[-1]
        out[1:] = values[:-1]
    else:
        out[-1] = values[0]
        out[:-1] = values[1:]
    return out
