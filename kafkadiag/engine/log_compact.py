"""A run's log rows in bounded memory: past a limit, only the rows a finding can show, and group sizes.

Reading keeps the log rows some rule may match (:mod:`.log_filter`); on a broker's log that is
every coordinator line that names a transactional.id, so the rows grew with the log (the
benchmark's 333 MB broker log keeps 53,000). Most log rules are grouped: one finding of many
rows, shown through a few of them. So once ``COMPACT_ROWS`` rows wait, they are reduced as a
distributed run reduces a task's rows (:func:`keyed.matched_rows`): every row of a row-by-row
rule, a grouped rule's representative rows, and each group's size, summed over the reductions.
The rows kept so far are reduced again when they pass the limit themselves (their sizes are
already counted). The rules then run over the kept rows with the summed sizes, which gives the
findings all rows give.
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from ..facts.build import with_subject_label
from ..ruleset.representatives import GroupCounts
from ..tables import LOG_EVENTS
from .log_filter import LOG_TABLE
from .spark.keyed import add_group_counts, matched_rows

#: Rows held before they are reduced (about 1 KB each).
COMPACT_ROWS = 50_000


class LogCompactor:
    """Collects log rows and reduces them past ``limit`` (see the module docstring)."""

    def __init__(self, rules: list, config: Mapping[str, object], limit: int | None = None) -> None:
        self.rules = [r for r in rules if r.table == LOG_TABLE]
        self.config = config
        self.limit = limit or COMPACT_ROWS
        self.pending: list[pd.DataFrame] = []
        self.pending_rows = 0
        self.kept: list[pd.DataFrame] = []
        self.kept_rows = 0
        self.kept_limit = self.limit  # raised when what is kept cannot shrink (row-by-row rules' rows)
        self.counts: GroupCounts | None = None  # None until the first reduction

    def add(self, chunk: pd.DataFrame) -> None:
        self.pending.append(chunk)
        self.pending_rows += len(chunk)
        if self.pending_rows >= self.limit:
            self._reduce_pending()

    def _reduce_pending(self) -> None:
        rows, sizes = self._matched(self.pending)
        self.pending, self.pending_rows = [], 0
        self.counts = self.counts if self.counts is not None else {}
        add_group_counts(self.counts, sizes)
        self.kept.append(rows)
        self.kept_rows += len(rows)
        if self.kept_rows >= self.kept_limit:
            rows, _counted_already = self._matched(self.kept)
            self.kept, self.kept_rows = [rows], len(rows)
            self.kept_limit = max(self.limit, 2 * len(rows))

    def _matched(self, frames: list[pd.DataFrame]) -> tuple[pd.DataFrame, GroupCounts]:
        frame = with_subject_label(pd.concat(frames, ignore_index=True))
        matched, sizes = matched_rows({LOG_TABLE: frame}, self.rules, dict(self.config))
        return matched.get(LOG_TABLE, frame.iloc[:0]), sizes

    def finish(self) -> tuple[list[pd.DataFrame], GroupCounts | None]:
        """The rows to run the rules over, and the grouped rules' sizes (None: every row was kept)."""
        if self.counts is None:
            return self.pending, None
        if self.pending:
            self._reduce_pending()
        return self.kept or [LOG_EVENTS.empty()], self.counts
