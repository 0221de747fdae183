"""Undo what terminals, containers and chat tools do to log lines before they reach us.

Lines arrive with CR endings, ANSI colours, ``docker compose``/``kubectl --prefix`` container
prefixes, markdown escapes (``\\_\\_transaction\\_state`` from a pasted issue), HTML entities, ``>``
quote markers, an editor's line numbers and curly quotes.
Each is checked with a cheap test first, so clean lines cost a few string probes.
"""

from __future__ import annotations

import re

from kafkadiag.readers.paste import unescape

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_QUOTE = re.compile(r"(?:>[ \t]?)+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\ufeff": None})
#: ``kafka_1  | ``, ``broker-1 | ``, ``[pod/name/container] `` (the prefix container runtimes add).
_CONTAINER = re.compile(r"(?:[A-Za-z0-9][\w.\-]{0,62}\s*\| |\[pod/[^\]\s]+\] )")
#: Pipe-separated layouts start with a level, not a container name.
_NOT_CONTAINERS = frozenset({"TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "SEVERE", "CRITICAL"})


def clean(line: str) -> tuple[str, str]:
    """``(container prefix, text)`` of one raw line (without its newline)."""
    if line.endswith("\r"):
        line = line.rstrip("\r")
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if not line.isascii():
        line = line.translate(_QUOTES)
    if "\\" in line or "&" in line:
        line = unescape(line)
    prefix = ""
    if line[:1] == ">":
        line = line[_QUOTE.match(line).end():]  # type: ignore[union-attr]
        prefix = ">"  # a quoted block: its lines belong together, the unquoted text after it does not
    if line.find("| ", 0, 70) >= 0 or line.startswith("[pod/"):
        m = _CONTAINER.match(line)
        if m and not _looks_like_table_cell(line, m.end()):
            name = m.group(0).split("|")[0].strip().strip("[]")
            if name.upper() not in _NOT_CONTAINERS:
                prefix += "#" if name.isdigit() else name  # an editor's line number is the same margin on every line
                line = line[m.end():]
    return prefix, line


def _looks_like_table_cell(line: str, end: int) -> bool:
    """A markdown table row (``a | b | c``) is not a container prefix."""
    return line.count(" | ") >= 2 and line.rstrip().endswith("|")


def is_blank(text: str) -> bool:
    """Blank for event grouping: whitespace or a markdown code fence."""
    stripped = text.strip()
    return not stripped or stripped.startswith("```")
