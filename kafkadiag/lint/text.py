"""Linter-style text: one ``file:line:col: ID severity message`` line per finding.

The same shape as ruff or hadolint so editors and CI log viewers link the locations; colours on
a terminal, plain text when piped. ``[*]`` marks findings ``--fix`` can change.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text

from ..findings import Finding
from ..report.model import Report
from ..report.safe import cell, visible

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def location_text(f: Finding) -> str:
    if f.location is not None:
        return f"{f.location.file}:{f.location.line or 1}:{f.location.column or 1}"
    if f.evidence:
        ev = f.evidence[0]
        return f"{ev.file}:{ev.line}" if ev.line else ev.file
    return "-"


def render_lint_text(report: Report, out: TextIO, color: bool = False, fixable: set[int] | None = None) -> None:
    console = Console(file=out, force_terminal=color, no_color=not color, highlight=False, soft_wrap=True,
                      width=10_000 if not color else None)
    fixable = fixable or set()
    for f in report.findings:
        line = Text()
        line.append(visible(location_text(f)), style="bold")
        line.append(": ")
        line.append(f.rule, style=STYLE.get(f.severity, ""))
        if id(f) in fixable:
            line.append(" [*]")
        line.append(f" {f.severity}: ", style=STYLE.get(f.severity, ""))
        line.append(visible(" ".join(f.message.split())))
        console.print(line)
    counts = report.counts()
    stats = report.stats
    summary = Text()
    if report.findings:
        summary.append(f"Found {len(report.findings)} problem(s): {counts['error']} error, {counts['warning']} warning, "
                       f"{counts['info']} info", style="bold")
        if fixable:
            summary.append(f"; {len(fixable)} fixable with --fix (see the change first with --diff)")
    elif not stats.get("configs", 0):
        summary.append("No Kafka config file found: nothing was checked.", style="bold yellow")
    else:
        summary.append("No problems found.", style="bold green")
    summary.append(f" ({stats.get('files', 0)} file(s), {stats.get('configs', 0)} config(s)")
    if stats.get("suppressed"):
        summary.append(f", {stats['suppressed']} suppressed")
    summary.append(")")
    console.print(summary)
    for note in report.notes:
        console.print(cell(f"note: {note}", style="dim"))
