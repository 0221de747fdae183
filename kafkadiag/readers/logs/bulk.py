"""One-line events of a block whose template is already decided, classified for all lines at once.

Most Kafka lines of a client log are chatter that no rule can match (:mod:`prune`) or that is no
event at all: once their line template is known, each costs a template lookup and a few
bookkeeping steps, several microseconds of Python per line and most of a log's read time. Here
a block's candidate lines are masked as :mod:`fastline` keys its shapes (every digit blanked), in
one numpy pass over their bytes, grouped by masked text in Arrow, and each distinct text is looked
up once. The reader then applies whole runs of such lines at once (:meth:`PrunedRun`).

Only the lines ``_single`` would take as their raw text qualify: a plain block (nothing for
``clean`` to undo), a first character that cannot start a container prefix, a timestamp at the
start and one on the next line. A shape with pinned runs (librdkafka's level digit) is taken
only for the lines whose pinned digits have its values, tested for all lines at once; the other
lines of its masked text, shapes not decided yet and broker shapes before the input is known to
be a broker's stay on the per-line path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafkadiag.readers.logs.fastline import DROPPED, Shape
from kafkadiag.readers.logs.head import BROKER

#: What a candidate line is: left to the per-line path, a pruned event, or chatter (no event).
PER_LINE, PRUNED, CHATTER = 0, 1, 2
#: Fewer candidates than this: the per-line path is as cheap as classifying.
MIN_HITS = 64

_MASK = np.arange(256, dtype=np.uint8)
_MASK[ord("0"):ord("9") + 1] = 1  # as ``fastline._MASK``: a digit becomes \x01
_PLAIN_FIRST = np.zeros(256, dtype=bool)
_PLAIN_FIRST[np.frombuffer(b"0123456789[%", dtype=np.uint8)] = True  # as the reader's ``_PLAIN_FIRST``


@dataclass
class Classified:
    """Per hit line of a block: its kind and, for a pruned line, its shape (an index into ``shapes``)."""

    kinds: np.ndarray
    shape_ids: np.ndarray
    shapes: list[Shape]
    names_client: np.ndarray  # per shape index: lines of it can name a client and its transactional.id
    families: frozenset[str]
    known_broker: bool
    ids: list  # per shape index: its ``Shape.ids`` where ``names_client``, else None

    def runs(self) -> dict[int, int]:
        """Start -> end (exclusive) of each run of consecutive classified hits, as hit indices."""
        flags = np.concatenate(([0], (self.kinds != PER_LINE).view(np.int8), [0]))
        edges = np.diff(flags)
        return dict(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))


def classify(data: bytes, lines: pa.Array, starts: np.ndarray, hits: np.ndarray, stamped: np.ndarray, limit: int,
             shapes: dict, conditions: object, known_broker: bool) -> Classified | None:
    """Classify the hit lines of a plain block (see the module docstring); None when none qualifies."""
    if len(hits) < MIN_HITS:
        return None
    u8 = np.frombuffer(data, dtype=np.uint8)
    ok = _PLAIN_FIRST[u8[starts[hits]]] & stamped[hits]
    after = hits + 1
    inside = after < limit
    ok[inside] &= stamped[after[inside]]
    candidates = np.flatnonzero(ok)
    if not len(candidates):
        return None
    taken = lines.take(pa.array(hits[candidates]))
    _validity, offsets, values = taken.buffers()
    masked_values = pa.py_buffer(_MASK[np.frombuffer(values, dtype=np.uint8)])
    masked = pa.Array.from_buffers(pa.large_binary(), len(taken), [None, offsets, masked_values], offset=taken.offset)
    encoded = pc.dictionary_encode(masked)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    kind_of: list[int] = []
    found: list[object] = []
    for text in encoded.dictionary.to_pylist():
        shape = shapes.get(text[:-1])  # the line without its newline: ``LineTemplates.lookup``'s key
        found.append(shape)
        kind_of.append(_kind(shape, conditions, known_broker))
    kinds = np.zeros(len(hits), dtype=np.int8)
    line_kinds = np.asarray(kind_of, dtype=np.int8)[codes]
    pinned = [i for i, (shape, kind) in enumerate(zip(found, kind_of)) if kind == PRUNED and shape.pins]  # type: ignore[union-attr]
    if pinned:
        line_kinds[~_fitting(u8, starts[hits[candidates]], codes, pinned, found)] = PER_LINE
    kinds[candidates] = line_kinds
    shape_ids = np.full(len(hits), -1, dtype=np.int64)
    shape_ids[candidates] = codes
    pruned = [s for s, k in zip(found, kind_of) if k == PRUNED]
    ids = [s.ids if k == PRUNED and s.names_client else None for s, k in zip(found, kind_of)]  # type: ignore[union-attr]
    return Classified(kinds, shape_ids, found, np.asarray([f is not None for f in ids], dtype=bool),  # type: ignore[arg-type]
                      frozenset(s.family for s in pruned), known_broker, ids)  # type: ignore[union-attr]


def _fitting(u8: np.ndarray, line_starts: np.ndarray, codes: np.ndarray, pinned: list[int], found: list) -> np.ndarray:
    """Per candidate line: False where its shape has pins its digits do not match (``Shape.fits``).

    A plain block is ASCII, so a pin's character positions are byte positions from the line start.
    Each pinned character is one gather over all lines: position and value per shape, by code.
    """
    ok = np.ones(len(codes), dtype=bool)
    chars = [(code, where.start + k, byte) for code in pinned for where, value in found[code].pins
             for k, byte in enumerate(value.encode("ascii"))]
    while chars:
        # one character per shape at a time (most shapes have one: librdkafka's level digit)
        first: dict[int, tuple[int, int]] = {}
        rest = []
        for code, offset, byte in chars:
            if code in first:
                rest.append((code, offset, byte))
            else:
                first[code] = (offset, byte)
        offsets = np.full(len(found), -1, dtype=np.int64)
        values = np.zeros(len(found), dtype=np.uint8)
        for code, (offset, byte) in first.items():
            offsets[code], values[code] = offset, byte
        line_offsets = offsets[codes]
        rows = np.flatnonzero(line_offsets >= 0)
        ok[rows] &= u8[line_starts[rows] + line_offsets[rows]] == values[codes[rows]]
        chars = rest
    return ok


def _kind(shape: object, conditions: object, known_broker: bool) -> int:
    if shape is DROPPED:
        return CHATTER
    if shape.__class__ is not Shape:
        return PER_LINE
    verdict = shape.verdict  # type: ignore[union-attr]
    if verdict is None or verdict[0] is not conditions or verdict[1] is not False:
        return PER_LINE
    if shape.family == BROKER and not known_broker:  # type: ignore[union-attr]
        return PER_LINE  # its first line makes the input a broker's, which changes later lookups
    return PRUNED


class PrunedRun:
    """The stamps of a run of pruned lines, read only if the time anchor needs them (newest first)."""

    __slots__ = ("raw", "lines", "shape_ids", "shapes")

    def __init__(self, raw: list[str], lines: list[int], shape_ids: list[int], shapes: list[Shape]) -> None:
        self.raw, self.lines, self.shape_ids, self.shapes = raw, lines, shape_ids, shapes

    def newest_first(self) -> Iterator[tuple[Shape, str]]:
        shapes, raw = self.shapes, self.raw
        for j in range(len(self.lines) - 1, -1, -1):
            shape = shapes[self.shape_ids[j]]
            if shape.ts_slice is not None:
                yield shape, raw[self.lines[j]]

    def in_order(self) -> Iterator[tuple[Shape, str]]:
        shapes, raw = self.shapes, self.raw
        for line, sid in zip(self.lines, self.shape_ids):
            shape = shapes[sid]
            if shape.ts_slice is not None:
                yield shape, raw[line]


def client_ids(ids: list[Callable[[str], tuple]], raw: list[str], lines: list[int], shape_ids: list[int]) -> Iterator[tuple]:
    """``(client_id, transactional_id)`` of each line, in order (``ids``: per shape index)."""
    return map(lambda sid, line: ids[sid](raw[line]), shape_ids, lines)
