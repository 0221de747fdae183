"""JUnit XML, the format every CI system can show as a test report.

Each finding is a test case named after its location and rule; errors and warnings are
failures, info findings pass with their text in ``system-out``. Inputs without findings appear
as passing test cases, so a report shows what was checked, not only what failed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from ..findings import Finding
from .sarif import display_path, primary_place
from .model import Report, properties_snippet


def render_junit(report: Report, out: TextIO) -> None:
    suite_name = f"kafkadiag {report.command}"
    cases = [_case(f) for f in report.findings]
    flagged = {display_path(p.file) for p in (primary_place(f) for f in report.findings) if p is not None}
    for item in report.inputs:
        path = display_path(str(item.get("path", "")))
        if path and path not in flagged:
            case = ET.Element("testcase", {"classname": f"kafkadiag.{report.command}", "name": path, "file": path})
            cases.append(case)
    if not cases:
        cases.append(ET.Element("testcase", {"classname": f"kafkadiag.{report.command}", "name": "no findings"}))
    failures = sum(1 for c in cases if c.find("failure") is not None)
    root = ET.Element("testsuites", {"name": "kafkadiag", "tests": str(len(cases)), "failures": str(failures), "errors": "0"})
    suite = ET.SubElement(root, "testsuite", {"name": suite_name, "tests": str(len(cases)), "failures": str(failures),
                                              "errors": "0", "skipped": "0"})
    suite.extend(cases)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def _case(f: Finding) -> ET.Element:
    place = primary_place(f)
    where = ""
    attrs = {"classname": f"kafkadiag.{f.rule}"}
    if place is not None:
        path = display_path(place.file)
        where = f"{path}:{place.line}" if place.line else path
        attrs["file"] = path
        if place.line:
            attrs["line"] = str(place.line)
    attrs["name"] = f"{f.rule} {f.title}" + (f" ({where})" if where else "")
    case = ET.Element("testcase", attrs)
    body = _body(f, where)
    if f.severity in ("error", "warning"):
        failure = ET.SubElement(case, "failure", {"type": f.severity, "message": " ".join(f.message.split())})
        failure.text = body
    else:
        ET.SubElement(case, "system-out").text = body
    return case


def _body(f: Finding, where: str) -> str:
    lines = [f"{f.severity.upper()} {f.rule}: {f.title}"]
    if where:
        lines.append(f"at {where}")
    lines.append(" ".join(f.message.split()))
    for ev in f.evidence:
        lines.append(f"  {display_path(ev.file)}:{ev.line or '?'}: {ev.text}")
    for side, snippet in properties_snippet(f.recommendations).items():
        lines.append(f"fix ({side}): " + ", ".join(snippet))
    return "\n".join(lines)
