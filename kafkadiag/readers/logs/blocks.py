"""Read an input as blocks of whole lines, keeping memory flat whatever the line lengths.

A line longer than a block (a minified JSON dump, a base64 payload) keeps only its first
``LINE_CAP`` bytes; the bytes dropped are reported so byte offsets of later lines stay exact.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

from ..blocks import skip_rest_of_line

BLOCK_SIZE = 4 << 20
LINE_CAP = 64 << 10  # characters of one line the parsers ever look at


def whole_lines(stream: BinaryIO, block_size: int = BLOCK_SIZE) -> Iterator[tuple[bytes, int]]:
    """``(data, dropped)``: ``data`` is whole lines (ends with a newline); ``dropped`` bytes of the
    input were left out right before ``data``'s final newline (an over-long line was cut)."""
    carry = b""
    limit = max(block_size, LINE_CAP)
    while True:
        chunk = stream.read(block_size)
        if not chunk:
            if carry:
                yield (carry if carry.endswith(b"\n") else carry + b"\n"), 0
            return
        data = carry + chunk if carry else chunk
        nl = data.rfind(b"\n")
        if nl >= 0:
            carry = data[nl + 1:]
            yield data[: nl + 1], 0
            continue
        if len(data) <= limit:
            carry = data
            continue
        skipped, carry, _ = skip_rest_of_line(stream, block_size)
        yield data[:LINE_CAP] + b"\n", len(data) - LINE_CAP + skipped
