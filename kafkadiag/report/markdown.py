"""Markdown report for incident tickets: findings with evidence blocks and config snippets."""

from __future__ import annotations

from typing import TextIO

from ..findings import iso_time
from .model import SIDE_FILES, Report, properties_snippet


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report, out: TextIO) -> None:
    counts = report.counts()
    out.write("# kafkadiag report\n\n")
    out.write(f"**{len(report.findings)} finding(s)**: {counts['error']} error, {counts['warning']} warning, {counts['info']} info\n\n")
    if report.inputs:
        out.write("| input | kind | era | lines | skipped |\n|---|---|---|---:|---:|\n")
        for item in report.inputs:
            out.write(f"| {_cell(item['path'])} | {_cell(item.get('error') or item.get('found') or item.get('kind', ''))} | {_cell(item.get('era', ''))} "
                      f"| {item.get('lines', '')} | {item.get('skipped', '')} |\n")
        out.write("\n")
    for f in report.findings:
        out.write(f"## {f.severity.upper()} {f.rule}: {f.title}\n\n")
        subject = ", ".join(f"`{k}={v}`" for k, v in f.subject.to_json().items() if v not in (None, ""))
        if subject:
            out.write(f"*{f.category}* — {subject}")
        if f.window_start is not None or f.window_end is not None:
            out.write(f" — {iso_time(f.window_start) or '?'} → {iso_time(f.window_end) or '?'}")
        out.write("\n\n" + f.message + "\n\n")
        if f.caused_by:
            out.write("**Consequence of** " + ", ".join(f.caused_by) + " (fix that first).\n\n")
        if f.evidence:
            out.write("Evidence:\n\n```\n")
            for ev in f.evidence:
                out.write(f"{ev.file}:{ev.line or '?'}: {ev.text}\n")
            out.write("```\n\n")
        if f.recommendations:
            out.write("Fix:\n\n```properties\n")
            for side, lines in properties_snippet(f.recommendations).items():
                out.write(f"# {SIDE_FILES.get(side, side)}\n" + "\n".join(lines) + "\n")
            out.write("```\n\n")
            for rec in f.recommendations:
                out.write(f"- `{rec.config}`: {rec.reason}\n")
            out.write("\n")
        if f.runbook:
            out.write("Runbook:\n\n")
            for i, step in enumerate(f.runbook, 1):
                out.write(f"{i}. {step}\n")
            out.write("\n")
