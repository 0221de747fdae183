"""Collect event rows from the line parser and the vectorised fast path into bounded chunks.

Both producers append in file order: the line parser row by row (tuples in schema column order),
the fast path as whole column arrays. Chunks are cut at ``chunk_rows`` so memory stays flat, and
every chunk is built with the schema's ``frame`` so the output contract is checked in one place.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import pandas as pd

from kafkadiag.tables import EVENT_TABLES, Schema


#: ``(reason, rows)``: rows dropped because a value does not fit its column (a counted skip).
Reject = Callable[[str, int], None]


class TableBuffer:
    """Rows of one event table waiting to be yielded (only the columns in ``names``, if given)."""

    def __init__(self, schema: Schema, names: tuple[str, ...] | None = None, arrays: bool = False,
                 reject: Reject | None = None) -> None:
        self.schema = schema
        self.reject = reject
        self.arrays = arrays  # yield dicts of arrays in schema dtypes rather than frames
        self.columns = schema.project(names)
        self.names = [c.name for c in self.columns]
        position = {name: i for i, name in enumerate(schema.names)}
        self.positions = [position[n] for n in self.names]
        self.rows: list[tuple] = []
        self.parts: list[dict[str, np.ndarray]] = []
        self.part_rows = 0

    def __len__(self) -> int:
        return len(self.rows) + self.part_rows

    def _rows_to_part(self) -> None:
        if not self.rows:
            return
        try:
            part = self._part(self.rows)
        except (OverflowError, ValueError, TypeError):
            # A number out of its column's range (an epoch above int16, an offset above int64):
            # that row is a counted skip, the rest of the chunk stays.
            kept = self._fitting_rows()
            if kept is None:  # not a range problem: the original error stands
                raise
            part = self._part(kept)
        if part:
            self.parts.append(part)
            self.part_rows += len(next(iter(part.values())))
        self.rows = []

    def _part(self, rows: list[tuple]) -> dict[str, np.ndarray]:
        if not rows:
            return {}
        columns = list(zip(*rows))
        return {col.name: np.array(columns[pos], dtype=object if col.dtype == "object" else col.dtype)
                for col, pos in zip(self.columns, self.positions)}

    def _fitting_rows(self) -> list[tuple] | None:
        """The rows whose every number fits its column, the others reported to ``reject``;
        None when every row fits (the conversion failed for another reason)."""
        limits = []
        for col, pos in zip(self.columns, self.positions):
            if col.dtype != "object" and np.dtype(col.dtype).kind in "iu":
                info = np.iinfo(np.dtype(col.dtype))
                limits.append((f"{col.name} ({col.dtype})", pos, int(info.min), int(info.max)))
        kept: list[tuple] = []
        dropped: dict[str, int] = {}
        for row in self.rows:
            bad = next((name for name, pos, low, high in limits
                        if isinstance(row[pos], int) and not low <= row[pos] <= high), None)
            if bad is None:
                kept.append(row)
            else:
                dropped[bad] = dropped.get(bad, 0) + 1
        if not dropped:
            return None
        if self.reject is None:
            raise OverflowError(f"{', '.join(dropped)} out of range")
        for name, count in dropped.items():
            self.reject(f"number out of range: {name}", count)
        return kept

    def add_columns(self, columns: dict[str, np.ndarray]) -> None:
        """Append a block of rows given as full-length column arrays (at least the wanted columns)."""
        self._rows_to_part()
        n = len(next(iter(columns.values())))
        if n:
            self.parts.append({name: columns[name] for name in self.names})
            self.part_rows += n

    def take(self, limit: int, final: bool) -> Iterator[pd.DataFrame | dict[str, np.ndarray]]:
        """Yield frames of at most ``limit`` rows; keep a partial chunk unless ``final``."""
        self._rows_to_part()
        while self.part_rows >= limit or (final and self.part_rows):
            size = min(limit, self.part_rows)
            pieces: list[dict[str, np.ndarray]] = []
            need = size
            while need:
                part = self.parts[0]
                n = len(next(iter(part.values())))
                if n <= need:
                    pieces.append(self.parts.pop(0))
                    need -= n
                else:
                    pieces.append({k: v[:need] for k, v in part.items()})
                    self.parts[0] = {k: v[need:] for k, v in part.items()}
                    need = 0
            self.part_rows -= size
            if len(pieces) == 1:
                data = pieces[0]
            else:
                data = {name: np.concatenate([p[name] for p in pieces]) for name in self.names}
            if self.arrays:
                yield {col.name: np.asarray(data[col.name], dtype=object if col.dtype == "object" else col.dtype)
                       for col in self.columns}
            else:
                yield self.schema.frame(data, length=size, columns=self.names)


class Sink:
    """One buffer per event table; ``drain`` yields ``(table_name, frame)`` chunks."""

    def __init__(
        self, chunk_rows: int, columns: dict[str, tuple[str, ...]] | None = None, arrays: tuple[str, ...] = (),
        reject: Reject | None = None,
    ) -> None:
        self.chunk_rows = max(1, chunk_rows)
        wanted = columns or {}
        self.tables = {name: TableBuffer(schema, wanted.get(name), name in arrays, reject)
                       for name, schema in EVENT_TABLES.items()}

    def wanted(self, table: str) -> frozenset[str]:
        """Columns of ``table`` that are kept (the fast path parses only these)."""
        return frozenset(self.tables[table].names)

    def row(self, table: str, values: tuple) -> None:
        self.tables[table].rows.append(values)

    def columns(self, table: str, columns: dict[str, np.ndarray]) -> None:
        self.tables[table].add_columns(columns)

    def drain(self, final: bool = False) -> Iterator[tuple[str, pd.DataFrame]]:
        for name, buf in self.tables.items():
            if len(buf) >= self.chunk_rows or (final and len(buf)):
                for frame in buf.take(self.chunk_rows, final):
                    yield name, frame
