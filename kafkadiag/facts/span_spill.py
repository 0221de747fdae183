"""Partial spans kept on disk, in shards by a hash of the producer id, until the fact stage needs them.

The batch reduction holds one row of 22 integers per transaction and partition until the run is
read: 276 MB for the 1.57 million transactions of the 10 GB benchmark corpus, the largest thing a
large local run held. The fact stage takes them one bucket of producer ids at a time
(``BatchStream.finish_in_buckets``), so they can wait on disk, written by shard as they arrive:
a bucket is a set of shards (``shard % buckets``, for a bucket count that divides ``SHARDS``).
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

Part = dict[str, np.ndarray]


class SpillFailed(Exception):
    """The spill's directory cannot be written (full, read-only): one line saying where and what to set."""


class SpanSpill:
    """Append-only shards of partial spans; ``shard_of`` maps producer ids to ``0..SHARDS-1``."""

    def __init__(self, shard_of: Callable[[np.ndarray], np.ndarray]) -> None:
        self.shard_of = shard_of
        self.rows = 0
        self._files: dict[int, BinaryIO] = {}
        try:
            self._dir = tempfile.mkdtemp(prefix="kafkadiag-spans-")
        except OSError as exc:
            raise _failed(tempfile.gettempdir(), exc) from None
        self._cleanup = weakref.finalize(self, _remove, self._dir, self._files)

    def add(self, part: Part) -> None:
        n = len(part["tp"])
        if not n:
            return
        shard = self.shard_of(part["producer_id"])
        try:
            for s in np.unique(shard).tolist():
                chosen = shard == s
                pickle.dump({name: values[chosen] for name, values in part.items()}, self._file(s), protocol=5)
        except OSError as exc:
            self.close()
            raise _failed(self._dir, exc) from None
        self.rows += n

    def bucket(self, b: int, buckets: int) -> Iterator[Part]:
        """Every part spilled for bucket ``b`` of ``buckets`` (which must divide ``SHARDS``)."""
        if SHARDS % buckets:
            raise ValueError(f"{buckets} buckets do not divide the spill's {SHARDS} shards")
        for s in range(b, SHARDS, buckets):
            handle = self._files.get(s)
            if handle is None:
                continue
            handle.flush()
            with open(handle.name, "rb") as source:
                while True:
                    try:
                        yield pickle.load(source)
                    except EOFError:
                        break

    def close(self) -> None:
        self._cleanup()

    def _file(self, shard: int) -> BinaryIO:
        handle = self._files.get(shard)
        if handle is None:
            handle = self._files[shard] = open(os.path.join(self._dir, f"{shard}.pkl"), "ab")
        return handle


def buckets_for(wanted: int) -> int:
    """The smallest bucket count at least ``wanted`` that divides ``SHARDS`` (at most ``SHARDS``)."""
    n = 1
    while n < wanted and n < SHARDS:
        n *= 2
    return n


def _failed(folder: str, exc: OSError) -> SpillFailed:
    reason = exc.strerror or str(exc)
    return SpillFailed(f"cannot keep transaction spans on disk in {folder}: {reason}; set TMPDIR to a directory "
                       "with room (about 200 bytes per transaction), or use --engine spark")


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
