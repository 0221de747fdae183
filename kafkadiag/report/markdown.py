"""Markdown report for incident tickets: findings with evidence blocks and config snippets.

It reads as the text report does: the incident summary first (each root cause with its one fix
and its consequences under it), then the findings in that order, each headed by its full id so
that "consequence of FEN002#1" can be followed; info findings and warnings that describe normal
traffic are folded into a ``<details>`` block at the end.

Everything from inputs and rule files is escaped for where it lands: prose gets its Markdown and
HTML characters escaped (a ``<script>`` in a log line stays text), code spans and fenced blocks
use a fence longer than any backtick run inside them, and control characters are shown as ``\\xNN``.
"""

from __future__ import annotations

import re
from typing import TextIO

from ..findings import iso_time
from .model import SIDE_FILES, Report, properties_snippet
from .safe import visible
from .timeline_model import Collapsed, Timelines, compact_rows, short_time
from .triage import by_rule, collapsible, group_fix, in_triage_order, one_fix, subject_text, triage

_PROSE_SPECIAL = re.compile(r"([\\`*_\[\]#|~])")
_BACKTICKS = re.compile(r"`+")


def prose(text: object) -> str:
    """Text that renders as itself: HTML and Markdown specials escaped, one line."""
    s = visible(text).replace("\n", " ")
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _PROSE_SPECIAL.sub(r"\\\1", s)


def _fence(text: str, least: int) -> str:
    return "`" * max(least, max((len(m) for m in _BACKTICKS.findall(text)), default=0) + 1)


def code(text: object) -> str:
    """An inline code span that no backtick inside can close early."""
    s = visible(text).replace("\n", " ")
    fence = _fence(s, 1)
    pad = " " if s.startswith(("`", " ")) or s.endswith(("`", " ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def block(lines: list[str], info: str = "") -> str:
    """A fenced code block holding ``lines`` verbatim (controls made visible)."""
    body = "\n".join(visible(line) for line in lines)
    fence = _fence(body, 3)
    return f"{fence}{info}\n{body}\n{fence}\n\n"


def render_markdown(report: Report, out: TextIO) -> None:
    counts = report.counts()
    out.write("# kafkadiag report\n\n")
    out.write(f"**{len(report.findings)} finding(s)**: {counts['error']} error, {counts['warning']} warning, {counts['info']} info\n\n")
    collapsed = collapsible(report.findings)
    _summary(report, collapsed, out)
    folded = {id(f) for f in collapsed} | {id(f) for f in report.findings if f.severity == "info"}
    ranked = in_triage_order(report.findings, collapsed)
    for f in (f for f in ranked if id(f) not in folded):
        _finding(f, out)
    rest = [f for f in ranked if id(f) in folded]
    if rest:
        out.write(f"<details><summary>{len(rest)} more finding(s): info and normal traffic</summary>\n\n")
        for f in rest:
            _finding(f, out, level="###")
        out.write("</details>\n\n")
    if report.inputs:
        out.write("## Inputs\n\n| input | kind | era | lines | skipped |\n|---|---|---|---:|---:|\n")
        for item in report.inputs:
            out.write(f"| {prose(item['path'])} | {prose(item.get('error') or item.get('found') or item.get('kind', ''))} | {prose(item.get('era', ''))} "
                      f"| {item.get('lines', '')} | {item.get('skipped', '')} |\n")
        out.write("\n")
    if report.timelines is not None:
        render_timeline_tables(report.timelines, out)


def _anchor(f) -> str:
    """The heading anchor GitHub and GitLab derive from ``f``'s heading (id first: ``fen002-1-...``)."""
    return re.sub(r"[^a-z0-9 -]", "", f"{f.severity} {f.id or f.rule} {f.title}".lower()).replace(" ", "-")


def _summary(report: Report, collapsed: list, out: TextIO) -> None:
    """Root causes first, each with its one fix, consequences indented under it (as the text report)."""
    causes = triage(report.findings, collapsed)
    if not causes and not collapsed:
        return
    out.write("## Root causes first\n\n")
    for cause in causes:
        f = cause.finding
        subject = subject_text(f)
        line = f"- **{f.severity.upper()}** [{prose(f.id or f.rule)}](#{_anchor(f)}) "
        line += (prose(subject) + ": " if subject else "") + f"**{prose(f.title)}**"
        fix = one_fix(f)
        out.write(line + (f" — fix: {code(fix)}" if fix else "") + "\n")
        for c in cause.consequences:
            sub = subject_text(c)
            out.write(f"  - consequence [{prose(c.id or c.rule)}](#{_anchor(c)}) "
                      + (prose(sub) + ": " if sub else "") + prose(c.title) + "\n")
    for rule, group in by_rule(collapsed).items():
        fix = group_fix(group)
        out.write(f"- **WARNING** {prose(rule)} ×{len(group)} normal traffic: {prose(group[0].title)}"
                  + (f" — fix: {code(fix)}" if fix else "") + "\n")
    out.write("\n")


def _finding(f, out: TextIO, level: str = "##") -> None:
    out.write(f"{level} {f.severity.upper()} {prose(f.id or f.rule)}: {prose(f.title)}\n\n")
    subject = ", ".join(code(f"{k}={v}") for k, v in f.subject.to_json().items() if v not in (None, ""))
    if subject:
        out.write(f"*{prose(f.category)}* — {subject}")
    if f.window_start is not None or f.window_end is not None:
        out.write(f" — {iso_time(f.window_start) or '?'} → {iso_time(f.window_end) or '?'}")
    out.write("\n\n" + prose(f.message) + "\n\n")
    if f.caused_by:
        out.write("**Consequence of** " + ", ".join(prose(c) for c in f.caused_by) + " (fix that first).\n\n")
    if f.evidence:
        out.write("Evidence:\n\n" + block([f"{ev.file}:{ev.line or '?'}: {ev.text}" for ev in f.evidence]))
    if f.recommendations:
        snippet = [line for side, lines in properties_snippet(f.recommendations).items()
                   for line in [f"# {SIDE_FILES.get(side, side)}", *lines]]
        out.write("Fix:\n\n" + block(snippet, "properties"))
        for rec in f.recommendations:
            out.write(f"- {code(rec.key)}: {prose(rec.reason)}\n")
        out.write("\n")
    if f.runbook:
        out.write("Runbook:\n\n")
        for i, step in enumerate(f.runbook, 1):
            out.write(f"{i}. {prose(step)}\n")
        out.write("\n")


def render_timeline_tables(timelines: Timelines, out: TextIO) -> None:
    """The timelines of the HTML pictures as compact tables: runs of healthy transactions are one row."""
    out.write("## Timelines\n\n")
    if not timelines.items:
        out.write("No events to show.\n\n")
    for t in timelines.items:
        moments = ", ".join(m.finding_id for m in t.moments)
        out.write(f"### {prose(t.key)}" + (f" ({prose(moments)})" if moments else "") + "\n\n")
        out.write("| time | lane | event | where |\n|---|---|---|---|\n")
        for row in compact_rows(t):
            if isinstance(row, Collapsed):
                span = f"{short_time(row.first.time)} … {short_time(row.last.time)}"
                out.write(f"| {span} | | *{prose(row.text())}* | |\n")
            else:
                mark = "**" if any(m.covers(row.time) for m in t.moments) else ""
                where = code(row.where) if row.where else ""
                out.write(f"| {mark}{short_time(row.time)}{mark} | {prose(row.lane)} | {prose(row.text)} | {where} |\n")
        if t.more:
            out.write(f"\n{t.more} more event(s) not shown (`kafkadiag timeline -t ID --limit N` shows them).\n")
        out.write("\n")
    if timelines.without_events:
        out.write("No timeline for " + ", ".join(prose(k) for k in timelines.without_events[:20])
                  + (", …" if len(timelines.without_events) > 20 else "")
                  + ": the inputs hold no coordinator record, transaction or keyed log event of them.\n\n")
    if timelines.left_out:
        shown = ", ".join(prose(k) for k in timelines.left_out[:20]) + (", …" if len(timelines.left_out) > 20 else "")
        out.write(f"{len(timelines.left_out)} more id(s) with findings have no timeline here: {shown}.\n\n")
