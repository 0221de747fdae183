"""Worker processes that keep to one file: each part goes to the lane that already reads its file.

A worker learns the line templates of every file it reads (for librdkafka debug output, a few
hundred templates at a quarter of a second per process). A shared pool hands the next part to
whichever worker is free, so on two cores both workers read, and learn, every file. Here each
worker is a lane of its own: a free lane takes the next part of the file it is on, else the
first file no lane has started, else it helps with the file that has the most parts left. The
results come back as one future per part, in the order they were submitted.

What the workers learn travels with the calls: each call returns the templates its worker
learned, and the next call a lane gets brings what the others learned meanwhile (``fastline``'s
``learned_since`` and ``adopt``), so a lane that comes to help with a file does not learn it again.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable

from ..memory import keep_freed_heap
from ..readers.logs import fastline

Call = tuple[Callable[..., Any], tuple]


class _Group:
    """The calls of one file not started yet, oldest first."""

    def __init__(self, calls: list[tuple[Call, Future]]) -> None:
        self.pending: deque[tuple[Call, Future]] = deque(calls)


class Lanes:
    """``workers`` single-process executors fed by file affinity (see the module docstring)."""

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        self._lanes: list[ProcessPoolExecutor | None] = [
            ProcessPoolExecutor(1, mp_context=context, initializer=keep_freed_heap) for _ in range(workers)]
        self._on: list[_Group | None] = [None] * workers
        self._fresh: deque[_Group] = deque()  # files no lane has started, in submission order
        self._active: list[_Group] = []  # files started (a few: about one per lane)
        self._lock = threading.Lock()
        self._closed = False
        self._learned: list[tuple[int, list]] = []  # (lane, templates it learned), in the order they came back
        self._sent = [0] * workers  # how much of it each lane has been given

    def submit_group(self, calls: list[Call]) -> list[Future]:
        """The calls of one file, read in this order where one lane does them all."""
        futures = [Future() for _ in calls]
        with self._lock:
            self._fresh.append(_Group(list(zip(calls, futures))))
        return futures

    def start(self) -> None:
        """Hand every lane its first call (after all groups are submitted: the first lanes take the first files)."""
        for lane in range(len(self._lanes)):
            self._next(lane)

    def _next(self, lane: int) -> None:
        with self._lock:
            if self._closed or self._lanes[lane] is None:
                return
            group = self._choose(lane)
            if group is None:
                self._on[lane] = None
                return
            self._on[lane] = group
            (fn, args), outer = group.pending.popleft()
            executor = self._lanes[lane]
            news = [item for origin, items in self._learned[self._sent[lane]:] if origin != lane for item in items]
            self._sent[lane] = len(self._learned)
        try:
            inner = executor.submit(_teaching, news, fn, args)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - the lane's process died (or the lanes closed)
            self._lose(lane, (fn, args), outer, exc)
            return
        inner.add_done_callback(lambda done: self._finished(lane, (fn, args), outer, done))

    def _choose(self, lane: int) -> _Group | None:
        own = self._on[lane]
        if own is not None and own.pending:
            return own
        while self._fresh:
            group = self._fresh.popleft()
            if group.pending:
                self._active.append(group)
                return group
        self._active = [g for g in self._active if g.pending]
        return max(self._active, key=lambda g: len(g.pending), default=None)

    def _finished(self, lane: int, call: Call, outer: Future, done: Future) -> None:
        if done.cancelled():
            outer.cancel()
            return
        exc = done.exception()
        if exc is not None and type(exc).__name__ == "BrokenProcessPool":
            self._lose(lane, call, outer, exc)
            return
        if exc is not None:
            outer.set_exception(exc)
        else:
            result, learned = done.result()
            if learned:
                with self._lock:
                    self._learned.append((lane, learned))
            outer.set_result(result)
        self._next(lane)

    def _lose(self, lane: int, call: Call, outer: Future, exc: BaseException) -> None:
        """A lane whose process died takes no more calls and its call fails (the caller reads that
        input itself); the other lanes take what is left, or, if none is alive, every call waiting fails."""
        with self._lock:
            self._lanes[lane] = None
            self._on[lane] = None
            alive = [i for i, executor in enumerate(self._lanes) if executor is not None]
            failed = [outer]
            if not alive:
                failed += self._drop_waiting()
            idle = [i for i in alive if self._on[i] is None]
        for future in failed:
            if not future.done():
                future.set_exception(exc)
        for i in idle:
            self._next(i)

    def _drop_waiting(self) -> list[Future]:
        """The futures of every call not started, taken off the queues (under the lock)."""
        groups = [*self._fresh, *self._active]
        waiting = [f for g in groups for _, f in g.pending]
        for group in groups:
            group.pending.clear()
        return waiting

    def close(self) -> None:
        """Stop handing out calls and let the processes go (calls not started are cancelled)."""
        with self._lock:
            self._closed = True
            waiting = self._drop_waiting()
            lanes, self._lanes = self._lanes, [None] * len(self._lanes)
        for future in waiting:
            future.cancel()
        for executor in lanes:
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)


def _teaching(learned: list, fn: Callable[..., Any], args: tuple) -> tuple[Any, list]:
    """In a lane: take what the other lanes learned, run the call, return its result and what this lane learned."""
    fastline.adopt(learned)
    mark = fastline.learned_mark()
    return fn(*args), fastline.learned_since(mark)
