"""Human-readable report with rich: a summary line, findings by severity, evidence, fixes.

On a terminal each finding is a box at the terminal's width. Piped into a file, ``grep`` or a CI
log, there are no boxes and no hard wraps: one fact per line, evidence as ``file:line: text``,
as linters print (colour only when asked for).
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..findings import Finding, iso_time
from .model import SIDE_FILES, Report, properties_snippet
from .safe import cell, visible
from .triage import by_rule, collapsible, group_fix, in_triage_order, one_fix, statistics, subject_text, triage

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render_text(report: Report, out: TextIO, color: bool | None = None, width: int | None = None,
                boxes: bool | None = None, quiet: bool = False, stats_only: bool = False,
                show_all: bool = False) -> None:
    """``boxes`` (default: ``out`` is a terminal): findings in boxes at the width; else one line per fact.

    Every report opens with the triage summary (root causes, each with its fix and consequences);
    ``quiet`` prints only that, ``stats_only`` only the count of findings per rule. Info findings
    and warnings that describe normal traffic (``triage.collapsible``) are collapsed into one line
    each and a count per rule; ``show_all`` shows every finding in full.
    """
    terminal = hasattr(out, "isatty") and out.isatty()
    if boxes is None:
        boxes = terminal
    if not boxes:
        console = Console(file=out, force_terminal=bool(color), no_color=not color, highlight=False,
                          soft_wrap=True, width=1 << 16)
    else:
        console = Console(file=out, force_terminal=color, no_color=color is False,
                          width=width or (None if terminal else 120), highlight=False, soft_wrap=False)  # COLUMNS, else the terminal's
    if stats_only:
        _statistics(console, report)
        return
    collapsed = [] if show_all else collapsible(report.findings)
    if not boxes:
        _render_lines(report, console, quiet, collapsed)
        return
    counts = report.counts()
    stats = report.stats
    head = Text()
    if report.findings:
        head.append(f"{len(report.findings)} finding(s): ", style="bold")
        head.append(f"{counts['error']} error", style=STYLE["error"] if counts["error"] else "")
        head.append(", ")
        head.append(f"{counts['warning']} warning", style=STYLE["warning"] if counts["warning"] else "")
        if collapsed:
            head.append(f" ({len(collapsed)} normal traffic, collapsed: --all shows them)")
        head.append(f", {counts['info']} info")
    else:
        head.append("No findings.", style="bold green")
    if stats:
        head.append(
            f"  —  {stats.get('transactions', 0)} transactions on {stats.get('partitions', 0)} partitions "
            f"({stats.get('committed', 0)} committed, {stats.get('aborted', 0)} aborted, {stats.get('open', 0)} open), "
            f"{stats.get('transactional_ids', 0)} transactional ids"
        )
    console.print(head)
    _triage(console, report.findings, collapsed)
    if quiet:
        return
    _inputs(console, report)
    left_out = {id(f) for f in collapsed}
    ranked = [f for f in in_triage_order(report.findings, collapsed)
              if (show_all or f.severity != "info") and id(f) not in left_out]
    if ranked:
        console.print()
        console.rule(Text(f"Details ({len(ranked)}), root causes first", style="bold"), align="left")
        for finding in ranked:
            console.print(_finding(finding))
    if collapsed:
        console.print()
        console.rule(Text(f"WARNING, normal traffic ({len(collapsed)}): collapsed, --all shows each in full",
                          style=STYLE["warning"]), align="left")
        _brief_lines(console, collapsed, "warning")
    infos = [] if show_all else [f for f in report.findings if f.severity == "info"]
    if infos:
        console.print()
        console.rule(Text(f"INFO ({len(infos)})", style=STYLE["info"]), align="left")
        _brief_lines(console, infos, "info")
    all_recs = [r for f in report.findings for r in f.recommendations]
    if all_recs:
        console.print()
        console.rule(Text("Config changes", style="bold"), align="left")
        for side, lines in properties_snippet(all_recs).items():
            console.print(Text(f"# {SIDE_FILES.get(side, side)}", style="dim"))
            for line in lines:
                console.print(cell(line))
    for note in report.notes:
        console.print(cell(f"note: {note}", style="dim"))


MAX_LISTED_INPUTS = 12


def _inputs(console: Console, report: Report) -> None:
    """One row per input; past a dozen inputs, one row per kind and era plus the inputs with problems."""
    if not report.inputs:
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("input", "kind", "era", "lines", "skipped"):
        table.add_column(col, justify="right" if col in ("lines", "skipped") else "left", overflow="fold")
    rows = report.inputs
    if len(rows) > MAX_LISTED_INPUTS:
        groups: dict[tuple[str, str], list[dict]] = {}
        for item in rows:
            if not item.get("error") and not item.get("skipped") and not item.get("damage"):
                groups.setdefault((item.get("kind", ""), item.get("era", "")), []).append(item)
        for (kind, era), items in sorted(groups.items()):
            table.add_row(f"{len(items)} file{'' if len(items) == 1 else 's'}", cell(kind), cell(era),
                          str(sum(i.get("lines", 0) for i in items)), "0")
        rows = [item for item in rows if item.get("error") or item.get("skipped") or item.get("damage")]
    for item in rows:
        kind = item.get("error") or item.get("found") or item.get("kind", "")
        if item.get("damage") and not item.get("error"):
            kind += f" (damaged: {item['damage']})"
        table.add_row(cell(item["path"]), cell(kind), cell(item.get("era", "")), str(item.get("lines", "")),
                      str(item.get("skipped", "")))
    console.print(table)
    defaults = [c["key"] for c in report.config if c.get("default")]
    given = [f"{c['key']}={c['value']} ({c['source']})" for c in report.config if not c.get("default")]
    if given:
        console.print(cell("config: " + ", ".join(given), style="dim"))
    if defaults:
        console.print(Text("defaults assumed (pass --config to use yours): " + ", ".join(defaults), style="dim"))


def _brief_lines(console: Console, findings: list[Finding], severity: str) -> None:
    """Context, not diagnoses (info, normal traffic): one line each, and a count past five per rule."""
    for rule, group in by_rule(findings).items():
        for f in group[:5]:
            line = Text(f"  {rule} ", style=STYLE[severity])
            line.append(visible(f.message))
            console.print(line)
        if len(group) > 5:
            console.print(cell(f"  {rule} … and {len(group) - 5} more like these ({group[0].title})", style="dim"))


def _finding(f: Finding) -> Panel:
    parts: list = []
    subject = ", ".join(
        f"{k}={v}" for k, v in f.subject.to_json().items() if v is not None and v != ""
    )
    window = ""
    if f.window_start is not None or f.window_end is not None:
        window = f"{iso_time(f.window_start) or '?'} → {iso_time(f.window_end) or '?'}"
    meta = Text()
    meta.append(f"{f.category}", style="dim")
    if subject:
        meta.append(f"  {visible(subject)}")
    if window:
        meta.append(f"  [{window}]", style="dim")
    parts.append(meta)
    parts.append(cell(f.message))
    if f.caused_by:
        parts.append(Text("Consequence of " + ", ".join(f.caused_by) + " (fix that first)", style="bold"))
    if f.evidence:
        parts.append(Text("Evidence:", style="bold"))
        for ev in f.evidence:
            loc = f"{ev.file}:{ev.line}" if ev.line else ev.file
            line = Text("  ")
            line.append(visible(loc), style="dim")
            line.append("  " + visible(ev.text))
            parts.append(line)
    if f.recommendations:
        parts.append(Text("Fix:", style="bold"))
        for side, lines in properties_snippet(f.recommendations).items():
            parts.append(Text(f"  # {SIDE_FILES.get(side, side)}", style="dim"))
            for line in lines:
                parts.append(cell("  " + line))
        for rec in f.recommendations:
            parts.append(cell(f"  ({rec.key}: {rec.reason})", style="dim"))
    if f.runbook:
        parts.append(Text("Runbook:", style="bold"))
        for i, step in enumerate(f.runbook, 1):
            parts.append(cell(f"  {i}. {step}"))
    title = Text()
    title.append(f"{f.id or f.rule} ", style=STYLE.get(f.severity, ""))  # the id ``caused_by`` refers to
    title.append(visible(f.title), style="bold")
    return Panel(Group(*parts), title=title, title_align="left", border_style=STYLE.get(f.severity, ""), expand=True)


# ------------------------------------------------------------------------------------------
# Piped: one fact per line

def _triage(console: Console, findings: list[Finding], collapsed: list[Finding]) -> None:
    """One line per root cause (severity, id, subject, diagnosis, the fix), its consequences under it;
    then one line per rule of the collapsed normal-traffic warnings, with their count."""
    for cause in triage(findings, collapsed):
        f = cause.finding
        line = Text(f"{f.severity.upper()} ", style=STYLE.get(f.severity, ""))
        line.append(f"{f.id or f.rule} ", style=STYLE.get(f.severity, ""))
        subject = subject_text(f)
        line.append(visible(f"{subject}: " if subject else ""))
        line.append(visible(f.title), style="bold")
        fix = one_fix(f)
        if fix:
            line.append(visible(f"; fix: {fix}"))
        console.print(line)
        for c in cause.consequences:
            sub = subject_text(c)
            console.print(cell(f"    consequence {c.id or c.rule} {sub + ': ' if sub else ''}{c.title}", style="dim"))
    for rule, group in by_rule(collapsed).items():
        line = Text("WARNING ", style=STYLE["warning"])
        line.append(f"{rule} ×{len(group)} normal traffic: ", style=STYLE["warning"])
        line.append(visible(group[0].title), style="bold")
        fix = group_fix(group)
        if fix:
            line.append(visible(f"; fix: {fix}"))
        console.print(line)


def _statistics(console: Console, report: Report) -> None:
    """``--statistics``: how many findings each rule raised, most frequent first (as ruff prints it)."""
    rows = statistics(report.findings)
    width = max((len(str(n)) for n, *_ in rows), default=1)
    for n, rule, severity, title in rows:
        line = Text(f"{n:>{width}}  ")
        line.append(f"{rule}  ", style=STYLE.get(severity, ""))
        line.append(f"{severity:<7}  ")
        line.append(visible(title))
        console.print(line)


def _render_lines(report: Report, console: Console, quiet: bool = False, collapsed: list[Finding] = ()) -> None:
    """Piped: every finding as lines (for ``grep``); the summary counts normal-traffic warnings per rule."""
    counts = report.counts()
    stats = report.stats
    if report.findings:
        traffic = f" ({len(collapsed)} normal traffic)" if collapsed else ""
        head = (f"{len(report.findings)} finding(s): {counts['error']} error, {counts['warning']} warning{traffic}, "
                f"{counts['info']} info")
    else:
        head = "No findings."
    if stats:
        head += (f"; {stats.get('transactions', 0)} transactions on {stats.get('partitions', 0)} partitions "
                 f"({stats.get('committed', 0)} committed, {stats.get('aborted', 0)} aborted, {stats.get('open', 0)} open), "
                 f"{stats.get('transactional_ids', 0)} transactional ids")
    console.print(Text(head, style="bold"))
    _triage(console, report.findings, list(collapsed))
    if quiet:
        return
    for item in report.inputs:
        kind = item.get("error") or item.get("found") or item.get("kind", "")
        if item.get("damage") and not item.get("error"):
            kind += f" (damaged: {item['damage']})"
        era = f", era {item['era']}" if item.get("era") else ""
        console.print(cell(f"input: {item['path']}: {kind}{era}, {item.get('lines', 0)} lines, "
                           f"{item.get('skipped', 0)} skipped", style="dim"))
    given = [f"{c['key']}={c['value']} ({c['source']})" for c in report.config if not c.get("default")]
    defaults = [c["key"] for c in report.config if c.get("default")]
    if given:
        console.print(cell("config: " + ", ".join(given), style="dim"))
    if defaults:
        console.print(cell("defaults assumed (pass --config to use yours): " + ", ".join(defaults), style="dim"))
    for f in in_triage_order(report.findings, list(collapsed)):  # root causes first, then consequences, then the rest
        _finding_lines(console, f)
    all_recs = [r for f in report.findings for r in f.recommendations]
    if all_recs:
        for side, lines in properties_snippet(all_recs).items():
            for line in lines:
                console.print(cell(f"config change ({SIDE_FILES.get(side, side)}): {line}"))
    for note in report.notes:
        console.print(cell(f"note: {note}", style="dim"))


def _finding_lines(console: Console, f: Finding) -> None:
    """A finding as lines that each stand alone: what ``grep RULE`` or ``grep file:line`` should find."""
    ref = f.id or f.rule  # ``FEN002#1``: what ``caused_by`` names
    line = Text(f"{f.severity}: ", style=STYLE.get(f.severity, ""))
    line.append(f"{ref} ", style=STYLE.get(f.severity, ""))
    line.append(visible(f.title), style="bold")
    console.print(line)
    subject = ", ".join(f"{k}={v}" for k, v in f.subject.to_json().items() if v is not None and v != "")
    window = ""
    if f.window_start is not None or f.window_end is not None:
        window = f" [{iso_time(f.window_start) or '?'} → {iso_time(f.window_end) or '?'}]"
    console.print(cell(f"  {f.category}" + (f"  {subject}" if subject else "") + window, style="dim"))
    console.print(cell("  " + " ".join(str(f.message).split())))
    if f.caused_by:
        console.print(cell("  consequence of " + ", ".join(f.caused_by) + " (fix that first)"))
    for ev in f.evidence:
        loc = f"{ev.file}:{ev.line}" if ev.line else ev.file
        console.print(cell(f"  {loc}: {ev.text}"))
    for side, lines in properties_snippet(f.recommendations).items() if f.recommendations else ():
        for text in lines:
            console.print(cell(f"  fix ({SIDE_FILES.get(side, side)}): {text}"))
    for rec in f.recommendations:
        console.print(cell(f"  why {rec.key}: {rec.reason}", style="dim"))
    for i, step in enumerate(f.runbook, 1):
        console.print(cell(f"  runbook {i}: {step}"))
