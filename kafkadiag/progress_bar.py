"""A rich progress bar on stderr while a long run reads its inputs: bytes, rate, time left.

It appears only after ``delay`` seconds (a 5 MB dump answers before that and prints nothing), only
when stderr is a terminal, and is gone before the report is written, so neither stdout nor a piped
stderr ever sees it. Its own thread redraws it a few times a second from the shared byte counts of
``kafkadiag.progress``; the readers never wait for it.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TextIO

from . import progress

#: Seconds a run must last before the bar appears (``KAFKADIAG_PROGRESS_DELAY`` overrides it).
DELAY_SECONDS = 1.0
#: Redraws per second: enough to follow, too few to cost anything.
REFRESH_PER_SECOND = 4


def wanted(quiet: bool, stream: TextIO | None = None) -> bool:
    """A bar is shown on a terminal's stderr only, never with ``--quiet`` or ``KAFKADIAG_PROGRESS=0``."""
    stream = stream or sys.stderr
    if quiet or os.environ.get("KAFKADIAG_PROGRESS", "") == "0":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def delay_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("KAFKADIAG_PROGRESS_DELAY", DELAY_SECONDS)))
    except ValueError:
        return DELAY_SECONDS


class ProgressBar:
    """``with ProgressBar():`` around the analysis shows its reading on stderr, once it runs long."""

    def __init__(self, stream: TextIO | None = None, delay: float | None = None) -> None:
        self._stream = stream or sys.stderr
        self._delay = delay_seconds() if delay is None else delay
        self._counts: progress.ReadProgress | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafkadiag-progress", daemon=True)
        self.shown = False  # the bar was drawn at least once

    # -- progress.Listener ------------------------------------------------------------------
    def reading_started(self, counts: progress.ReadProgress) -> None:
        self._counts = counts

    def reading_finished(self) -> None:
        pass  # ``counts.reading`` says it; the thread relabels the bar

    # -- context ----------------------------------------------------------------------------
    def __enter__(self) -> "ProgressBar":
        progress.listen(self)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        progress.listen(None)
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        try:
            self._show()
        except Exception:  # noqa: BLE001 - a bar that cannot draw (odd terminal) must not cost the run or print a traceback
            pass

    def _show(self) -> None:
        if self._stop.wait(self._delay):
            return  # the run ended before the bar was worth showing
        from rich.console import Console
        from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                                   TransferSpeedColumn)

        out = _own_handle(self._stream)
        console = Console(file=out, highlight=False)
        bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                       TimeRemainingColumn(), console=console, transient=True, auto_refresh=False,
                       redirect_stdout=False, redirect_stderr=False)
        task = bar.add_task("reading", total=None)
        bar.start()
        try:
            while True:
                self._draw(bar, task)
                self.shown = True
                if self._stop.wait(1 / REFRESH_PER_SECOND):
                    break
        finally:
            self._draw(bar, task)  # the last frame shows where the run got to
            bar.stop()  # transient: the bar's lines are erased before the report is written
            if out is not self._stream:
                out.close()

    def _draw(self, bar, task) -> None:
        counts = self._counts
        if counts is None:
            bar.update(task, description="reading")
        elif counts.reading:
            bar.update(task, total=counts.total or None, completed=counts.done(), description="reading")
        else:
            bar.update(task, total=counts.total or None, completed=counts.total, description="diagnosing")
        bar.refresh()


def _own_handle(stream: TextIO) -> TextIO:
    """A handle of its own on the terminal: reader processes fork while the bar draws, and one forked
    in the middle of a write must not inherit a held lock of ``sys.stderr`` (it flushes that at exit)."""
    try:
        return os.fdopen(os.dup(stream.fileno()), "w", encoding=getattr(stream, "encoding", None) or "utf-8",
                         errors="replace", buffering=1)
    except (AttributeError, OSError, ValueError):
        return stream
