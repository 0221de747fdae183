"""Text columns of fact tables built so that equal labels are one Python object.

Rules compare label columns (``state``, ``ended_by``, ``cause`` ...) with constants many times.
When every row holds its own ``str`` (what ``np.where(...).astype(object)`` makes), each
comparison touches a separate object per row and runs about ten times slower on a few hundred
thousand spans than when the rows share a handful of objects, where equality is a pointer check.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def select_labels(conditions: Sequence[np.ndarray], choices: Sequence[object], default: str = "") -> np.ndarray:
    """``np.select`` for text: the first condition that holds picks the label (a str or a per-row array)."""
    n = len(conditions[0]) if len(conditions) else 0
    out = np.full(n, default, dtype=object)
    for cond, choice in reversed(list(zip(conditions, choices))):
        cond = np.asarray(cond, dtype=bool)
        out[cond] = choice if isinstance(choice, str) else np.asarray(choice, dtype=object)[cond]
    return out
