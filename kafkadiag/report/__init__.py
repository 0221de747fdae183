"""Renderers: findings to text, JSON, Markdown, HTML, SARIF, JUnit XML or GitHub annotations."""

from __future__ import annotations

from typing import Sequence, TextIO

from .model import Report

#: Formats every command renders the same way (the text report differs per command).
MACHINE_FORMATS = ("json", "markdown", "html", "sarif", "junit", "github")


def render_machine(report: Report, fmt: str, out: TextIO, rules: Sequence | None = None) -> bool:
    """Render ``report`` in a shared non-text format; False when ``fmt`` is the command's own text format."""
    if fmt == "json":
        from .json_stream import write_json

        write_json(report, out)
        out.write("\n")
    elif fmt == "markdown":
        from .markdown import render_markdown

        render_markdown(report, out)
    elif fmt == "html":
        from .html import render_html

        render_html(report, out)
    elif fmt == "sarif":
        from .sarif import render_sarif

        render_sarif(report, out, rules=rules)
    elif fmt == "junit":
        from .junit import render_junit

        render_junit(report, out)
    elif fmt == "github":
        from .github import render_github

        render_github(report, out)
    else:
        return False
    return True
