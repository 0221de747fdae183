"""Attach the raw text of evidence lines to findings, one forward pass per file.

Fact tables keep only (file, line, byte) references, so memory does not grow with the input;
the few lines that end up in findings are read back here, grouped per file and sorted by offset.
"""

from __future__ import annotations

from collections import defaultdict
from ..findings import Finding
from ..inputs import read_lines_at, real_path


def fill_evidence(findings: list[Finding]) -> None:
    wanted: dict[str, set[int]] = defaultdict(set)
    known: dict[str, dict[int, int]] = defaultdict(dict)
    for finding in findings:
        for ev in finding.evidence:
            if ev.byte is not None and ev.byte >= 0:
                wanted[ev.file].add(ev.byte)
                if ev.line:
                    known[ev.file][ev.byte] = ev.line
    resolved: dict[str, dict[int, tuple[int, str]]] = {}
    for path, offsets in wanted.items():
        source = real_path(path)
        try:
            resolved[path] = read_lines_at(source, sorted(offsets), known_lines=known.get(path))
        except OSError:
            resolved[path] = {}
    for finding in findings:
        for ev in finding.evidence:
            hit = resolved.get(ev.file, {}).get(ev.byte if ev.byte is not None else -1)
            if hit:
                ev.line, ev.text = hit[0], hit[1]
