"""The evidence lines rows cite: one place decides which (file, line, byte) a row points at and
in what order a finding lists them, for evaluation and for the rows a distributed run keeps."""

from __future__ import annotations

from typing import Iterator, Mapping, Sequence

from .templates import is_unknown, plain

EvidenceRef = tuple[int, int, int]  # (file_id, line, byte)


def cited_by(triple: tuple[str, str, str], data: Mapping[str, Sequence],
             positions: Sequence[int]) -> Iterator[tuple[EvidenceRef, int]]:
    """``(reference, row)`` for one evidence column triple (file, line, byte) and every row that
    names a file and a byte (an unknown line is -1), in row order."""
    file_col, line_col, byte_col = triple
    if file_col not in data or byte_col not in data:
        return
    files, bytes_, lines = data[file_col], data[byte_col], data.get(line_col)
    for i in positions:
        f, b = plain(files[i]), plain(bytes_[i])
        if is_unknown(f) or is_unknown(b):
            continue
        line = plain(lines[i]) if lines is not None else -1
        yield (int(f), -1 if is_unknown(line) else int(line), int(b)), i  # type: ignore[arg-type]


def log_order(ref: EvidenceRef) -> tuple[int, int, int]:
    """A finding lists its evidence by file, then byte, then line."""
    return ref[0], ref[2], ref[1]
