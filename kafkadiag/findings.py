"""A finding: one diagnosis with its subject, window, evidence and fixes.

This is the only thing renderers see. Its JSON form (``to_json``) is the stable public schema of
``--format json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}

CATEGORIES = (
    "fencing",
    "expired-transactional-id",
    "transaction-timeout",
    "hanging-transaction",
    "request-timeout",
    "out-of-order-sequence",
    "unknown-producer-id",
    "invalid-state-transition",
    "unresolved-sequences",
    "concurrent-transactions",
    "coordinator-unavailable",
    "authorization",
    "invalid-txn-timeout-config",
    "config-misuse",
)


def iso_time(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO-8601 UTC with millisecond precision; None when unknown.

    A time no calendar date can show (past year 9999, from a corrupt or hostile input) is shown
    raw, as ``<ms> ms``, rather than failing the report.
    """
    if ms is None or ms < 0:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (ValueError, OverflowError, OSError):
        return f"{ms} ms"


@dataclass(slots=True)
class Subject:
    transactional_id: str | None = None
    producer_id: int | None = None
    producer_epoch: int | None = None
    topic: str | None = None
    partition: int | None = None

    def to_json(self) -> dict:
        return {
            "transactional_id": self.transactional_id,
            "producer_id": self.producer_id,
            "producer_epoch": self.producer_epoch,
            "topic": self.topic,
            "partition": self.partition,
        }

    def sort_key(self) -> tuple:
        return (
            self.transactional_id or "",
            self.topic or "",
            -1 if self.partition is None else self.partition,
            -1 if self.producer_id is None else self.producer_id,
            -1 if self.producer_epoch is None else self.producer_epoch,
        )


@dataclass(slots=True)
class Evidence:
    file: str
    line: int | None
    text: str
    byte: int | None = None

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "text": self.text}


@dataclass(slots=True)
class Location:
    """Where a config lint finding points: the line (and column) to change."""

    file: str
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column}


@dataclass(slots=True)
class Recommendation:
    side: str  # producer | broker | consumer | streams
    config: str
    value: str
    reason: str
    #: The key as the finding's own file must spell it, where that differs from Kafka's name
    #: (``properties.transaction.timeout.ms`` in a Flink table, ``KAFKA_…`` in a compose file).
    written: str = ""
    #: The file (and part of it) the change goes in, when the finding comes from a config file.
    where: str = ""

    @property
    def key(self) -> str:
        """What the user types: the file's spelling when known, else Kafka's name."""
        return self.written or self.config

    def to_json(self) -> dict:
        doc = {"side": self.side, "config": self.config, "value": self.value, "reason": self.reason}
        if self.written:
            doc["key_in_file"] = self.written
        if self.where:
            doc["file"] = self.where
        return doc


@dataclass(slots=True)
class Finding:
    rule: str
    category: str
    severity: str
    title: str
    message: str
    subject: Subject = field(default_factory=Subject)
    window_start: int | None = None  # epoch ms
    window_end: int | None = None
    evidence: list[Evidence] = field(default_factory=list)
    recommendations: list[Recommendation] = field(default_factory=list)
    runbook: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    caused_by: list[str] = field(default_factory=list)  # ids of findings this one is a consequence of
    id: str = ""  # stable within one report: "<rule>#<n>"
    location: Location | None = None  # config lint only: the line to change
    config: str | None = None  # config lint only: the key the finding is about
    #: From a rule marked ``normal_traffic``: the text report may collapse it (see ``report.triage``).
    #: Not part of the JSON schema: machine formats list every finding the same way.
    normal_traffic: bool = False

    def sort_key(self) -> tuple:
        return (
            -SEVERITY_RANK.get(self.severity, 0),
            self.rule,
            self.subject.sort_key(),
            self.window_start if self.window_start is not None else -1,
            self.message,
        )

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "rule": self.rule,
            "category": self.category,
            "severity": self.severity,
            "title": self.title,
            "message": self.message,
            "subject": self.subject.to_json(),
            "window": {"start": iso_time(self.window_start), "end": iso_time(self.window_end)},
            "evidence": [e.to_json() for e in self.evidence],
            "recommendations": [r.to_json() for r in self.recommendations],
            "runbook": list(self.runbook),
            "references": list(self.references),
            "caused_by": list(self.caused_by),
            "root_cause": not self.caused_by,
            **({"location": self.location.to_json(), "config": self.config} if self.location is not None else {}),
        }
