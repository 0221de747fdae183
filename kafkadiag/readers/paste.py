"""Pasted text: undo what blogs and issue trackers do to lines, and split a paste by kind.

People paste ``kafka-dump-log.sh`` output indented by four spaces, behind ``> `` quote markers,
with Markdown escapes or HTML entities, next to a client's stack trace and a tool's table. Each
reader wants only its own lines, in the shape its tool printed them. A *view* of the input gives
it exactly that without moving a byte: every line keeps its length and its place (a foreign line
becomes spaces, a repaired line is padded with spaces), so line numbers and byte offsets still
point at the user's file and evidence is read back from the original text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import BinaryIO, Callable

from kafkadiag.readers.sniff import DUMP_LINE, STRONG_GROUPS, detect_dump_log, dump_line_kind

#: What a paste puts in front of a line: indentation, ``>`` quote markers, an editor's line number.
_DAMAGE_PREFIX = re.compile(rb"^(?:[ \t]*>)+[ \t]?|^[ \t]*\d{1,6}[ \t]*(?:\||\xe2\x94\x82)[ \t]?|^[ \t]+")
#: A backtick next to a dump field name or value (`isTransactional: true`, `endTxnMarker: COMMIT`).
_INLINE_CODE = re.compile(rb"`\s*(?:[a-zA-Z]+: |position:)|: [\w-]+\s*`")
_MD_ESCAPE = re.compile(r"\\([_*\[\]<>#`|~{}-])")
_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,6}|#\d{2,5}|#x[0-9a-fA-F]{2,4});")


def unescape(text: str) -> str:
    """Markdown escapes (``\\_\\_transaction\\_state``) and HTML entities undone (the log cleaner uses it too)."""
    if "\\" in text:
        text = _MD_ESCAPE.sub(r"\1", text)
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    return text


def repair(line: bytes) -> bytes:
    """The line as the tool printed it: paste prefixes, Markdown escapes and HTML entities undone,
    and inline code marks dropped (a blog that put `isControl: true` in backticks): the dump tool
    prints no backtick outside a record's own key or payload."""
    m = _DAMAGE_PREFIX.match(line)
    if m and m.end():
        line = line[m.end():]
    if b"`" in line and _INLINE_CODE.search(line):
        line = line.replace(b"`", b"")
    if b"\\" in line or b"&" in line:
        line = unescape(line.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return line


def is_dump_line(line: bytes) -> bool:
    """A line of ``kafka-dump-log.sh`` output (after repair)."""
    return DUMP_LINE.match(line) is not None


@dataclass(frozen=True)
class HeadProfile:
    """What the first lines of a text input hold, once repaired."""

    strong_dump: int  # batch, record and coordinator-record lines (repaired or not)
    repaired_dump: int  # dump lines that needed repair to be seen
    other_lines: int  # non-blank lines that are not dump output
    repaired_head: bytes  # the head with every dump line repaired (for sniffing)


def profile(head: bytes) -> HeadProfile:
    """Count dump lines and other lines of a head (its last, possibly cut, line left out)."""
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines.pop()
    strong = repaired = other = 0
    fixed: list[bytes] = []
    for raw in lines:
        line = raw.rstrip(b"\r")
        if not line.strip():
            fixed.append(line)
            continue
        kind = dump_line_kind(line)
        if kind:
            strong += kind in STRONG_GROUPS
            fixed.append(line)
            continue
        better = repair(line)
        kind = dump_line_kind(better) if better is not line else None
        if kind:
            repaired += 1
            strong += kind in STRONG_GROUPS
            fixed.append(better)
            continue
        other += 1
        fixed.append(line)
    return HeadProfile(strong, repaired, other, b"\n".join(fixed) + b"\n")


def dump_in_head(p: HeadProfile) -> bool:
    """The head holds real dump output (not one stray line that happens to match)."""
    return p.strong_dump >= 1 and detect_dump_log(p.repaired_head) is not None


LineMap = Callable[[bytes], bytes]


def dump_view_line(line: bytes) -> bytes:
    """A dump line, repaired and padded to its length; any other line as spaces."""
    body = line.rstrip(b"\r\n")
    end = line[len(body):]
    if DUMP_LINE.match(body):
        return line
    better = repair(body)
    if better is not body and DUMP_LINE.match(better) and len(better) <= len(body):
        return better + b" " * (len(body) - len(better)) + end
    return b" " * len(body) + end


def other_view_line(line: bytes) -> bytes:
    """Every line but dump output, as it is; dump lines as spaces."""
    body = line.rstrip(b"\r\n")
    if DUMP_LINE.match(body) or DUMP_LINE.match(repair(body)):
        return b" " * len(body) + line[len(body):]
    return line


class LineView:
    """A binary stream over ``source`` with every line passed through ``mapping`` (same length)."""

    def __init__(self, source: BinaryIO, mapping: LineMap, block: int = 1 << 20) -> None:
        self._source = source
        self._mapping = mapping
        self._block = block
        self._pending = b""
        self._out = b""
        self._done = False

    def _fill(self) -> None:
        while not self._out and not self._done:
            chunk = self._source.read(self._block)
            if not chunk:
                self._done = True
                data, self._pending = self._pending, b""
            else:
                data = self._pending + chunk
                cut = data.rfind(b"\n") + 1
                data, self._pending = data[:cut], data[cut:]
            if data:
                self._out = b"".join(self._mapping(line) for line in data.splitlines(keepends=True))

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while True:
                self._fill()
                if not self._out:
                    return b"".join(parts)
                parts.append(self._out)
                self._out = b""
        self._fill()
        out, self._out = self._out[:size], self._out[size:]
        return out

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True
