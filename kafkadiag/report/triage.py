"""Root causes first: the short incident summary every text report opens with.

Correlation (``engine.correlate``) marks a finding that is a known consequence of another with
``caused_by``. The on-call reader wants the causes, each with its one fix, and what follows from
each under it, before any detail: a root cause is an error or warning caused by nothing in the
report; its consequences are the findings that name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding
from .model import properties_snippet

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass
class Cause:
    finding: Finding
    consequences: list[Finding] = field(default_factory=list)


def collapsible(findings: list[Finding]) -> list[Finding]:
    """The warnings the text report collapses like info: normal traffic that is part of no incident.

    A finding of a rule marked ``normal_traffic`` (rule data, reviewed like code) is collapsed
    unless correlation tied it to another finding of the report, as a consequence (``caused_by``)
    or as a cause some finding names: then it is part of an incident and is shown in full.
    """
    named = {c for f in findings for c in f.caused_by}
    return [f for f in findings
            if f.severity == "warning" and f.normal_traffic and not f.caused_by and f.id not in named]


def triage(findings: list[Finding], collapsed: list[Finding] | None = None) -> list[Cause]:
    """Errors and warnings as root causes (by severity, then report order), consequences under each.

    A finding whose causes are all absent from the report is a root cause itself; one with several
    causes is listed under the first. ``collapsed`` findings are left out (listed per rule instead).
    """
    left_out = {id(f) for f in collapsed or ()}
    ranked = [f for f in findings if f.severity in ("error", "warning") and id(f) not in left_out]
    ids = {f.id for f in ranked if f.id}
    causes = [Cause(f) for f in ranked if not any(c in ids for c in f.caused_by)]
    by_id = {c.finding.id: c for c in causes if c.finding.id}
    for f in ranked:
        known = [c for c in f.caused_by if c in by_id]
        if known and f not in (c.finding for c in causes):
            by_id[known[0]].consequences.append(f)
    causes.sort(key=lambda c: SEVERITY_ORDER.get(c.finding.severity, 3))  # stable: report order within a severity
    return causes


def in_triage_order(findings: list[Finding], collapsed: list[Finding] | None = None) -> list[Finding]:
    """Errors and warnings as the summary lists them (each cause, then its consequences), then the rest."""
    out: list[Finding] = []
    for cause in triage(findings, collapsed):
        out.append(cause.finding)
        out.extend(cause.consequences)
    seen = {id(f) for f in out}
    return out + [f for f in findings if id(f) not in seen]


def one_fix(f: Finding) -> str:
    """The first recommendation as ``key=value (side)``; '' when the finding recommends nothing."""
    if not f.recommendations:
        return ""
    rec = f.recommendations[0]
    return f"{rec.key}={rec.value} ({rec.side})"


def by_rule(findings: list[Finding]) -> dict[str, list[Finding]]:
    """Findings per rule id, rules in order of first appearance."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.rule, []).append(f)
    return groups


def group_fix(findings: list[Finding]) -> str:
    """The fix of a group of findings of one rule: its first key with the highest value any of them recommends."""
    recs = [r for f in findings for r in f.recommendations]
    if not recs:
        return ""
    side, lines = next(iter(properties_snippet([r for r in recs if r.config == recs[0].config]).items()))
    return f"{lines[0]} ({side})"


def subject_text(f: Finding) -> str:
    """The finding's subject in a few words: the transactional id, else the producer or the topic-partition."""
    s = f.subject.to_json()
    if s.get("transactional_id"):
        return f"transactional.id {s['transactional_id']}"
    if s.get("producer_id") is not None:
        return f"producer id {s['producer_id']}"
    if s.get("topic"):
        return f"{s['topic']}-{s['partition']}" if s.get("partition") is not None else str(s["topic"])
    return ""


def statistics(findings: list[Finding]) -> list[tuple[int, str, str, str]]:
    """``(count, rule, severity, title)`` per rule, most frequent first (``--statistics``)."""
    counts: dict[str, list] = {}
    for f in findings:
        entry = counts.setdefault(f.rule, [0, f.severity, f.title])
        entry[0] += 1
    return sorted(((n, rule, sev, title) for rule, (n, sev, title) in counts.items()),
                  key=lambda row: (-row[0], SEVERITY_ORDER.get(row[2], 3), row[1]))
