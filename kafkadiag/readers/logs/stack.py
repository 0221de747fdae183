"""Stack traces and other continuation lines: which lines belong to an event, and what they say.

Java (tab- or space-indented ``at`` frames, ``Caused by:``, ``Suppressed:``, ``... N more``,
``... N common frames omitted``, ``~[jar:version]``), .NET (`` ---> `` inner exceptions),
Python tracebacks (root cause printed first), Go panics and Node's printed error objects all
continue the line above them. Frames are skipped; exception headers give the chain, and the
remaining non-frame lines are what field extraction reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SHAPED_PREFIXES = (
    "Caused by", "Suppressed:", "...", "--->", "--- ", "at ", "Traceback (", "During handling of the above",
    "The above exception was", "goroutine ", "}", "]", ")", "[cause]", "Wrapped by:", "{", "Error: ",
)
#: ``org.apache.kafka.common.errors.ProducerFencedException: ...``, ``KafkaJSProtocolError: ...``.
_EXCEPTION_HEADER = re.compile(
    r"(?:Exception in thread \"[^\"]*\" )?"
    r"(?P<cls>(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*|[A-Z][\w$]*(?:Exception|Error|Throwable|Fault|Exceeded))"
    r"(?::\s(?P<msg>.*)|:?\s*$|\s\{)"
)
_CAUSED = re.compile(r"(?:Caused by|\[cause\]|Wrapped by)\s*:\s*(?P<rest>.*)")
_DOTNET_INNER = re.compile(r"--->\s*(?P<rest>.*)")
_FRAME = re.compile(r"\s*(?:at\s|\.\.\. \d+ (?:more|common frames omitted)|File \"|-{3} End of)")
_FIELD_LINE = re.compile(r"\s+(?:\"?[\w.\[\]-]+\"?\s*[:=]\s*\S|[A-Z][\w$.]*(?:Exception|Error)\b)")

MAX_TEXT_LINES = 40
MAX_TEXT_CHARS = 8000


def is_shaped(text: str) -> bool:
    """A line that can only continue an event: indented, a trace line or an exception header."""
    if not text:
        return False
    c = text[0]
    if c == " " or c == "\t":
        return True
    if text.startswith(_SHAPED_PREFIXES):
        return True
    return _EXCEPTION_HEADER.match(text) is not None


@dataclass
class Trace:
    """What the continuation lines of one event say."""

    exceptions: list[str] = field(default_factory=list)  # simple names, outermost first
    texts: list[str] = field(default_factory=list)  # non-frame lines to read fields from
    first_header: str = ""  # first exception header line (message of a headless event)


def simple_name(cls: str) -> str:
    return cls.rsplit(".", 1)[-1]


def parse_trace(lines: list[str], prose: bool = False) -> Trace:
    """Exception chain and field-bearing lines of an event's continuation lines (already cleaned).

    ``prose``: the event has no log head (a paragraph, an indented quote or list): its indented
    lines are sentences to read, not the dumped objects under a log line, so every one is kept.
    """
    trace = Trace()
    java_chain: list[str] = []
    python_chain: list[str] = []
    in_python = False
    in_suppressed = False
    chars = 0
    for line in lines:
        if not line.strip():
            continue
        if _FRAME.match(line):
            if line.lstrip().startswith("File \""):
                in_python = True
            continue
        indented = line[0] in " \t"
        stripped = line.strip()
        if stripped.startswith("Traceback ("):
            in_python = True
            continue
        if stripped.startswith(("During handling of the above", "The above exception was")):
            continue
        if stripped.startswith("Suppressed:"):
            in_suppressed = True
            continue
        cause = _CAUSED.match(stripped)
        # Java indents a cause only under ``Suppressed:``; elsewhere an indented one is a paste
        # that indented the whole trace (a Markdown list, a quote).
        if cause and (not indented or not in_suppressed or stripped.startswith("[cause]")):
            in_suppressed = False
            header = _EXCEPTION_HEADER.match(cause["rest"])
            if header:
                java_chain.append(simple_name(header["cls"]))
                trace.first_header = trace.first_header or stripped
            chars = _keep(trace, stripped, chars)
            continue
        if in_suppressed and indented:
            continue
        inner = _DOTNET_INNER.match(stripped)
        if inner:
            header = _EXCEPTION_HEADER.match(inner["rest"])
            if header:
                java_chain.append(simple_name(header["cls"]))
            chars = _keep(trace, inner["rest"], chars)
            continue
        if not indented:
            header = _EXCEPTION_HEADER.match(stripped)
            if header:
                (python_chain if in_python else java_chain).append(simple_name(header["cls"]))
                trace.first_header = trace.first_header or stripped
            chars = _keep(trace, stripped, chars)
            continue
        if in_python:
            continue  # source lines of a traceback
        if prose or _FIELD_LINE.match(line):
            chars = _keep(trace, stripped, chars)
    trace.exceptions = _dedupe(java_chain + python_chain[::-1])
    return trace


def _keep(trace: Trace, text: str, chars: int) -> int:
    if len(trace.texts) < MAX_TEXT_LINES and chars < MAX_TEXT_CHARS:
        trace.texts.append(text[:2000])
        chars += len(text)
    return chars


def _dedupe(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        if not out or out[-1] != name:
            out.append(name)
    return out


def exceptions_in_text(text: str) -> list[str]:
    """Exception classes a message names (``... due to org.x.FooException: ...``), in order."""
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    for suffix in ("Exception", "Error"):
        i = text.find(suffix)
        while i >= 0:
            end = i + len(suffix)
            if end >= len(text) or not (text[end].isalnum() or text[end] in "_$"):
                start = i
                while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_$"):
                    start -= 1
                name = text[start:end]
                qualified = start > 0 and text[start - 1] == "." or text[end:end + 1] == ":"
                # A page about the class (".../errors/OutOfOrderSequenceException.html") is not the error.
                in_path = start > 0 and text[start - 1] == "/"
                if (suffix == "Exception" or qualified) and not in_path and name[:1].isupper() and name not in ("Error", "Exception") and name not in seen:
                    seen.add(name)
                    found.append((start, name))
            i = text.find(suffix, end)
    found.sort()
    return [name for _, name in found]


def starts_new_event(text: str) -> bool:
    """Lines that begin an event of their own even without a timestamp (the JVM's uncaught-exception report)."""
    return text.startswith('Exception in thread "')
