"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding,
so findings show up as annotations on the pull request's changed files."""

from __future__ import annotations

from typing import TextIO

from ..findings import Finding
from .sarif import display_path, primary_place
from .model import Report, properties_snippet

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def render_github(report: Report, out: TextIO) -> None:
    for f in report.findings:
        out.write(annotation(f) + "\n")


def annotation(f: Finding) -> str:
    props = []
    place = primary_place(f)
    if place is not None:
        props.append(f"file={_prop(display_path(place.file))}")
        if place.line:
            props.append(f"line={place.line}")
        if place.column:
            props.append(f"col={place.column}")
    props.append(f"title={_prop(f'{f.rule} {f.title}')}")
    message = " ".join(f.message.split())
    fixes = properties_snippet(f.recommendations)
    if fixes:
        message += "\nFix: " + "; ".join(f"{line} ({side})" for side, lines in fixes.items() for line in lines)
    return f"::{COMMANDS.get(f.severity, 'warning')} {','.join(props)}::{_data(message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
