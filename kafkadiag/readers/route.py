"""Which readers read an input, and through which view: content first, layout second.

A file is not one kind. An incident note holds a dump excerpt, a client's stack trace and a
tool's table; a blog indents its dump by four spaces. The plan is made from the repaired head
(see :mod:`paste`): dump lines go to the dump reader, everything else to the log reader, which
searches every line for Kafka evidence whatever its layout. Text that no detector recognises is
still read by the log reader, never dropped as ``unknown``. A clean dump is read raw, so large
dumps keep their fast path and their parallel ranges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kafkadiag.readers.paste import LineMap, dump_in_head, dump_view_line, is_dump_line, other_view_line, profile, repair

DUMP = "dump-log"
LOG = "log"
CONFIG = "config"
FENCED = "fenced-config"  # configuration blocks inside a pasted text (``configs.read_fenced_configs``)

#: A code fence (Markdown ``` or ~~~, AsciiDoc ----) at the start of a line, quoted or not.
_FENCE = re.compile(rb"(?m)^[ \t>]*(?:```|~~~|----[ \t]*\r?$)")


@dataclass(frozen=True)
class Pass:
    """One reading of an input: the reader (kind prefix) and the view it reads through (None: raw)."""

    reader: str
    view: LineMap | None = None


def plan(kind: str, head: bytes) -> list[Pass]:
    """The passes that read an input whose head sniffed as ``kind``."""
    prefix = kind.split("/", 1)[0]
    if prefix == CONFIG:
        # A configuration inside code fences is a pasted text (a README, an issue): its blocks are
        # read as configs and the rest as log lines, so a stack trace after the config is not lost.
        return [Pass(LOG), Pass(FENCED)] if _FENCE.search(head) else [Pass(CONFIG)]
    p = profile(head)
    dump = prefix == DUMP or dump_in_head(p)
    if not dump:
        # Text that holds code blocks may hold a pasted configuration among its logs.
        return [Pass(LOG), Pass(FENCED)] if _FENCE.search(head) else [Pass(LOG)]
    other = _other_evidence(head) if p.other_lines else 0
    if prefix == DUMP and (not p.strong_dump or not p.repaired_dump and not other):
        return [Pass(DUMP)]  # a clean dump, or the dump tool's own messages
    passes = [Pass(DUMP, dump_view_line)]
    if other:
        passes.append(Pass(LOG, other_view_line))
    return passes


def _other_evidence(head: bytes) -> int:
    """Lines of the head that are not dump output but mention Kafka (shell prompts and comments aside)."""
    from kafkadiag.readers.logs.hits import hit_mask, line_array

    lines = [line for line in head.split(b"\n")[:-1] if line.strip()]
    lines = [line for line in lines if not is_dump_line(line) and not is_dump_line(repair(line))
             and not line.lstrip().startswith((b"#", b"$"))]
    if not lines:
        return 0
    data = b"\n".join(lines) + b"\n"
    starts = np.zeros(len(lines), dtype=np.int64)
    starts[1:] = np.cumsum([len(line) + 1 for line in lines[:-1]])
    return int(hit_mask(line_array(data, starts)).sum())
