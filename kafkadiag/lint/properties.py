"""Java ``.properties`` (and librdkafka ``key=value`` files) with positions kept.

Follows ``java.util.Properties.load``: ``#``/``!`` comment lines, ``key=value``, ``key: value`` or
``key value``, backslash escapes, and values continued over lines ending in an odd number of
backslashes. The value span covers the whole logical entry, so a fix replaces a continued value
cleanly.
"""

from __future__ import annotations

from .model import Entry, line_offsets

_SEPARATORS = "=: \t\f"
_BLANK = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def parse_properties(text: str) -> list[Entry]:
    """Entries of a properties text in file order (a repeated key appears twice; the last wins)."""
    offsets = line_offsets(text)
    raw_lines = text.split("\n")
    entries: list[Entry] = []
    i = 0
    while i < len(raw_lines):
        raw = raw_lines[i].rstrip("\r")
        body = raw.lstrip(_BLANK)
        if not body or body[0] in "#!":
            i += 1
            continue
        first = i
        pieces: list[tuple[int, str]] = []  # (file offset of the piece, piece text)
        offset, piece = offsets[i] + len(raw) - len(body), body
        while True:
            if _continues(piece) and i + 1 < len(raw_lines):
                pieces.append((offset, piece[:-1]))
                i += 1
                nxt = raw_lines[i].rstrip("\r")
                stripped = nxt.lstrip(_BLANK)
                offset, piece = offsets[i] + len(nxt) - len(stripped), stripped
                continue
            pieces.append((offset, piece[:-1] if _continues(piece) else piece))
            break
        logical = "".join(p for _, p in pieces)
        key_end, value_start = _split(logical)
        end = offsets[i] + len(raw_lines[i].rstrip("\r"))
        entries.append(
            Entry(
                key=unescape(logical[:key_end]),
                value=unescape(logical[value_start:]),
                line=first + 1,
                column=len(raw_lines[first].rstrip("\r")) - len(raw_lines[first].rstrip("\r").lstrip(_BLANK)) + 1,
                end_line=i + 1,
                span=(_file_offset(pieces, value_start, end), end),
            )
        )
        i += 1
    return entries


def _continues(piece: str) -> bool:
    trailing = len(piece) - len(piece.rstrip("\\"))
    return trailing % 2 == 1


def _split(logical: str) -> tuple[int, int]:
    """Where the key ends and the value starts in a logical line."""
    j = 0
    while j < len(logical):
        ch = logical[j]
        if ch == "\\":
            j += 2
            continue
        if ch in _SEPARATORS:
            break
        j += 1
    key_end = min(j, len(logical))
    k = key_end
    while k < len(logical) and logical[k] in _BLANK:
        k += 1
    if k < len(logical) and logical[k] in "=:":
        k += 1
        while k < len(logical) and logical[k] in _BLANK:
            k += 1
    return key_end, k


def _file_offset(pieces: list[tuple[int, str]], index: int, end: int) -> int:
    """Map an index of the logical line back to an offset in the file."""
    for offset, piece in pieces:
        if index <= len(piece):
            return offset + index
        index -= len(piece)
    return end


def unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u" and i + 6 <= len(text):
            try:
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            except ValueError:
                pass
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


def escape_value(value: str) -> str:
    """A value written so that ``Properties.load`` reads back exactly ``value``."""
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if out.startswith(" "):
        out = "\\" + out
    return out


def escape_key(key: str) -> str:
    out = key.replace("\\", "\\\\")
    for ch in "=: \t#!":
        out = out.replace(ch, "\\" + ch)
    return out
