"""Run the stateless part of reading (newline index, classification, Arrow parse) on all cores.

Blocks are independent until their rows are assembled, so a small pool of threads scans several
blocks at once while the main thread turns finished ones into rows, in input order. numpy and
Arrow release the GIL for the heavy work, so the threads really run in parallel. At most
``depth`` blocks are in flight, which bounds memory.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_DONE = object()


#: Cores this process may scan on, when whoever runs it says so (a Spark task owns
#: ``spark.task.cpus`` cores, not the machine: threads beyond them only contend with the other tasks).
_cores: int | None = None


def use_cores(cores: int | None) -> None:
    """Scan with at most ``cores`` threads from now on (None: as many as the machine has, up to 4)."""
    global _cores
    _cores = cores if cores and cores > 0 else None


def default_workers() -> int:
    return max(1, min(4, _cores or os.cpu_count() or 1))


def parallel_map(
    source: Iterator[T],
    work: Callable[[T], R],
    workers: int | None = None,
    depth: int = 4,
    on_drop: Callable[[R], None] | None = None,
) -> Iterator[R]:
    """``work(item)`` for each item of ``source``, in order, computed ahead by ``workers`` threads.

    ``source`` is consumed by one feeder thread (it may block, e.g. waiting for a free buffer);
    an exception in the source or in ``work`` is raised in the consumer. If the consumer stops
    early, results computed ahead are passed to ``on_drop`` (to give their buffers back).
    """
    workers = workers or default_workers()
    if workers == 1:  # one core: a thread beside the consumer would only take turns with it
        yield from map(work, source)
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kafkadiag-scan")
    pending: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def feed() -> None:
        try:
            for item in source:
                if stop.is_set():
                    return
                pending.put(pool.submit(work, item))
        except BaseException as exc:  # handed to the consumer, raised there
            failed: Future = Future()
            failed.set_exception(exc)
            pending.put(failed)
            return
        pending.put(_DONE)

    feeder = threading.Thread(target=feed, name="kafkadiag-feed", daemon=True)
    feeder.start()
    try:
        while True:
            future = pending.get()
            if future is _DONE:
                return
            yield future.result()
    finally:
        stop.set()
        while feeder.is_alive() or not pending.empty():
            try:
                dropped = pending.get(timeout=0.05)
            except queue.Empty:
                continue
            if dropped is not _DONE and on_drop is not None:
                try:
                    on_drop(dropped.result())
                except BaseException:
                    pass
        feeder.join()
        pool.shutdown(wait=True, cancel_futures=True)
