"""Cut a byte stream into blocks of whole lines, with a vectorised line index.

Reading line by line in Python costs more than parsing; reading a few MiB at a time and finding
the newlines with numpy keeps the per-line cost in C. Blocks are small (2 MiB) so that the
several vectorised passes over one block run in the CPU cache, and their buffers are recycled
through a small pool (fresh allocations cost more in page faults than the parse itself). Blocks
are cut just before the last batch line so that a batch and its record lines (and so a control
batch and its marker) normally sit in one block. A line longer than a buffer is kept only as its
first ``LINE_CAP`` bytes: it is still counted, but can never exhaust memory.
"""

from __future__ import annotations

import mmap
import queue
import threading
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator

import numpy as np

BLOCK_SIZE = 2 << 20
LINE_CAP = 64 << 10  # bytes of one line the parsers ever look at
POOL_SIZE = 6  # buffers in flight: one filling, four queued or being scanned, one being parsed
_BATCH_START = b"\nbaseOffset: "
_MAX_BATCH_TAIL = 1 << 20  # cut at the last batch line only if what follows it is small


class BufferPool:
    """Fixed-size buffers handed out for blocks and given back once a block is parsed.

    Anonymous memory maps rather than bytearrays: their pages are only backed once written, so
    the pool's footprint is what blocks really use, and they keep ``find``/``rfind``.
    """

    def __init__(self, capacity: int, size: int = POOL_SIZE) -> None:
        self.capacity = capacity
        self._free: queue.Queue[mmap.mmap] = queue.Queue()
        self._made = 0
        self._size = size

    def get(self) -> mmap.mmap:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        if self._made < self._size:
            self._made += 1
            return mmap.mmap(-1, self.capacity)
        return self._free.get()

    def put(self, buf: mmap.mmap) -> None:
        self._free.put(buf)


def _no_lines() -> np.ndarray:
    return np.empty(0, dtype=np.int64)


@dataclass
class Block:
    """Whole lines of the input: ``data[starts[i]:ends[i]]`` is line ``first_line + i``.

    ``data`` may be longer than the block (a pooled buffer); only ``size`` bytes belong to it.
    """

    data: mmap.mmap | bytes
    size: int
    base_byte: int  # offset of data[0] in the input
    starts: np.ndarray = field(default_factory=_no_lines)  # int64, line starts (set by ``index_block``)
    ends: np.ndarray = field(default_factory=_no_lines)  # int64, line ends (position of the newline)
    first_line: int = 0  # 1-based number of the first line; set by the consumer
    truncated: bool = False  # a single over-long line, cut to LINE_CAP bytes
    pool: BufferPool | None = None

    @property
    def nlines(self) -> int:
        return len(self.starts)

    def release(self) -> None:
        """Give the buffer back; the block must not be used afterwards."""
        if self.pool is not None and isinstance(self.data, mmap.mmap):
            self.pool.put(self.data)
            self.pool = None


_scratch = threading.local()  # per-thread newline mask, reused across blocks


def index_block(block: Block) -> Block:
    """Fill in the start and end of every line; ``data[:size]`` ends with a newline."""
    if block.truncated:
        return block
    size = block.size
    arr = np.frombuffer(block.data, dtype=np.uint8, count=size)
    hits = getattr(_scratch, "mask", None)
    if hits is None or len(hits) < size:
        hits = _scratch.mask = np.empty(size, dtype=bool)
    mask = hits[:size]
    np.equal(arr, 10, out=mask)
    ends = np.flatnonzero(mask)
    starts = np.empty_like(ends)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    block.starts, block.ends = starts, ends
    return block


def _fill(stream: BinaryIO, buf: mmap.mmap, start: int, want: int) -> int:
    """Read up to ``want`` bytes into ``buf[start:]``; return the new fill level."""
    view = memoryview(buf)
    filled = start
    stop = start + want
    try:
        while filled < stop:
            n = stream.readinto(view[filled:stop])  # type: ignore[attr-defined]
            if not n:
                break
            filled += n
    finally:
        view.release()
    return filled


def iter_blocks(
    stream: BinaryIO, block_size: int = BLOCK_SIZE, pool_size: int = POOL_SIZE, start_byte: int = 0
) -> Iterator[Block]:
    """Blocks of whole lines in input order, not yet indexed (see ``index_block``).

    The final line gets a newline if it lacks one. At most ``pool_size`` blocks exist at once:
    the consumer must ``release`` each block when done with it. ``start_byte`` is the offset of
    the stream's first byte in the input (when one range of a file is read).
    """
    pool = BufferPool(2 * max(block_size, LINE_CAP) + 1, pool_size)
    carry = b""
    base = start_byte
    while True:
        buf = pool.get()
        if carry:
            buf[: len(carry)] = carry
        want = min(block_size, pool.capacity - 1 - len(carry))
        size = _fill(stream, buf, len(carry), want)
        at_eof = size < len(carry) + want
        if size == 0:
            pool.put(buf)
            return
        if at_eof:
            if buf[size - 1] != 10:
                buf[size] = 10
                size += 1
            yield Block(buf, size, base, pool=pool)
            return
        last_nl = buf.rfind(b"\n", 0, size)
        cut = buf.rfind(_BATCH_START, max(0, last_nl - _MAX_BATCH_TAIL), size) + 1
        if cut <= 0:
            cut = last_nl + 1
        if cut <= 0 and size > LINE_CAP:  # no newline in a whole block: keep the head of the line
            yield _long_line(buf, size, base)
            pool.put(buf)
            dropped, carry, newline = skip_rest_of_line(stream, block_size)
            base += size + dropped + newline
            continue
        if cut <= 0:
            carry = bytes(buf[:size])
            pool.put(buf)
            continue
        carry = bytes(buf[cut:size])
        yield Block(buf, cut, base, pool=pool)
        base += cut


def _long_line(buf: mmap.mmap, size: int, base: int) -> Block:
    """One over-long line: keep its first LINE_CAP bytes."""
    head = bytes(buf[:LINE_CAP]) + b"\n"
    return Block(head, len(head), base, np.array([0], dtype=np.int64), np.array([len(head) - 1], dtype=np.int64), truncated=True)


def skip_rest_of_line(stream: BinaryIO, block_size: int) -> tuple[int, bytes, bool]:
    """Discard input up to the next newline.

    Returns the bytes dropped before the newline, what follows the newline, and whether a
    newline was found (False at end of input). Shared by the dump and the log readers, which
    both cut over-long lines and must keep later byte offsets exact.
    """
    dropped = 0
    while True:
        chunk = stream.read(block_size)
        if not chunk:
            return dropped, b"", False
        nl = chunk.find(b"\n")
        if nl >= 0:
            return dropped + nl, chunk[nl + 1 :], True
        dropped += len(chunk)
