"""What a batch stream carries per (partition, producer id) between chunks and ranges, in columns.

A stream remembers, for every producer on every partition it has seen, its last span (ordinal,
epoch, whether it ended with a marker) and its last data batch's sequence; a stream that another
one may join also keeps each producer's first transactional batch and first two data batches.
Held as one object per key and table, that was about 1.6 KB per key: 65 MB for 40,000 producer
partitions, in every range reader. Here every table is a set of columns over one shared index of
keys (about 400 bytes a key), written and read a chunk's keys at a time; the check of sequences
at a join, which goes one key at a time, reads records.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

#: Every table's columns, in the order of its record's fields.
TABLES: dict[str, tuple[tuple[str, Any], ...]] = {
    "carry": (("ordinal", np.int64), ("epoch", np.int64), ("was_control", np.bool_)),
    "seq": tuple((name, np.int64) for name in (
        "epoch", "base_sequence", "last_sequence", "last_offset", "time", "file_id", "line", "byte")),
    "first_tx": (("was_control", np.bool_), ("epoch", np.int64)),
    "first_seq": tuple((name, np.int64) for name in (
        "epoch", "base_sequence", "last_sequence", "base_offset", "last_offset", "time", "file_id", "line", "byte")),
}
TABLES["second_seq"] = TABLES["first_seq"]


class KeyState:
    """Rows of (partition code, producer id) keys; each table has columns and a mask of the rows it holds."""

    def __init__(self) -> None:
        self._index: dict[tuple[int, int], int] = {}
        self.size = 0
        self._tp = np.zeros(0, dtype=np.int64)
        self._pid = np.zeros(0, dtype=np.int64)
        self._cols: dict[str, dict[str, np.ndarray]] = {}  # made on a table's first write
        self._has: dict[str, np.ndarray] = {}

    # -- rows ---------------------------------------------------------------------------------
    def rows(self, tps: np.ndarray, pids: np.ndarray, make: bool = True) -> np.ndarray:
        """The row of each key, made for the keys not seen before (-1 for them when not ``make``)."""
        get, index = self._index.get, self._index
        found = np.fromiter((get(k, -1) for k in zip(tps.tolist(), pids.tolist())), dtype=np.int64, count=len(tps))
        missing = np.flatnonzero(found < 0) if make else ()
        if len(missing):
            self._reserve(self.size + len(missing))
            for i in missing.tolist():
                key = (int(tps[i]), int(pids[i]))
                row = index.get(key)  # a key twice among the missing: made once
                if row is None:
                    row = index[key] = self.size
                    self._tp[row], self._pid[row] = key
                    self.size += 1
                found[i] = row
        return found

    def find(self, key: tuple[int, int]) -> int:
        """The key's row, -1 when it has none."""
        return self._index.get(key, -1)

    def _reserve(self, need: int) -> None:
        capacity = len(self._tp)
        if need <= capacity:
            return
        capacity = max(need, 2 * capacity, 64)
        self._tp = _grown(self._tp, capacity)
        self._pid = _grown(self._pid, capacity)
        for name, cols in self._cols.items():
            for field, values in cols.items():
                cols[field] = _grown(values, capacity)
            self._has[name] = _grown(self._has[name], capacity)

    def _table(self, name: str) -> dict[str, np.ndarray]:
        cols = self._cols.get(name)
        if cols is None:
            capacity = len(self._tp)
            cols = self._cols[name] = {field: np.zeros(capacity, dtype=dtype) for field, dtype in TABLES[name]}
            self._has[name] = np.zeros(capacity, dtype=bool)
        return cols

    # -- tables -------------------------------------------------------------------------------
    def has(self, name: str, rows: np.ndarray) -> np.ndarray:
        held = self._has.get(name)
        return held[rows] if held is not None else np.zeros(len(rows), dtype=bool)

    def column(self, name: str, field: str) -> np.ndarray:
        return self._table(name)[field]

    def put(self, name: str, rows: np.ndarray, **values: np.ndarray) -> None:
        """Write whole records (every field of the table) at ``rows``."""
        if not len(rows):
            return
        cols = self._table(name)
        for field, _ in TABLES[name]:
            cols[field][rows] = values[field]
        self._has[name][rows] = True

    def held(self, name: str, tps: np.ndarray) -> np.ndarray:
        """The rows the table holds whose partition is one of ``tps``, ascending."""
        held = self._has.get(name)
        if held is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(held[: self.size] & np.isin(self._tp[: self.size], tps))

    def tp(self, rows: np.ndarray) -> np.ndarray:
        return self._tp[rows]

    def pid(self, rows: np.ndarray) -> np.ndarray:
        return self._pid[rows]

    def keys(self, name: str) -> Iterator[tuple[tuple[int, int], int]]:
        """(key, row) of every row the table holds, in the order keys were first seen."""
        held = self._has.get(name)
        if held is None:
            return iter(())
        rows = np.flatnonzero(held[: self.size])
        return zip(zip(self._tp[rows].tolist(), self._pid[rows].tolist()), rows.tolist())

    def only(self, code: int) -> KeyState:
        """The keys of partition ``code`` alone, as partition 0 (``BatchStream.only``)."""
        out = KeyState()
        rows = np.flatnonzero(self._tp[: self.size] == code)
        out._reserve(len(rows))
        out.size = len(rows)
        out._tp[: len(rows)] = 0
        out._pid[: len(rows)] = self._pid[rows]
        out._index = {(0, pid): i for i, pid in enumerate(out._pid[: len(rows)].tolist())}
        for name, cols in self._cols.items():
            mine = out._table(name)
            for field, values in cols.items():
                mine[field][: len(rows)] = values[rows]
            out._has[name][: len(rows)] = self._has[name][rows]
        return out

    # -- pickling: columns only, the index is made again ----------------------------------------
    def __getstate__(self) -> dict:
        n = self.size
        return {"size": n, "tp": self._tp[:n], "pid": self._pid[:n],
                "cols": {name: {f: v[:n] for f, v in cols.items()} for name, cols in self._cols.items()},
                "has": {name: v[:n] for name, v in self._has.items()}}

    def __setstate__(self, state: dict) -> None:
        self.size = state["size"]
        self._tp, self._pid = state["tp"].copy(), state["pid"].copy()
        self._cols = {name: {f: v.copy() for f, v in cols.items()} for name, cols in state["cols"].items()}
        self._has = {name: v.copy() for name, v in state["has"].items()}
        self._index = dict(zip(zip(self._tp.tolist(), self._pid.tolist()), range(self.size)))


class KeyTable:
    """One table of a ``KeyState`` read as records (the join's one-key-at-a-time check, a test's view)."""

    def __init__(self, state: KeyState, name: str, record: Callable[..., Any]) -> None:
        self.state, self.name, self.record = state, name, record
        self.fields = [field for field, _ in TABLES[name]]

    def records(self, rows: np.ndarray, missing: Any = None) -> list[Any]:
        """The records at ``rows``, ``missing`` where the table holds none."""
        cols = self.state._table(self.name)
        held = self.state._has[self.name][rows].tolist()
        values = zip(*(cols[f][rows].tolist() for f in self.fields)) if len(rows) else iter(())
        return [self.record(*v) if h else missing for v, h in zip(values, held)]

    def items(self) -> Iterator[tuple[tuple[int, int], Any]]:
        keys = list(self.state.keys(self.name))
        rows = np.array([row for _, row in keys], dtype=np.int64)
        return zip((key for key, _ in keys), self.records(rows))


def _grown(values: np.ndarray, capacity: int) -> np.ndarray:
    out = np.zeros(capacity, dtype=values.dtype)
    out[: len(values)] = values
    return out
