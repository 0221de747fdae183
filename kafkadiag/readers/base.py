"""What every reader shares: the per-input report and the context a reader fills while it reads.

A reader is a function ``read(stream, ctx) -> Iterator[tuple[str, pandas.DataFrame]]``: it
consumes a binary stream, yields chunks of event-table rows (table name from
``kafkadiag.tables.EVENT_TABLES``, frame built with that schema), and records in ``ctx`` what it
saw (kind, Kafka era, line count, skipped lines by reason). Readers never raise on bad content:
an unreadable line is a counted skip.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator


@dataclass
class ReadOptions:
    """User choices that change how inputs are read."""

    partition: str | None = None  # --partition TOPIC-N: topic-partition when no `Dumping` line says
    chunk_rows: int = 65536  # rows per yielded chunk (memory stays flat)
    #: Event table -> the columns its consumer reads; chunks of that table carry only these.
    #: Parsing and moving columns nobody reads is a large share of the cost on big dumps.
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Event tables whose chunks are yielded as ``{column: numpy array}`` instead of DataFrames,
    #: for a consumer that reduces them at once (building a frame only to take it apart costs).
    arrays: tuple[str, ...] = ()
    #: Log events are kept only where one of these conditions matches (``engine.log_filter``):
    #: set for ``analyze``, whose rules are row by row; None keeps every event (the timeline).
    log_conditions: tuple | None = None


@dataclass
class InputReport:
    """What the report says about one input: how it was understood and what was skipped."""

    path: str
    kinds: list[str] = field(default_factory=list)  # e.g. ["dump-log/data", "dump-log/transaction-state"]
    era: str = ""  # Kafka version range the text shapes imply, e.g. "3.3+" or "2.2-2.7"
    lines: int = 0
    skipped: int = 0
    skip_reasons: Counter = field(default_factory=Counter)
    error: str = ""  # set when the input could not be read at all (missing, truncated .gz, ...)
    notes: Counter = field(default_factory=Counter)  # recognised tool messages worth telling (stack traces, trailing bytes)
    events: int = 0  # Kafka records and events found (batches, coordinator records, log events, config entries)
    kafka_lines: int = 0  # lines of a log that mention Kafka (its clients' or brokers' own lines), events or not
    failed: bool = False  # a reader crashed on this input: the run must not pass for complete
    #: The input was read up to a point and then could not be (a truncated or corrupt gzip stream,
    #: trailing bytes after one): what came before counts, the damage is a warning.
    damage: str = ""

    @property
    def kind(self) -> str:
        return ",".join(self.kinds) if self.kinds else "text"

    @property
    def evidence(self) -> bool:
        """Did this input hold anything Kafka? A dump or a config is evidence even when it is empty, and so
        is a healthy client or broker log (its lines are Kafka's, it just reports nothing wrong)."""
        if self.error:
            return False
        return self.events > 0 or self.kafka_lines > 0 or any(k.startswith(("dump-log/", "config/")) for k in self.kinds)

    @property
    def found(self) -> str:
        """What was found, in words: ``text, 7 Kafka events`` or ``no Kafka evidence``."""
        if self.error:
            return "not read"
        if not self.evidence:
            return "no Kafka evidence"
        if not self.events:
            return f"{self.kind}, no transaction events in {self.kafka_lines} Kafka lines" if self.kafka_lines else self.kind
        families = {k.split("/", 1)[0] for k in self.kinds}
        one, many = _WHAT.get(frozenset(families), ("Kafka record or event", "Kafka records and events"))
        return f"{self.kind}, {self.events} {one if self.events == 1 else many}"

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "kind": self.kind,
            "era": self.era,
            "lines": self.lines,
            "events": self.events,
            "found": self.found,
            "skipped": self.skipped,
            "skip_reasons": dict(sorted(self.skip_reasons.items())),
            **({"notes": dict(sorted(self.notes.items()))} if self.notes else {}),
            **({"error": self.error} if self.error else {}),
            **({"damage": self.damage} if self.damage else {}),
        }


#: Reader families -> how their records are called in the inputs table (one, many).
_WHAT = {
    frozenset({"config"}): ("setting", "settings"),
    frozenset({"dump-log"}): ("Kafka record", "Kafka records"),
    frozenset({"log"}): ("Kafka event", "Kafka events"),
}


@dataclass
class ReadContext:
    """Mutable state of one input while it is read."""

    file_id: int
    path: str  # as the user named it (display path)
    options: ReadOptions
    report: InputReport
    end_state: object = None  # the dump parser's section state after the last line (reading in ranges)
    shapes: list[str] = field(default_factory=list)  # era evidence, in the order it was seen
    configs: list = field(default_factory=list)  # configuration files read (lint ConfigFile), shared by the run

    def skip(self, reason: str, n: int = 1) -> None:
        self.report.skipped += n
        self.report.skip_reasons[reason] += n

    def note(self, reason: str, n: int = 1) -> None:
        """Count a recognised line that is not data but matters to the reader of the report."""
        self.report.notes[reason] += n

    def saw_kind(self, kind: str) -> None:
        if kind not in self.report.kinds:
            self.report.kinds.append(kind)


def merge_report(report: InputReport, part: InputReport) -> None:
    """Add the report of one part of an input (a byte range read elsewhere) to the input's report."""
    for kind in part.kinds:
        if kind not in report.kinds:
            report.kinds.append(kind)
    report.lines += part.lines
    report.skipped += part.skipped
    report.events += part.events
    report.kafka_lines += part.kafka_lines
    report.skip_reasons.update(part.skip_reasons)
    report.notes.update(part.notes)
    report.failed = report.failed or part.failed
    if part.error and not report.error:
        report.error = part.error
    if part.damage and not report.damage:
        report.damage = part.damage


def counted(chunks: Iterator[tuple[str, object]], report: InputReport) -> Iterator[tuple[str, object]]:
    """Pass a reader's chunks on, counting the Kafka records and events they carry in ``report``."""
    for table, chunk in chunks:
        if isinstance(chunk, dict):
            report.events += len(next(iter(chunk.values()))) if chunk else 0
        else:
            report.events += len(chunk)  # type: ignore[arg-type]
        yield table, chunk
