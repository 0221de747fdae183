"""Flink SQL DDL: the ``WITH`` options of Kafka tables, as configs.

An exactly-once Flink SQL sink is configured in its ``CREATE TABLE ... WITH ('connector' = 'kafka',
'sink.delivery-guarantee' = 'exactly-once', 'properties.transaction.timeout.ms' = ...)`` clause,
written in a ``.sql`` file or as a string in the job's code (a Python f-string, a Java text
block). Each Kafka table's options become the entries of one config, at their places in the file
(a value's span includes its quotes, as a quoted YAML scalar's does: SQL escapes a quote the same way).
An option whose value the code fills in (``'{servers}'``) is read as written.
"""

from __future__ import annotations

import re

from .model import Entry, line_offsets

_CONNECTOR = re.compile(r"'connector'\s*=\s*'(?:upsert-)?kafka'", re.I)
_WITH = re.compile(r"\bWITH\s*\(", re.I)
_CREATE = re.compile(r"\bCREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([^\s(]+)", re.I)
_KEY = r"'([A-Za-z][\w.\-]*)'\s*=\s*'"
#: One option on a line of its own; the value runs to the line's last quote, so a value the code
#: builds with quotes inside (``'{props['servers']}'``) stays whole.
_LINE_OPTION = re.compile(r"^[ \t]*" + _KEY + r"(.*)'[ \t]*,?[ \t]*(\)[^\n]*)?$")
#: Options one after another on one line: values without a lone quote (``''`` is an escaped one).
_PAIR = re.compile(_KEY + r"((?:[^'\n]|'')*)'")
_SKIPPED = re.compile(r"^[ \t]*(--.*)?$")


def looks_like_flink_ddl(text: str) -> bool:
    """A text that declares a Kafka table with Flink SQL options."""
    return bool(_CONNECTOR.search(text)) and bool(_WITH.search(text))


def parse_flink_ddl(text: str) -> list[Entry]:
    """The options of every Kafka table's ``WITH`` clause, in file order; ``section`` names the table."""
    offsets = line_offsets(text)
    lines = text.split("\n")
    out: list[Entry] = []
    for match in _WITH.finditer(text):
        table = _table_before(text, match.start())
        options = _clause(text, lines, offsets, match.end(), table)
        if any(e.key.lower() == "connector" and e.value.lower() in ("kafka", "upsert-kafka") for e in options):
            out.extend(options)
    return out


def _table_before(text: str, at: int) -> str:
    name = ""
    for m in _CREATE.finditer(text, 0, at):
        name = m.group(1)
    return name.strip("`\"{}")


def _clause(text: str, lines: list[str], offsets: list[int], start: int, table: str) -> list[Entry]:
    """Options from just after ``WITH (`` to the line that closes the clause (or stops being options)."""
    line_no = text.count("\n", 0, start)  # 0-based line of the opening parenthesis
    rest_end = offsets[line_no] + len(lines[line_no])
    pairs = list(_PAIR.finditer(text, start, rest_end))
    out = [_entry(text, m, table) for m in pairs]
    if pairs and ")" in text[pairs[-1].end():rest_end]:
        return out  # the whole clause on one line
    for i in range(line_no + 1, len(lines)):
        line = lines[i]
        m = _LINE_OPTION.match(line)
        if m:
            out.append(_line_entry(line, offsets[i], m, table, i + 1))
            if m.group(3):
                break
            continue
        if _SKIPPED.match(line):
            continue
        break
    return out


def _entry(text: str, m: re.Match, table: str) -> Entry:
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 2
    return Entry(key=m.group(1), value=m.group(2).replace("''", "'"), line=line, column=column, end_line=line,
                 span=(m.start(2) - 1, m.end(2) + 1), quote="'", section=table)


def _line_entry(line: str, base: int, m: re.Match, table: str, number: int) -> Entry:
    return Entry(key=m.group(1), value=m.group(2).replace("''", "'"), line=number, column=m.start(1) + 1,
                 end_line=number, span=(base + m.start(2) - 1, base + m.end(2) + 1), quote="'", section=table)
