"""The few rows of each group that a grouped rule's finding can show, and the group's size.

A grouped rule (``group_by``) makes one finding of many rows, e.g. every fencing error a client
logged. What the finding shows comes from a handful of them: its first row in the rule's order
(the message), the distinct values of ``|list`` fields, whether subject columns agree, the
earliest start and latest end (the window), the first evidence lines, and the first row each
recommendation holds for. Keeping those rows per group, plus the group's row count, gives the
same finding as keeping all of them; and what is kept from inputs read apart, joined, still
holds every row the finding shows. So a distributed run sends these rows and the counts to the
driver, not every matched log line: the driver's memory no longer grows with the log volume.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from ..facts.registry import SUBJECT_COLUMNS
from .conditions import condition_mask
from .config import ConfigView
from .model import Rule, TableSpec
from .plain_columns import known_ints, plain_values, row_refs
from .refs import log_order

#: rule id -> group key (see :func:`.plain_columns.group_key`) -> rows in that group.
GroupCounts = dict[str, dict[tuple, int]]


def representative_rows(rule: Rule, spec: TableSpec, frame: pd.DataFrame, config: ConfigView, list_fields: set[str],
                        order: np.ndarray, max_evidence: int) -> tuple[np.ndarray, dict[tuple, int]]:
    """Positions (into ``frame``) of the rows a grouped rule's findings can show, and each group's size.

    ``order`` holds the positions of the rows the rule's condition matches, in the order its
    findings take them (``evaluate.finding_order``). Each column's values are made plain once
    (``plain_columns.group_key``'s normal form) and every group reads them; a compaction of 50,000 log rows
    had spent most of its time making the same value plain again for every question asked of it.
    """
    if len(order) == 0:
        return np.zeros(0, dtype=np.int64), {}
    raw = {c: frame[c].to_numpy()[order] for c in _used_columns(rule, spec, list_fields) if c in frame}
    columns = {c: plain_values(values) for c, values in raw.items()}
    recs = [condition_mask(r.when, frame, config)[order].tolist() if r.when is not None else None
            for r in rule.recommendations]
    if all(c in columns for c in rule.group_by):
        keys = list(zip(*(columns[c] for c in rule.group_by)))
    else:
        keys = [(None,) * len(rule.group_by)] * len(order)
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    start, end = spec.window
    window = {c: known_ints(raw[c], columns[c]) for c in (start, end) if c in columns}
    refs = row_refs(spec, raw, columns, len(order))
    keep: set[int] = set()
    for rows in groups.values():
        keep.update(_group_representatives(rows, columns, spec, list_fields, recs, window, refs, max_evidence))
    return np.sort(order[sorted(keep)]), {key: len(rows) for key, rows in groups.items()}


def _used_columns(rule: Rule, spec: TableSpec, list_fields: set[str]) -> list[str]:
    evidence = [c for triple in spec.evidence for c in triple]
    return list(dict.fromkeys([*rule.group_by, *SUBJECT_COLUMNS, *spec.window, *evidence, *sorted(list_fields)]))


def _group_representatives(rows: list[int], columns: Mapping[str, list], spec: TableSpec, list_fields: set[str],
                           recs: list, window: Mapping[str, list], refs: list[list], max_evidence: int) -> set[int]:
    """The rows (in finding order) of one group that decide its finding."""
    keep = {rows[0]}  # the finding's own row: its message and the first subject values
    for column in list_fields:  # the first row of every distinct value, in first-seen order
        if column in columns:
            keep.update(_first_of_each(rows, columns[column], limit=None))
    for column in SUBJECT_COLUMNS:  # two distinct values are enough to know the rows disagree
        if column in columns:
            keep.update(_first_of_each(rows, columns[column], limit=2))
    start, end = spec.window
    for column, pick in ((start, min), (end, max)):
        if column in window:
            values = window[column]
            known = [(values[i], i) for i in rows if values[i] is not None]
            if known:
                keep.add(pick(known)[1])
    keep.update(_first_evidence(rows, refs, max_evidence))
    for mask in recs:
        hit = next((i for i in rows if mask is None or mask[i]), None)
        if hit is not None:
            keep.add(hit)
    return keep


def _first_of_each(rows: list[int], values: list, limit: int | None) -> list[int]:
    seen: dict[object, int] = {}
    for i in rows:
        key = values[i]
        try:
            if key not in seen:
                seen[key] = i
        except TypeError:  # unhashable (a list value): keep the row
            seen[id(values[i])] = i
        if limit is not None and len(seen) >= limit:
            break
    return list(seen.values())


def _first_evidence(rows: list[int], refs: list[list], cap: int) -> set[int]:
    """Rows citing the ``cap`` first distinct evidence lines, as evaluation picks them (``refs.cited``'s order)."""
    first: dict[tuple[int, int, int], int] = {}
    for per_row in refs:
        for i in rows:
            ref = per_row[i]
            if ref is not None:
                first.setdefault(ref, i)
    return {first[ref] for ref in sorted(first, key=log_order)[: max(cap, 0)]}
