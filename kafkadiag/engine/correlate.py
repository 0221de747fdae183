"""One incident, one story: merge findings that describe the same event, then link causes.

An incident usually shows as a chain: request timeouts make the transaction outlive its
timeout, the coordinator aborts it and bumps the epoch, the producer gets ProducerFencedException,
and the application then misuses the dead producer. Each step is a real finding, but the on-call
engineer needs to know which one to fix. Two passes over the finished findings:

1. **merge**: findings of the same category about the same subject and time (e.g. the coordinator
   record of a fence and the client's ProducerFencedException) become one finding with the
   evidence of both;
2. **link**: a finding whose category is a known consequence of another finding's category, for
   the same transactional.id / producer id / client, starting no later than it and within a
   horizon, gets ``caused_by``; findings with no cause among them are root causes.
"""

from __future__ import annotations

from ..findings import SEVERITY_RANK, Finding

#: cause category -> categories it can lead to (the protocol's known causal edges).
CAUSES: dict[str, tuple[str, ...]] = {
    "coordinator-unavailable": ("request-timeout", "transaction-timeout", "concurrent-transactions", "hanging-transaction"),
    "request-timeout": ("transaction-timeout", "unresolved-sequences", "out-of-order-sequence"),
    "transaction-timeout": ("fencing", "invalid-state-transition", "config-misuse"),
    "expired-transactional-id": ("fencing", "unknown-producer-id", "config-misuse", "invalid-state-transition"),
    "fencing": ("config-misuse", "invalid-state-transition", "hanging-transaction"),
    "unknown-producer-id": ("out-of-order-sequence", "unresolved-sequences"),
    "unresolved-sequences": ("config-misuse",),
    "invalid-txn-timeout-config": ("config-misuse",),
    "authorization": ("config-misuse", "request-timeout"),
}

#: How far back a cause may lie before its consequence.
HORIZON_MS = 30 * 60 * 1000
#: Findings of the same category this close in time about the same subject are one incident.
MERGE_WINDOW_MS = 2 * 60 * 1000
MAX_EVIDENCE = 8


def _identity(f: Finding) -> set[tuple[str, object]]:
    s = f.subject
    ids: set[tuple[str, object]] = set()
    if s.transactional_id:
        ids.add(("tid", s.transactional_id))
    if s.producer_id is not None and s.producer_id >= 0:
        ids.add(("pid", s.producer_id))
    return ids


def _start(f: Finding) -> int | None:
    return f.window_start if f.window_start is not None else f.window_end


def _end(f: Finding) -> int | None:
    return f.window_end if f.window_end is not None else f.window_start


def _close_in_time(a: Finding, b: Finding, window: int) -> bool:
    a0, a1, b0, b1 = _start(a), _end(a), _start(b), _end(b)
    if None in (a0, a1, b0, b1):
        return True  # no time on one side: the shared subject decides
    return a0 - window <= b1 and b0 - window <= a1  # type: ignore[operator]


#: effect category -> the categories that can cause it.
CAUSED_BY: dict[str, tuple[str, ...]] = {}
for _cause, _effects in CAUSES.items():
    for _effect in _effects:
        CAUSED_BY[_effect] = (*CAUSED_BY.get(_effect, ()), _cause)

Index = dict[tuple[str, object, str], list[int]]


def _by_identity(findings: list[Finding]) -> Index:
    """Positions of the findings that carry each transactional.id / producer id, per category."""
    index: Index = {}
    for i, f in enumerate(findings):
        for key in _identity(f):
            index.setdefault((*key, f.category), []).append(i)
    return index


def _sharing(index: Index, f: Finding, categories: tuple[str, ...]) -> list[int]:
    """Positions of the findings of ``categories`` that share a subject with ``f``, in order.

    A pair shares a subject or is never related, and only some categories can be related, so
    only these are compared: one producer id in thousands of findings (incident-heavy inputs,
    every partition of a topic) must not make correlation quadratic.
    """
    found: set[int] = set()
    for key in _identity(f):
        for category in categories:
            found.update(index.get((*key, category), ()))
    return sorted(found)


def merge_same_incident(findings: list[Finding], from_logs: set[str] = frozenset()) -> list[Finding]:
    """Fold a log finding into the dump finding of the same category, subject and moment.

    ``from_logs`` names the rules that read log events; only pairs with one log-based and one
    dump-based finding are merged (two dump findings are two incidents, e.g. two partitions).
    """
    kept: list[Finding] = []
    # Only a log-based and a dump-based finding of one category merge: index by both, so that
    # thousands of findings of one producer id are not compared pairwise.
    index: Index = {}

    def slot(category: str, from_log: bool) -> str:
        return f"{category}/{'log' if from_log else 'dump'}"

    for f in sorted(findings, key=lambda x: (x.rule in from_logs, -SEVERITY_RANK.get(x.severity, 0), x.rule)):
        target = None
        if f.severity != "info":
            target = next(
                (kept[i] for i in _sharing(index, f, (slot(f.category, f.rule not in from_logs),))
                 if _close_in_time(kept[i], f, MERGE_WINDOW_MS)),
                None,
            )
        if target is None:
            for key in _identity(f):
                index.setdefault((*key, slot(f.category, f.rule in from_logs)), []).append(len(kept))
            kept.append(f)
            continue
        before = _identity(target)
        seen = {(e.file, e.line) for e in target.evidence}
        for ev in f.evidence:
            if (ev.file, ev.line) not in seen and len(target.evidence) < MAX_EVIDENCE:
                target.evidence.append(ev)
        target.message += f" Also seen as {f.rule}: {f.message}"
        # New lists, not in place: a rule's findings may share one runbook list (``evaluate``).
        target.runbook = target.runbook + [step for step in f.runbook if step not in target.runbook]
        target.recommendations = target.recommendations + [r for r in f.recommendations if r not in target.recommendations]
        for attr in ("transactional_id", "producer_id", "producer_epoch", "topic", "partition"):
            if getattr(target.subject, attr) is None and getattr(f.subject, attr) is not None:
                setattr(target.subject, attr, getattr(f.subject, attr))
        if f.window_start is not None and (target.window_start is None or f.window_start < target.window_start):
            target.window_start = f.window_start
        if f.window_end is not None and (target.window_end is None or f.window_end > target.window_end):
            target.window_end = f.window_end
        position = next(i for i, k in enumerate(kept) if k is target) if _identity(target) - before else -1
        for key in _identity(target) - before:  # the merged subject gained an id: findable by it too
            index.setdefault((*key, slot(target.category, target.rule in from_logs)), []).append(position)
    return sorted(kept, key=Finding.sort_key)


def link_causes(findings: list[Finding]) -> None:
    """Set ``caused_by`` on findings that are known consequences of an earlier finding."""
    index = _by_identity(findings)
    for effect in findings:
        if effect.severity == "info":
            continue
        for i in _sharing(index, effect, CAUSED_BY.get(effect.category, ())):
            cause = findings[i]
            if cause is effect or cause.severity == "info" or effect.category not in CAUSES.get(cause.category, ()):
                continue
            c0, e0, e1 = _start(cause), _start(effect), _end(effect)
            if c0 is not None and e1 is not None and not (e1 - HORIZON_MS <= c0 <= e1):
                continue
            if c0 is not None and e0 is not None and c0 > e0 and cause.category in CAUSES.get(effect.category, ()):
                continue  # both directions are possible: time order decides
            if cause.id not in effect.caused_by:
                effect.caused_by.append(cause.id)


#: Categories a transactional producer can only show once InitProducerId accepted its timeout.
_INITIALISED = frozenset({"fencing", "out-of-order-sequence", "unknown-producer-id", "transaction-timeout",
                          "hanging-transaction", "unresolved-sequences", "concurrent-transactions", "expired-transactional-id"})


def drop_contradicted(findings: list[Finding]) -> list[Finding]:
    """Without a config finding that the evidence of the same run refutes.

    A configuration saying the producer's transaction timeout is above the broker's maximum (read
    from a file, or assumed from the broker's default) predicts that InitProducerId fails and the
    producer never starts. When the same run shows producers of that transactional.id (or Flink
    prefix) running transactions, the broker accepted the timeout: its maximum is not the one
    assumed (another broker setting, or Redpanda).
    """
    running = {f.subject.transactional_id for f in findings
               if f.category in _INITIALISED and f.location is None and f.subject.transactional_id}
    if not running:
        return findings

    def refuted(f: Finding) -> bool:
        tid = f.subject.transactional_id
        return (f.category == "invalid-txn-timeout-config" and f.location is not None and bool(tid)
                and any(r == tid or r.startswith(tid) for r in running))

    return [f for f in findings if not refuted(f)]


def correlate(findings: list[Finding], from_logs: set[str] = frozenset()) -> list[Finding]:
    """Merge duplicates of one incident, renumber, link causes; returns the final list."""
    merged = merge_same_incident(drop_contradicted(findings), from_logs)
    counters: dict[str, int] = {}
    for f in merged:
        counters[f.rule] = counters.get(f.rule, 0) + 1
        f.id = f"{f.rule}#{counters[f.rule]}"
        f.caused_by = []
    link_causes(merged)
    return merged
