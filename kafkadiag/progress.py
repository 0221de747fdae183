"""How many bytes of the inputs have been read: what the progress bar on a terminal shows.

Large dumps are read in byte ranges by forked processes (``engine.ranges``) and large logs by a
pool of forked processes (``engine.ahead``), so the counts live in shared memory created before
any of them forks: one 64-bit slot per input and one per range reader, each with one writer, no
lock and no message. Readers count where bytes complete (a block of the input stream, a chunk of
a range), never per line. With nobody listening (piped, ``--quiet``, Spark tasks) nothing is
allocated and every hook is one global lookup.
"""

from __future__ import annotations

import os
from multiprocessing.sharedctypes import RawArray
from typing import Protocol

import numpy as np

#: Range readers one file is cut into at most (``engine.ranges.range_workers`` caps at 8).
RANGE_SLOTS = 8


class ReadProgress:
    """Bytes read so far per input (compressed bytes for gzip inputs) out of ``total``."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = [max(0, int(s)) for s in sizes]
        self.total = sum(self.sizes)
        self._slots = RawArray("q", len(self.sizes) + RANGE_SLOTS)
        self._view = np.frombuffer(self._slots, dtype=np.int64)  # type: ignore[call-overload]
        self._inputs = len(self.sizes)
        self.reading = True  # False once every input was read (the run is diagnosing)

    def input_read(self, file_id: int, done: int) -> None:
        """Input ``file_id`` has been read up to byte ``done`` (a later pass over it never counts back)."""
        if 0 <= file_id < self._inputs and done > self._slots[file_id]:
            self._slots[file_id] = min(done, self.sizes[file_id])

    def range_read(self, slot: int, done: int) -> None:
        """Range reader ``slot`` of the file being read in ranges has read ``done`` bytes of its range."""
        if 0 <= slot < RANGE_SLOTS:
            self._slots[self._inputs + slot] = done

    def input_done(self, file_id: int) -> None:
        """Input ``file_id`` is read (or failed): all of it counts, and its range readers' counts go."""
        if 0 <= file_id < self._inputs:
            self._slots[file_id] = self.sizes[file_id]
        self._view[self._inputs:] = 0

    def done(self) -> int:
        """Bytes read so far, never above ``total``."""
        return min(int(self._view.sum()), self.total)


class Listener(Protocol):
    """Whoever shows the progress (the terminal bar): told when the reading starts and ends."""

    def reading_started(self, progress: ReadProgress) -> None: ...

    def reading_finished(self) -> None: ...


_listener: Listener | None = None
_active: ReadProgress | None = None


def listen(listener: Listener | None) -> None:
    """Show the progress of the next runs to ``listener`` (None: stop counting)."""
    global _listener
    _listener = listener


def begin(paths: list[str]) -> ReadProgress | None:
    """Start counting a read of these files (on-disk sizes; '' for an input that cannot be read).

    Call before any reader process forks. None when nobody listens: then nothing is counted.
    """
    global _active
    if _listener is None:
        _active = None
        return None
    _active = ReadProgress([_size(p) for p in paths])
    _listener.reading_started(_active)
    return _active


def finish() -> None:
    """Every input is read: the listener moves on (the diagnosis follows)."""
    global _active
    if _active is not None:
        _active.reading = False
        if _listener is not None:
            _listener.reading_finished()
    _active = None


def active() -> ReadProgress | None:
    """The read being counted in this process (inherited by forked readers), or None."""
    return _active


def _size(path: str) -> int:
    if not path:
        return 0
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
