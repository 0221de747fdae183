"""The JSON report written a finding at a time: the same bytes as ``json.dump(report.to_json(), indent=2)``.

A report of tens of thousands of findings was built as one nested dict of every finding's
fields before a byte was written (90 MB more at the peak for 59,000 findings). Here each finding
is encoded on its own into the document's indentation; nothing else changes.

``json.dumps`` with an indent runs its pure-Python encoder: 59,000 findings took 2.3 s, a quarter
of the run. orjson lays out indented JSON the same way, in C; where the two texts could differ it
is not used for that finding: outside ASCII (``json`` escapes it), DEL (``json`` escapes it too),
a value orjson refuses (an integer beyond 64 bits). Floats, where they also differ (``1e-05``),
do not occur in a finding.
"""

from __future__ import annotations

import json
from typing import TextIO

import orjson

from .model import Report

INDENT = 2
#: The top-level findings key with an empty list, as ``json.dumps`` lays it out: a nested key
#: sits deeper, and no string value holds a raw newline, so this text occurs once.
_EMPTY_SLOT = '\n  "findings": []'


def write_json(report: Report, out: TextIO) -> None:
    """``report`` as indented JSON, its findings streamed."""
    text = json.dumps(report.to_json(findings=[]), indent=INDENT)
    before, after = text.split(_EMPTY_SLOT, 1)
    out.write(before)
    if not report.findings:
        out.write(_EMPTY_SLOT)
    else:
        out.write('\n  "findings": [')
        for n, finding in enumerate(report.findings):
            out.write(",\n    " if n else "\n    ")
            out.write(finding_text(finding.to_json()).replace("\n", "\n    "))
        out.write("\n  ]")
    out.write(after)


def finding_text(doc: dict) -> str:
    """``json.dumps(doc, indent=2)``, encoded by orjson where that gives the same text."""
    try:
        raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    except TypeError:
        return json.dumps(doc, indent=INDENT)
    if raw.isascii() and b"\x7f" not in raw:
        return raw.decode("ascii")
    return json.dumps(doc, indent=INDENT)
