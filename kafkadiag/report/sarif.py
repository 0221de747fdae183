"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.

One run with ``tool.driver`` describing every rule (id, title, documentation, default level,
help link), one result per finding with a stable ``ruleId``, a level, a physical location with a
region, related locations for the other evidence lines, and ``partialFingerprints`` that do not
depend on line numbers, so a finding survives unrelated edits above it. Works for lint findings
(which carry a location) and analyze findings (their first evidence line stands in). Paths become
repository-relative URIs when they lie under the current directory, as code-scanning uploads expect.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, TextIO
from urllib.parse import quote

from .. import __version__
from ..findings import Finding
from ..ruleset.model import Rule
from .model import Report, properties_snippet

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT = "kafkadiagFinding/v1"


def render_sarif(report: Report, out: TextIO, rules: Sequence[Rule] | None = None) -> None:
    """Write ``report`` as a SARIF 2.1.0 log; ``rules`` are the rules that ran (default: the
    built-in rules the findings name)."""
    json.dump(sarif_log(report, rules), out, indent=2)
    out.write("\n")


def sarif_log(report: Report, rules: Sequence[Rule] | None = None) -> dict:
    known = _rule_table(report, rules)
    index = {rule_id: i for i, rule_id in enumerate(known)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "kafkadiag", "version": __version__, "semanticVersion": __version__,
                                    "rules": list(known.values())}},
                "automationDetails": {"id": f"kafkadiag/{report.command}/"},
                "invocations": [{"executionSuccessful": True}],
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index) for f in report.findings],
            }
        ],
    }


def _rule_table(report: Report, rules: Sequence[Rule] | None) -> dict[str, dict]:
    """Descriptors of the rules that ran, plus any rule a finding names that is not among them."""
    pool = list(rules) if rules is not None else _builtin_rules()
    by_id = {r.id: r for r in pool}
    wanted = [r.id for r in pool] if rules is not None else []
    for f in report.findings:
        if f.rule not in wanted:
            wanted.append(f.rule)
    table: dict[str, dict] = {}
    for rule_id in wanted:
        rule = by_id.get(rule_id)
        table[rule_id] = _descriptor(rule) if rule else _from_finding(next(f for f in report.findings if f.rule == rule_id))
    return table


def _builtin_rules() -> list[Rule]:
    from ..ruleset import RuleError, load_rules

    try:
        return load_rules()
    except RuleError:
        return []


def _descriptor(rule: Rule) -> dict:
    from ..ruleset.explain import explain

    doc = explain(rule)
    out: dict = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": (rule.docs.what or rule.title).strip()},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "warning")},
        "properties": {"tags": ["kafka", rule.category], "category": rule.category},
    }
    if rule.references:
        out["helpUri"] = rule.references[0]
    return out


def _from_finding(f: Finding) -> dict:
    return {
        "id": f.rule,
        "shortDescription": {"text": f.title},
        "defaultConfiguration": {"level": LEVELS.get(f.severity, "warning")},
        "properties": {"tags": ["kafka", f.category], "category": f.category},
    }


def _result(f: Finding, index: dict[str, int]) -> dict:
    text = " ".join(f.message.split())
    fixes = properties_snippet(f.recommendations)
    if fixes:
        text += " Fix: " + "; ".join(f"{line} ({side})" for side, lines in fixes.items() for line in lines) + "."
    result: dict = {
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": LEVELS.get(f.severity, "warning"),
        "message": {"text": text},
        "partialFingerprints": {FINGERPRINT: fingerprint(f)},
        "properties": {
            "category": f.category,
            "findingId": f.id,
            **({"config": f.config} if f.config else {}),
            "recommendations": [r.to_json() for r in f.recommendations],
        },
    }
    place = primary_place(f)
    if place is not None:
        result["locations"] = [_location(place.file, place.line, place.column)]
    related = [
        {**_location(p.file, p.line, p.column), "id": i, "message": {"text": text_}}
        for i, (p, text_) in enumerate(related_places(f), start=1)
    ]
    if related:
        result["relatedLocations"] = related
    return result


def _location(file: str, line: int | None, column: int | None) -> dict:
    physical: dict = {"artifactLocation": {"uri": artifact_uri(file)}}
    if line:
        region: dict = {"startLine": int(line)}
        if column:
            region["startColumn"] = int(column)
        physical["region"] = region
    return {"physicalLocation": physical}


def fingerprint(f: Finding) -> str:
    """Stable across line moves: the rule, the file, the key and the subject, never the line."""
    place = primary_place(f)
    parts = [
        f.rule,
        artifact_uri(place.file) if place else "",
        f.config or "",
        *("" if v is None else str(v) for v in f.subject.to_json().values()),
        "" if f.location is not None else str(f.window_start or ""),
    ]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


# --- where a finding points (shared with the JUnit and GitHub renderers) ---------------------


@dataclass(frozen=True)
class Place:
    file: str
    line: int | None = None
    column: int | None = None


def primary_place(f: Finding) -> Place | None:
    if f.location is not None:
        return Place(f.location.file, f.location.line, f.location.column)
    for ev in f.evidence:
        if ev.file:
            return Place(ev.file, ev.line if ev.line and ev.line > 0 else None)
    return None


def related_places(f: Finding) -> list[tuple[Place, str]]:
    """Evidence lines other than the primary place, with their (already masked) text."""
    primary = primary_place(f)
    out = []
    for ev in f.evidence:
        place = Place(ev.file, ev.line if ev.line and ev.line > 0 else None)
        if ev.file and (primary is None or (place.file, place.line) != (primary.file, primary.line)):
            out.append((place, ev.text))
    return out


def display_path(path: str) -> str:
    """The path relative to the current directory when it is inside it, in POSIX form."""
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(Path.cwd().resolve()).as_posix()
        except (ValueError, OSError):
            return p.as_posix()
    return p.as_posix().removeprefix("./")


def artifact_uri(path: str) -> str:
    """A relative URI for files under the current directory, else an absolute ``file://`` URI."""
    shown = display_path(path)
    if Path(shown).is_absolute():
        return Path(shown).as_uri()
    return quote(shown)
