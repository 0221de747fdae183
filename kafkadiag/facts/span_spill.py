"""Rows kept on disk, in shards by a hash of their key, until the fact stage needs them.

The batch reduction holds one row of 22 integers per transaction and partition until the run is
read: 276 MB for the 1.57 million transactions of the 10 GB benchmark corpus, the largest thing a
large local run held. The fact stage takes them one bucket of producer ids at a time
(``BatchStream.finish_in_buckets``), so they can wait on disk, written by shard as they arrive:
a bucket is a set of shards (``shard % buckets``, for a bucket count that divides ``SHARDS``).
The coordinator's records wait the same way, by transactional.id (``CollectedEvents``): a
cluster's ``__transaction_state`` holds millions of them.
The files live in a temporary directory that is removed when the spill is closed or dropped.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import weakref
from typing import BinaryIO, Callable, Iterator

import numpy as np

#: Shards on disk; bucket counts that divide it read whole shards (``buckets_for``).
SHARDS = 128

#: Rows as columns of equal length (as the batch reduction holds them).
Part = dict[str, np.ndarray]
#: Rows held in memory before they go to their shards (about 13 MB of coordinator records).
FLUSH_ROWS = 100_000


class SpillFailed(Exception):
    """The spill's directory cannot be written (full, read-only): one line saying where and what to set."""


class ShardSpill:
    """Append-only shards of rows (columns of equal length); ``shard_of`` maps the ``key`` column
    to ``0..SHARDS-1``.

    Rows wait in memory until FLUSH_ROWS have come, then go to their shards' files in one sort:
    a shard file per part and shard would be a pickle of a few rows each. ``what`` and
    ``row_bytes`` name the rows and their size on disk in the error a full disk gives.
    """

    def __init__(self, shard_of: Callable[[np.ndarray], np.ndarray], key: str, what: str, row_bytes: int) -> None:
        self.shard_of = shard_of
        self.key, self.what, self.row_bytes = key, what, row_bytes
        self.rows = 0
        self._pending: list[Part] = []
        self._pending_rows = 0
        self._files: dict[int, BinaryIO] = {}
        try:
            self._dir = tempfile.mkdtemp(prefix="kafkadiag-spill-")
        except OSError as exc:
            raise self._failed(tempfile.gettempdir(), exc) from None
        self._cleanup = weakref.finalize(self, _remove, self._dir, self._files)

    def add(self, part: Part) -> None:
        n = len(part[self.key])
        if not n:
            return
        self._pending.append(part)
        self._pending_rows += n
        self.rows += n
        if self._pending_rows >= FLUSH_ROWS:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        parts, self._pending, self._pending_rows = self._pending, [], 0
        rows = parts[0] if len(parts) == 1 else {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
        del parts
        shard = self.shard_of(rows[self.key])
        order = np.argsort(shard, kind="stable")
        shard = shard[order]
        present = np.unique(shard)
        bounds = np.searchsorted(shard, present).tolist() + [len(shard)]
        try:
            for s, lo, hi in zip(present.tolist(), bounds, bounds[1:]):
                chosen = order[lo:hi]
                pickle.dump({name: values[chosen] for name, values in rows.items()}, self._file(s), protocol=5)
        except OSError as exc:
            self.close()
            raise self._failed(self._dir, exc) from None

    def bucket(self, b: int, buckets: int) -> Iterator[Part]:
        """Every part spilled for bucket ``b`` of ``buckets`` (which must divide ``SHARDS``)."""
        if SHARDS % buckets:
            raise ValueError(f"{buckets} buckets do not divide the spill's {SHARDS} shards")
        self._flush()
        for s in range(b, SHARDS, buckets):
            handle = self._files.get(s)
            if handle is None:
                continue
            handle.flush()
            with open(handle.name, "rb") as source:
                yield from pickled(source)  # type: ignore[misc]

    def close(self) -> None:
        self._cleanup()

    def _file(self, shard: int) -> BinaryIO:
        handle = self._files.get(shard)
        if handle is None:
            handle = self._files[shard] = open(os.path.join(self._dir, f"{shard}.pkl"), "ab")
        return handle

    def _failed(self, folder: str, exc: OSError) -> SpillFailed:
        reason = exc.strerror or str(exc)
        return SpillFailed(f"cannot keep {self.what} on disk in {folder}: {reason}; set TMPDIR to a directory "
                           f"with room (about {self.row_bytes} bytes per row), or use --engine spark")


class SpanSpill(ShardSpill):
    """Partial spans of the batch reduction, by producer id."""

    def __init__(self, shard_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__(shard_of, "producer_id", "transaction spans", 200)


class RecordSpill(ShardSpill):
    """Coordinator records (``TXN_RECORDS`` frames), by transactional.id."""

    def __init__(self, shard_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__(shard_of, "transactional_id", "coordinator records", 300)


def pickled(source: BinaryIO) -> Iterator[object]:
    """Every object pickled one after another into ``source``, in order."""
    while True:
        try:
            yield pickle.load(source)
        except EOFError:
            return


def buckets_for(wanted: int) -> int:
    """The smallest bucket count at least ``wanted`` that divides ``SHARDS`` (at most ``SHARDS``)."""
    n = 1
    while n < wanted and n < SHARDS:
        n *= 2
    return n


def _remove(folder: str, files: dict[int, BinaryIO]) -> None:
    for handle in files.values():
        handle.close()
        try:
            os.unlink(handle.name)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass
