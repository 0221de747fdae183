"""Timelines as the incident report carries them: per transactional.id or producer, plain data.

``engine.timeline.build_timeline`` yields one frame of events for every key; the HTML and Markdown
reports want a few of them (the ids the findings are about, in triage order), each event placed
on a lane (the coordinator, one lane per topic-partition, the client, the broker) and each finding
about the id as a *moment* (the window of the fence, timeout or expiry). Renderers get these
dataclasses, not the frame, so they need neither pandas nor the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from ..findings import Finding, iso_time
from .triage import in_triage_order

if TYPE_CHECKING:  # pandas is imported by the caller that built the frame
    import pandas as pd

#: Pictures per report: past this, the ids left out are named, not drawn.
MAX_TIMELINES = 12
#: Events per picture (the earliest ones; the rest are counted).
MAX_EVENTS = 400

#: Events of a healthy transaction: collapsed in the compact (Markdown) table.
ROUTINE = frozenset({
    ("coordinator", "Empty"), ("coordinator", "Ongoing"), ("coordinator", "PrepareCommit"),
    ("coordinator", "CompleteCommit"), ("data", "first-write"), ("data", "COMMIT"),
})


@dataclass(frozen=True)
class TimelineEvent:
    time: int | None  # epoch ms; None when the input has no time for it
    source: str  # coordinator | data | client | broker | ...
    kind: str  # coordinator state, first-write, COMMIT, ABORT, still-open, error code or log level
    lane: str  # coordinator, a topic-partition, client, broker
    text: str
    where: str  # file:line of the evidence, or ''

    @property
    def routine(self) -> bool:
        return (self.source, self.kind) in ROUTINE


@dataclass(frozen=True)
class Moment:
    """A finding about this id, drawn where it happened (its window)."""

    finding_id: str
    severity: str
    title: str
    start: int | None
    end: int | None

    def covers(self, t: int | None) -> bool:
        lo = self.start if self.start is not None else self.end
        hi = self.end if self.end is not None else self.start
        return t is not None and lo is not None and hi is not None and lo <= t <= hi


@dataclass
class Timeline:
    key: str  # the transactional.id, or ``producer <id>``
    events: list[TimelineEvent]
    more: int = 0  # events past MAX_EVENTS, not shown
    moments: list[Moment] = field(default_factory=list)

    @property
    def lanes(self) -> list[str]:
        """Coordinator first, then the partitions in name order, then clients, brokers and the rest."""
        present = {e.lane for e in self.events}
        data = sorted({e.lane for e in self.events if e.source == "data"}, key=_partition_order)
        fixed = [lane for lane in ("coordinator",) if lane in present]
        rest = sorted(present - set(fixed) - set(data), key=lambda lane: (lane not in ("client", "broker"), lane))
        return fixed + data + rest


@dataclass
class Timelines:
    items: list[Timeline] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # keys with findings beyond MAX_TIMELINES
    without_events: list[str] = field(default_factory=list)  # keys with findings but no event in the inputs
    key_of: dict[str, str] = field(default_factory=dict)  # finding id -> the key of its timeline


def _partition_order(lane: str) -> tuple[str, int]:
    topic, _, number = lane.rpartition("-")
    return (topic, int(number)) if number.isdigit() else (lane, -1)


def finding_key(f: Finding) -> str:
    """The timeline key a finding is about: its transactional.id, else ``producer <id>``, else ''."""
    if f.subject.transactional_id:
        return f.subject.transactional_id
    if f.subject.producer_id is not None:
        return f"producer {f.subject.producer_id}"
    return ""


def evidence_index(events: "pd.DataFrame | None", files: list[str]) -> dict[tuple[str, int], str]:
    """``(file, line) -> key`` of every keyed event: a finding with no subject (a log signature) gets
    the key of the events its evidence lines are."""
    if events is None or events.empty:
        return {}
    index: dict[tuple[str, int], str] = {}
    for file_id, line, key in zip(events["file_id"].tolist(), events["line"].tolist(), events["key"].tolist()):
        if 0 <= file_id < len(files) and line > 0:
            index.setdefault((files[file_id], int(line)), key)
    return index


def finding_keys(findings: Iterable[Finding], by_evidence: dict[tuple[str, int], str] | None = None) -> dict[str, str]:
    """Finding id -> timeline key: from the subject, else from the evidence lines when they are events of one key.

    A finding whose evidence spans several ids (say, ids generated per start) has no single picture.
    """
    out: dict[str, str] = {}
    for f in findings:
        key = finding_key(f)
        if not key and by_evidence:
            seen = {by_evidence[(e.file, e.line)] for e in f.evidence if e.line and (e.file, e.line) in by_evidence}
            key = seen.pop() if len(seen) == 1 else ""
        if key:
            out[f.id or f.rule] = key
    return out


def keys_in_triage_order(findings: Iterable[Finding], key_of: dict[str, str] | None = None) -> list[str]:
    """Keys of the error and warning findings, root causes first, each once."""
    key_of = finding_keys(findings) if key_of is None else key_of
    keys: list[str] = []
    for f in in_triage_order(list(findings)):
        key = key_of.get(f.id or f.rule, "")
        if f.severity in ("error", "warning") and key and key not in keys:
            keys.append(key)
    return keys


def _lane(source: str, topic: str, partition: int) -> str:
    if source == "data":
        return f"{topic}-{partition}" if topic else "data"
    return source or "log"


def _events(group: "pd.DataFrame", files: list[str]) -> list[TimelineEvent]:
    out: list[TimelineEvent] = []
    for e in group.itertuples(index=False):
        file_id = int(e.file_id)
        where = f"{files[file_id]}:{int(e.line)}" if 0 <= file_id < len(files) and e.line > 0 else ""
        out.append(TimelineEvent(
            time=int(e.time) if e.time >= 0 else None, source=str(e.source), kind=str(e.kind),
            lane=_lane(str(e.source), str(e.topic or ""), int(e.partition)), text=str(e.text), where=where,
        ))
    return out


def _moments(findings: list[Finding], key_of: dict[str, str], key: str) -> list[Moment]:
    return [Moment(f.id or f.rule, f.severity, f.title, f.window_start, f.window_end)
            for f in findings if f.severity in ("error", "warning") and key_of.get(f.id or f.rule) == key]


def timelines_for(keys: list[str], events: "pd.DataFrame | None", files: list[str], findings: list[Finding],
                  key_of: dict[str, str] | None = None, max_timelines: int = MAX_TIMELINES,
                  max_events: int = MAX_EVENTS) -> Timelines:
    """One :class:`Timeline` per key that has events, in the order of ``keys``, at most ``max_timelines``.

    ``events`` is ``build_timeline``'s frame; keys with no event (an idempotent producer's sequence
    finding: the timeline follows transactions) are listed in ``without_events``, keys past the
    cap in ``left_out``.
    """
    key_of = finding_keys(findings) if key_of is None else key_of
    out = Timelines(key_of=key_of)
    groups = {} if events is None or events.empty else dict(tuple(events.groupby("key", sort=False)))
    for key in keys:
        group = groups.get(key)
        if group is None:
            out.without_events.append(key)
            continue
        if len(out.items) >= max_timelines:
            out.left_out.append(key)
            continue
        out.items.append(Timeline(key, _events(group.head(max_events), files), max(0, len(group) - max_events),
                                  _moments(findings, key_of, key)))
    return out


@dataclass(frozen=True)
class Collapsed:
    """A run of routine events (healthy transactions) shown as one row of the compact table."""

    first: TimelineEvent
    last: TimelineEvent
    count: int
    commits: int
    lanes: tuple[str, ...]

    def text(self) -> str:
        where = ", ".join(self.lanes)
        return f"{self.count} routine events: {self.commits} COMMIT marker(s)" + (f" on {where}" if where else "")


#: Shorter runs of routine events stay as they are.
COLLAPSE_AT = 4


def _unfinished_first_writes(t: Timeline) -> set[int]:
    """Positions of first writes whose transaction did not end in a COMMIT (aborted, still open, no marker)."""
    pending: dict[str, int] = {}
    out: set[int] = set()
    for i, e in enumerate(t.events):
        if e.source != "data":
            continue
        if e.kind == "first-write":
            if e.lane in pending:
                out.add(pending[e.lane])
            pending[e.lane] = i
        elif e.lane in pending:
            start = pending.pop(e.lane)
            if e.kind != "COMMIT":
                out.add(start)
    return out | set(pending.values())


def compact_rows(t: Timeline) -> list[TimelineEvent | Collapsed]:
    """Every event, except runs of routine ones, which become one row each.

    Kept as they are: events in a finding's window, and the first write of every transaction that
    did not commit (where a hanging or aborted transaction began).
    """
    rows: list[TimelineEvent | Collapsed] = []
    keep = _unfinished_first_writes(t)
    run: list[TimelineEvent] = []

    def flush() -> None:
        if len(run) >= COLLAPSE_AT:
            lanes = tuple(sorted({e.lane for e in run if e.source == "data"}, key=_partition_order))
            commits = sum(1 for e in run if e.kind == "COMMIT")
            rows.append(Collapsed(run[0], run[-1], len(run), commits, lanes))
        else:
            rows.extend(run)
        run.clear()

    for i, e in enumerate(t.events):
        if e.routine and i not in keep and not any(m.covers(e.time) for m in t.moments):
            run.append(e)
            continue
        flush()
        rows.append(e)
    flush()
    return rows


def short_time(ms: int | None) -> str:
    """``2020-03-24T02:50:17.053Z``, or ``(no time)``."""
    return iso_time(ms) or "(no time)"
