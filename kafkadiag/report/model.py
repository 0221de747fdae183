"""What every renderer receives: findings plus the context a reader of the report needs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import __version__
from ..findings import SEVERITY_RANK, Finding, Recommendation

if TYPE_CHECKING:
    from .timeline_model import Timelines


@dataclass
class Report:
    command: str  # "analyze" or "lint"
    findings: list[Finding]
    inputs: list[dict] = field(default_factory=list)
    config: list[dict] = field(default_factory=list)
    stats: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The timelines the HTML and Markdown reports show; filled only for those formats (not in JSON).
    timelines: "Timelines | None" = None

    def counts(self) -> dict[str, int]:
        c = Counter(f.severity for f in self.findings)
        return {s: c.get(s, 0) for s in ("error", "warning", "info")}

    def summary(self) -> dict[str, object]:
        return {"findings": len(self.findings), **self.counts(), **self.stats}

    def to_json(self, findings: list | None = None) -> dict:
        """The JSON document; ``findings`` in place of the findings' own (a writer streams them)."""
        return {
            "tool": {"name": "kafkadiag", "version": __version__},
            "command": self.command,
            "summary": self.summary(),
            "findings": [f.to_json() for f in self.findings] if findings is None else findings,
            "inputs": self.inputs,
            "config": self.config,
            "notes": self.notes,
        }


def at_or_above(findings: list[Finding], threshold: str) -> list[Finding]:
    rank = SEVERITY_RANK[threshold]
    return [f for f in findings if SEVERITY_RANK.get(f.severity, 0) >= rank]


def properties_snippet(recommendations: list[Recommendation]) -> dict[str, list[str]]:
    """Recommendations as `key=value` lines per side (or per file, for a config file's finding),
    de-duplicated, highest value kept per key."""
    per_side: dict[str, dict[str, str]] = {}
    for rec in recommendations:
        side = per_side.setdefault(rec.where or rec.side, {})
        old = side.get(rec.key)
        if old is None or _num(rec.value) > _num(old):
            side[rec.key] = rec.value
    return {side: [f"{k}={v}" for k, v in sorted(values.items())] for side, values in sorted(per_side.items())}


def _num(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return float("-inf")


SIDE_FILES = {
    "producer": "producer config",
    "broker": "server.properties (every broker; restart needed)",
    "consumer": "consumer config",
    "streams": "Kafka Streams config",
}
