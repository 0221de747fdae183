"""Attach the raw text of evidence lines to findings, one forward pass per file.

Fact tables keep only (file, line, byte) references, so memory does not grow with the input;
the few lines that end up in findings are read back here, grouped per file and sorted by offset.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable

from ..findings import Finding
from ..inputs import read_lines_at, real_path
from ..lint.secrets import mask_secrets

#: ``(display path, byte offsets, known line numbers) -> {offset: (line, text)}``: reads evidence
#: lines back from where an input lives (this machine by default; a cluster file system for Spark).
LineFetcher = Callable[[str, list[int], dict[int, int]], dict[int, tuple[int, str]]]


def local_lines(path: str, offsets: list[int], known: dict[int, int]) -> dict[int, tuple[int, str]]:
    """Evidence lines of an input on this machine (the stdin spool for ``-``)."""
    return read_lines_at(real_path(path), offsets, known_lines=known or None)


def fill_evidence(findings: list[Finding], fetch: LineFetcher | None = None) -> None:
    fetch = fetch or local_lines
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
        try:
            resolved[path] = fetch(path, sorted(offsets), known.get(path, {}))
        except OSError:
            resolved[path] = {}
    for finding in findings:
        for ev in finding.evidence:
            hit = resolved.get(ev.file, {}).get(ev.byte if ev.byte is not None else -1)
            if hit:  # credentials in a log line are masked as they are in configs
                ev.line, ev.text = hit[0], mask_secrets(hit[1])
