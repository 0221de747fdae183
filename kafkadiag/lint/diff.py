"""Unified diffs of fixed files that never show a secret.

Hunks get up to three lines of context, but context stops short of any line holding a sensitive
value (a hunk is split rather than show one), so the diff can be pasted into a review or applied
with ``patch -p0`` / ``git apply`` without leaking credentials. Fixes never change secret lines.
"""

from __future__ import annotations

import difflib

CONTEXT = 3


def unified_diff(path: str, old: str, new: str, secret_lines: set[int]) -> str:
    """The diff of one file, headed ``--- path`` / ``+++ path``; '' when nothing changed."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if a == b:
        return ""
    hunks: list[list[tuple[str, int, int, int, int]]] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        hunks.extend(_split(group, secret_lines))
    out = [f"--- {path}\n", f"+++ {path}\n"]
    for hunk in hunks:
        out.extend(_render(hunk, a, b))
    return "".join(out)


def _split(group: list[tuple[str, int, int, int, int]], secret: set[int]) -> list[list[tuple[str, int, int, int, int]]]:
    """Trim context at secret lines (1-based in the old text), splitting the group where needed."""
    hunks: list[list[tuple[str, int, int, int, int]]] = []
    current: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in group:
        if tag != "equal":
            current.append((tag, i1, i2, j1, j2))
            continue
        secrets = [i for i in range(i1, i2) if i + 1 in secret]
        if not secrets:
            current.append((tag, i1, i2, j1, j2))
            continue
        first, last = secrets[0], secrets[-1]
        if first > i1:  # context before the first secret line closes the current hunk
            current.append((tag, i1, first, j1, j1 + first - i1))
        if current:
            hunks.append(current)
        current = []
        if last + 1 < i2:
            offset = last + 1 - i1
            current.append((tag, last + 1, i2, j1 + offset, j2))
    if current:
        hunks.append(current)
    return [h for h in hunks if any(op[0] != "equal" for op in h)]


def _render(hunk: list[tuple[str, int, int, int, int]], a: list[str], b: list[str]) -> list[str]:
    first, last = hunk[0], hunk[-1]
    i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
    lines = [f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n"]
    for tag, a1, a2, b1, b2 in hunk:
        if tag == "equal":
            lines.extend(_line(" ", x) for x in a[a1:a2])
            continue
        lines.extend(_line("-", x) for x in a[a1:a2])
        lines.extend(_line("+", x) for x in b[b1:b2])
    return lines


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _line(mark: str, text: str) -> str:
    if text.endswith("\n"):
        return mark + text
    return mark + text + "\n\\ No newline at end of file\n"
