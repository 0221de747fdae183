"""Vectorised condition evaluation: a condition tree over a DataFrame becomes one boolean mask.

Fact tables can hold millions of rows, so every comparison is a whole-column pandas/numpy
operation; Python only walks the (small) condition tree. Null values never match an ordering or
equality test (``ne`` and ``not_in`` treat them as different from everything). ``matches`` is
``re.search``: it matches anywhere unless the pattern is anchored with ``^``/``$``.

Regular expressions are the costly part (one Python call per value), so ``matches`` runs once
per distinct value of the column (error-code and exception columns hold a handful), and an
``all`` evaluates its regex children last and only on the rows its other children left.
"""

from __future__ import annotations

import operator
import re
from typing import Callable

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from .config import MISSING, ConfigView
from .model import AllOf, AnyOf, Comparison, Condition, NotOf, Operand

_COMPARE: dict[str, Callable[[object, object], object]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}


class ConditionError(ValueError):
    """A condition cannot be evaluated on this data (type mismatch, missing column or config)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


def condition_mask(cond: Condition, frame: pd.DataFrame, config: ConfigView) -> np.ndarray:
    """Rows of ``frame`` that satisfy ``cond``, as a numpy bool array of ``len(frame)``."""
    n = len(frame)
    if isinstance(cond, AllOf):
        return _all_of(cond, frame, config)
    if isinstance(cond, AnyOf):
        mask = np.zeros(n, dtype=bool)
        for child in cond.children:
            mask |= condition_mask(child, frame, config)
            if mask.all():
                break
        return mask
    if isinstance(cond, NotOf):
        return ~condition_mask(cond.child, frame, config)
    return _comparison(cond, frame, config)


#: Below this many rows, or above this share of rows left, an ``all`` evaluates its remaining
#: children on the whole frame: taking the subset would cost more than it saves.
SUBSET_MIN_ROWS = 512
SUBSET_MAX_SHARE = 0.5


def _costly(cond: Condition) -> bool:
    """Whether a condition runs a regular expression somewhere (evaluated last in an ``all``)."""
    if isinstance(cond, (AllOf, AnyOf)):
        return any(_costly(c) for c in cond.children)
    if isinstance(cond, NotOf):
        return _costly(cond.child)
    return cond.op == "matches"


def _all_of(cond: AllOf, frame: pd.DataFrame, config: ConfigView) -> np.ndarray:
    """Children in order, cheap ones first; once few rows are left, the rest run on those rows only."""
    n = len(frame)
    mask = np.ones(n, dtype=bool)
    rows: np.ndarray | None = None  # positions of ``part`` in ``frame`` (None: part is frame)
    part = frame
    for child in sorted(cond.children, key=_costly):  # stable: the rule's order within each kind
        sub = condition_mask(child, part, config)
        if rows is None:
            mask &= sub
        else:
            mask[rows[~sub]] = False
        left = int(mask.sum())
        if left == 0:
            break
        if n >= SUBSET_MIN_ROWS and left <= SUBSET_MAX_SHARE * len(part):
            rows = np.flatnonzero(mask)
            part = frame.take(rows)
    return mask


def _column(frame: pd.DataFrame, name: str, path: str) -> pd.Series:
    if name not in frame.columns:
        raise ConditionError(path, f"column '{name}' is missing from the table data")
    return frame[name]


def _to_mask(result: object, n: int) -> np.ndarray:
    if isinstance(result, pd.Series):
        if result.dtype == bool:
            return result.to_numpy()
        return result.to_numpy(dtype=bool, na_value=False)
    return np.full(n, bool(result), dtype=bool)


def _operand(op: Operand, frame: pd.DataFrame, config: ConfigView, path: str) -> object:
    if op.kind == "field":
        value: object = _column(frame, str(op.value), path)
    elif op.kind == "config":
        value = config.get(str(op.value))
        if value is MISSING:
            raise ConditionError(path, f"config key '{op.value}' has no value and no default")
    else:
        value = op.value
    try:
        if op.times is not None:
            value = value * op.times  # type: ignore[operator]
        if op.plus is not None:
            value = value + op.plus  # type: ignore[operator]
    except TypeError as exc:
        raise ConditionError(path, f"times/plus need a number, got {value!r}") from exc
    return value


def _known(series: pd.Series) -> pd.Series:
    """Values that are not Kafka's "none" (-1, '' or null), chosen by dtype for speed."""
    present = series.notna()
    if ptypes.is_bool_dtype(series.dtype):
        return present
    if ptypes.is_numeric_dtype(series.dtype):
        return present & (series != -1)
    if ptypes.is_string_dtype(series.dtype) and not ptypes.is_object_dtype(series.dtype):
        return present & (series != "")
    return present & ~series.isin([-1, ""])


def _comparison(cmp: Comparison, frame: pd.DataFrame, config: ConfigView) -> np.ndarray:
    series = _column(frame, cmp.field, cmp.path)
    n = len(frame)
    try:
        if cmp.op in _COMPARE:
            rhs = _operand(cmp.arg, frame, config, cmp.path)  # type: ignore[arg-type]
            if rhs is None or (isinstance(rhs, float) and np.isnan(rhs)):
                return np.zeros(n, dtype=bool) if cmp.op != "ne" else np.ones(n, dtype=bool)
            return _to_mask(_COMPARE[cmp.op](series, rhs), n)
        if cmp.op == "in":
            return _to_mask(series.isin(list(cmp.arg)), n)  # type: ignore[arg-type]
        if cmp.op == "not_in":
            return ~_to_mask(series.isin(list(cmp.arg)), n)  # type: ignore[arg-type]
        if cmp.op == "matches":
            return _matches(series, cmp.arg)  # type: ignore[arg-type]
        if cmp.op == "exists":
            known = _to_mask(_known(series), n)
            return known if cmp.arg else ~known
    except ConditionError:
        raise
    except (TypeError, ValueError) as exc:
        message = f"cannot compare column '{cmp.field}' ({series.dtype}) with {cmp.op}: {exc}"
        raise ConditionError(cmp.path, message) from exc
    raise ConditionError(cmp.path, f"unknown operator '{cmp.op}'")


def _matches(series: pd.Series, pattern: re.Pattern | str) -> np.ndarray:
    """``re.search`` over each distinct value once; null never matches (as ``str.contains(na=False)``)."""
    search = (pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)).search
    if not ptypes.is_string_dtype(series.dtype):
        series = series.astype(str)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if len(uniques) == 0:
        return np.zeros(len(series), dtype=bool)
    found = np.fromiter((isinstance(v, str) and search(v) is not None for v in uniques),
                        dtype=bool, count=len(uniques))
    return np.append(found, False)[codes]  # code -1 (null) takes the trailing False
