"""Give freed heap memory back to the operating system between pipeline stages.

The reader scans blocks in worker threads, and glibc gives each thread its own heap arena. What
those threads free stays in their arenas, where the main thread's fact building cannot reuse it,
so without a trim the peak resident size is the reading peak plus the fact-building peak. Arrow's
allocator keeps freed blocks cached for the same reason.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import lru_cache


@lru_cache(maxsize=4)
def _libc(function: str):
    """A function of the C library (glibc's ``malloc_trim``, ``mallopt``), or None where it has none."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return getattr(ctypes.CDLL(name), function, None)
    except OSError:
        return None


def return_free_memory() -> None:
    """Release Arrow's cached blocks and ``malloc_trim(0)`` where the C library has it (glibc)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _libc("malloc_trim")
    if trim is not None:
        trim(0)



def purge_freed_arrow_memory() -> None:
    """Have Arrow's allocator (mimalloc, the default of its wheels) give freed memory back to the
    system at once, unless the user set its purge delay: set ``MIMALLOC_PURGE_DELAY=0`` before
    pyarrow is first imported (mimalloc reads it once, when Arrow starts it).

    By default mimalloc keeps what it freed resident for a while, in every process: each forked
    range reader held about 12 MB more that way. Measured (process tree peak, 300 MB matrix
    inputs): dense 264 -> 244-249 MB, era 3.3 208-210 -> 185 MB; the 10 GB corpus takes 26.1 s
    instead of 25.2 s (more pages returned and faulted in again). The C library's ``malloc``
    (``ARROW_DEFAULT_MEMORY_POOL=system``) saved as much on the small inputs but spent 24 s of
    system time on the 10 GB one; jemalloc did both well but is not built into every pyarrow.
    Child processes (range readers, Spark's workers) inherit the setting.
    """
    os.environ.setdefault("MIMALLOC_PURGE_DELAY", "0")


#: ``mallopt`` parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def keep_freed_heap(block_bytes: int = 256 << 20) -> None:
    """In a reader process that lives for one read: keep freed blocks up to ``block_bytes`` in the heap.

    A log reader allocates and frees the same few large buffers block after block (the block's
    bytes, its decoded text, its line array). glibc hands buffers past its mmap threshold back to
    the system on free, and the next block faults them in again: on a 1 GB mixed log, 660,000
    page faults and 1.4 s of system time; with the buffers kept, half the faults and 0.8 s, for
    the same peak. Only where glibc's ``mallopt`` exists; elsewhere nothing changes.
    """
    mallopt = _libc("mallopt")
    if mallopt is not None:
        mallopt(_M_MMAP_THRESHOLD, block_bytes)
        mallopt(_M_TRIM_THRESHOLD, 2 * block_bytes)
