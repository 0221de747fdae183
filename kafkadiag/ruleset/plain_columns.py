"""Column values made plain once per rule, then read by every finding and group of it.

A finding asks the same few columns the same questions (is the producer id known, which
evidence line does this row cite, what is the earliest time) for each of its rows; a report of
tens of thousands of findings had asked them one value at a time, turning each numpy scalar into
a Python one again for every question. Integer columns are answered for all rows at once.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .model import TableSpec
from .refs import cited_by
from .templates import is_unknown, plain


def group_key(values: Sequence[object]) -> tuple:
    """A group's key as the same tuple in every process: numpy scalars and NaN normalised."""
    out = []
    for value in values:
        value = plain(value)
        if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
            value = None
        out.append(value)
    return tuple(out)


def plain_values(values: np.ndarray) -> list:
    """The values as :func:`group_key` makes them: Python scalars, whole floats as ints, NaN and NA as None."""
    if values.dtype.kind in "iub":
        return values.tolist()
    return [group_key((v,))[0] for v in values.tolist()]


def known_ints(values: np.ndarray, plain_values: list) -> list[int | None]:
    """Each value as an int where it is a known number (not -1, '', None or NaN), else None."""
    if values.dtype.kind in "iu":
        return [v if known else None for v, known in zip(plain_values, (values != -1).tolist())]
    return [int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and not is_unknown(v) else None
            for v in plain_values]


def row_refs(spec: TableSpec, raw: Mapping[str, np.ndarray], columns: Mapping[str, list], n: int) -> list[list]:
    """Per evidence column triple, the reference each row cites (None where it names no file or byte),
    as ``refs.cited_by`` reads them; integer columns at once."""
    out = []
    for triple in spec.evidence:
        file_col, line_col, byte_col = triple
        arrays = [raw.get(c) for c in triple]
        if all(a is not None and a.dtype.kind in "iu" for a in arrays):
            files, lines, bytes_ = arrays
            cites = ((files != -1) & (bytes_ != -1)).tolist()
            out.append([(f, ln, b) if ok else None
                        for f, ln, b, ok in zip(files.tolist(), lines.tolist(), bytes_.tolist(), cites)])
            continue
        refs: list = [None] * n
        for ref, i in cited_by(triple, columns, range(n)):
            refs[i] = ref
        out.append(refs)
    return out


def plain_list(values: list) -> list:
    """Each value as ``templates.plain`` makes it (numpy scalars to Python, whole floats to ints)."""
    if all(type(v) is int for v in values):
        return values
    return [plain(v) for v in values]
