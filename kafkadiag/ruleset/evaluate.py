"""Run rules over fact tables and turn matching rows (or groups of rows) into Findings.

Conditions are evaluated as whole-column masks; only matched rows are copied out and turned into
Python objects. Output order is fixed by ``Finding.sort_key`` (rows are pre-sorted by window,
subject and evidence, so ties resolve the same way whatever order the input rows came in), and
finding ids ``<rule>#<n>`` are numbered in that order.
"""

from __future__ import annotations

from collections import abc
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from ..facts.registry import FACT_TABLES, SUBJECT_COLUMNS
from ..findings import Evidence, Finding, Recommendation, Subject
from .conditions import ConditionError, condition_mask
from .config import ConfigView
from .errors import RuleError
from .model import Rule, TableSpec, condition_fields
from .plain_columns import group_key, known_ints, plain_list, plain_values, row_refs
from .refs import EvidenceRef, log_order
from .representatives import GroupCounts
from .templates import Placeholder, RenderContext, Template, is_unknown

EvidenceResolver = Callable[[list[EvidenceRef]], list[Evidence]]
_INT_SUBJECT = {"producer_id", "producer_epoch", "partition"}


def evaluate(
    rules: Iterable[Rule],
    tables: Mapping[str, pd.DataFrame],
    config: Mapping[str, object],
    evidence_resolver: EvidenceResolver,
    max_evidence: int = 6,
    *,
    config_defaults: Mapping[str, object] | None = None,
    group_counts: GroupCounts | None = None,
) -> list[Finding]:
    """Findings of every rule whose table is in ``tables`` (absent or empty tables yield none).

    ``config`` is the effective configuration; keys it lacks are read from ``config_defaults``.
    ``group_counts`` gives the true size of a grouped rule's groups when ``tables`` hold only their
    representative rows (see :mod:`.representatives`).
    ``evidence_resolver`` is called once per finding with at most ``max_evidence`` distinct
    (file_id, line, byte) references in log order and returns the Evidence to show for them.
    Raises RuleError when a condition cannot be evaluated (type mismatch, config key with no value).
    """
    cfg = ConfigView(config, config_defaults)
    findings: list[Finding] = []
    for rule in rules:
        frame = tables.get(rule.table)
        if frame is None or len(frame) == 0:
            continue
        try:
            counts = group_counts.get(rule.id) if group_counts is not None else None
            findings.extend(rule_findings(rule, frame, cfg, evidence_resolver, max_evidence, counts))
        except ConditionError as exc:
            raise RuleError(f"{rule.source}: {exc} (rule {rule.id})") from None
    findings.sort(key=Finding.sort_key)
    counters: dict[str, int] = {}
    for finding in findings:
        counters[finding.rule] = counters.get(finding.rule, 0) + 1
        finding.id = f"{finding.rule}#{counters[finding.rule]}"
    return findings


def rule_findings(
    rule: Rule,
    frame: pd.DataFrame,
    config: ConfigView,
    evidence_resolver: EvidenceResolver,
    max_evidence: int = 6,
    counts: Mapping[tuple, int] | None = None,
) -> list[Finding]:
    """Findings of one rule over its table, unsorted and without ids (``counts``: see ``evaluate``)."""
    spec = rule.table_spec if rule.table_spec is not None else FACT_TABLES[rule.table]
    mask = condition_mask(rule.when, frame, config)
    if not mask.any():
        return []
    matched = _matched_rows(rule, spec, frame, np.flatnonzero(mask))
    rec_masks = [
        condition_mask(r.when, matched, config) if r.when is not None else np.ones(len(matched), dtype=bool)
        for r in rule.recommendations
    ]
    data = {c: matched[c].tolist() for c in matched.columns}
    prepared = _Prepared(spec, matched, data)
    if rule.group_by:
        grouped = matched.groupby(list(rule.group_by), sort=False, dropna=False)
        sized = [(list(g), _group_size(rule, data, g, counts)) for g in grouped.indices.values()]
        groups: Iterable[tuple[list[int], int]] = [(g, n) for g, n in sized if n >= rule.min_count]
    else:
        groups = (([i], 1) for i in range(len(matched)))
    list_fields = list_fields_of(rule)
    shared: dict = {}  # texts, and lists of texts by their contents
    return [
        _finding(rule, data, prepared, positions, size, rec_masks, list_fields, config, evidence_resolver, max_evidence,
                 shared)
        for positions, size in groups
    ]


def _group_size(rule: Rule, data: Mapping[str, list], positions: Sequence[int], counts: Mapping[tuple, int] | None) -> int:
    """Rows in a group: counted where the rows were read when only its representatives are here."""
    if counts is None:
        return len(positions)
    return counts.get(group_key([data[c][positions[0]] for c in rule.group_by]), len(positions))


def _templates(rule: Rule) -> list[Template]:
    out = [rule.message, *rule.runbook]
    for rec in rule.recommendations:
        out += [rec.value, rec.reason]
    return out


def list_fields_of(rule: Rule) -> set[str]:
    """Columns a template shows for a whole group (``{column|list}``)."""
    return {
        p.name
        for t in _templates(rule)
        for p in t.parts
        if isinstance(p, Placeholder) and p.kind == "field" and p.filter == "list"
    }


def _matched_rows(rule: Rule, spec: TableSpec, frame: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """The matched rows with only the columns findings need, in a deterministic order."""
    wanted: list[str] = list(rule.group_by)
    wanted += [c for c in SUBJECT_COLUMNS if c in spec.columns]
    wanted += list(spec.window)
    wanted += [c for triple in spec.evidence for c in triple]
    for t in _templates(rule):
        wanted += sorted(t.fields())
    for rec in rule.recommendations:
        wanted += sorted(condition_fields(rec.when))
    cols = [c for c in dict.fromkeys(wanted) if c in frame.columns]
    matched = frame.iloc[rows, [frame.columns.get_loc(c) for c in cols]].reset_index(drop=True)
    return matched.iloc[finding_order(spec, matched)].reset_index(drop=True)


def finding_order(spec: TableSpec, frame: pd.DataFrame) -> np.ndarray:
    """Positions of ``frame``'s rows in the order findings take them: window start, subject, evidence.

    A stable sort on each key's rank, unknowns last, as ``sort_values(kind="stable",
    na_position="last")`` orders them; ranked by ``np.lexsort``, because building a frame of keys
    and sorting it cost ~7 ms a call and a run makes one call per rule and table.
    """
    if len(frame) <= 1:
        return np.arange(len(frame))
    evidence_cols = [c for triple in spec.evidence for c in triple]
    order = [c for c in [spec.window[0], *SUBJECT_COLUMNS, *evidence_cols] if c in frame.columns]
    try:
        ranks = [_rank(frame[c]) for c in dict.fromkeys(order)]
    except TypeError:  # values pandas cannot order either: keep the frame's order
        return np.arange(len(frame))
    if not ranks:
        return np.arange(len(frame))
    return np.lexsort(ranks[::-1])


def _rank(series: pd.Series) -> np.ndarray:
    """Each value's rank among the column's distinct values; unknown (NaN, None, -1 numbers) ranks last."""
    codes, uniques = pd.factorize(series, sort=True)
    known = len(uniques)
    rank = np.arange(known + 1)  # the last entry is code -1's: missing, ranked after every value
    if ptypes.is_numeric_dtype(series.dtype) and not ptypes.is_bool_dtype(series.dtype):
        at = np.flatnonzero(np.asarray(uniques == -1, dtype=bool))
        if at.size:  # -1 means unknown: it ties with missing values, after every known number
            rank[at[0] + 1:known] -= 1
            rank[at[0]] = known
    return rank[codes]


class _Prepared:
    """The columns every finding of a rule reads for its subject, window and evidence, made plain
    once (:mod:`.plain_columns`) rather than value by value for each finding."""

    def __init__(self, spec: TableSpec, matched: pd.DataFrame, data: Mapping[str, list]) -> None:
        self.subject = {c: plain_list(data[c]) for c in SUBJECT_COLUMNS if c in data}
        raw = {c: matched[c].to_numpy() for c in {*spec.window, *(c for t in spec.evidence for c in t)} if c in data}
        plained = {c: plain_values(values) for c, values in raw.items()}
        start_col, end_col = spec.window
        self.starts = known_ints(raw[start_col], plained[start_col]) if start_col in raw else None
        self.ends = known_ints(raw[end_col], plained[end_col]) if end_col in raw else None
        self.refs = row_refs(spec, raw, plained, len(matched))


def _finding(
    rule: Rule,
    data: Mapping[str, list],
    prepared: _Prepared,
    positions: list[int],
    size: int,
    rec_masks: list[np.ndarray],
    list_fields: set[str],
    config: ConfigView,
    evidence_resolver: EvidenceResolver,
    max_evidence: int,
    shared: dict,
) -> Finding:
    """One finding; its fix and runbook texts, mostly equal across a rule's findings, are held once
    (``shared``): tens of thousands of findings held them as tens of megabytes of copies."""
    first = positions[0]
    group = {c: [data[c][i] for i in positions] for c in list_fields if c in data} if rule.group_by else None
    ctx = _context(data, first, config, size, group)
    refs = _evidence_refs(prepared.refs, positions, max_evidence)
    starts = _known(prepared.starts, positions)
    ends = _known(prepared.ends, positions)
    return Finding(
        rule=rule.id,
        category=rule.category,
        severity=rule.severity,
        title=rule.title,
        message=rule.message.render(ctx),
        subject=Subject(**{c: _subject_value(c, values, positions) for c, values in prepared.subject.items()}),
        window_start=min(starts) if starts else None,
        window_end=max(ends) if ends else None,
        evidence=list(evidence_resolver(refs)) if refs else [],
        recommendations=_recommendations(rule, data, positions, size, rec_masks, ctx, config, group, shared),
        runbook=_list_once(shared, [step.render(ctx) for step in rule.runbook]),
        references=_list_once(shared, list(rule.references)),
        normal_traffic=bool(rule.normal_traffic),
    )


def _context(
    data: Mapping[str, list], row: int, config: ConfigView, count: int, group: Mapping | None
) -> RenderContext:
    return RenderContext(_Row(data, row), config, count, group)


class _Row(abc.Mapping):
    """One row of the columns, read on demand: a template reads a few of a table's dozens of columns,
    and a report can hold tens of thousands of findings."""

    __slots__ = ("_data", "_row")

    def __init__(self, data: Mapping[str, list], row: int) -> None:
        self._data, self._row = data, row

    def __getitem__(self, column: str) -> object:
        return self._data[column][self._row]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _recommendations(
    rule: Rule,
    data: Mapping[str, list],
    positions: list[int],
    size: int,
    rec_masks: list[np.ndarray],
    ctx: RenderContext,
    config: ConfigView,
    group: Mapping | None,
    shared: dict,
) -> list[Recommendation]:
    """Recommendations whose ``when`` holds for some row of the finding, rendered from that row."""
    out = []
    for spec, mask in zip(rule.recommendations, rec_masks):
        hit = next((i for i in positions if mask[i]), None)
        if hit is None:
            continue
        rctx = ctx if hit == positions[0] else _context(data, hit, config, size, group)
        out.append(Recommendation(spec.side, spec.config, _held_once(shared, spec.value.render(rctx)),
                                  _held_once(shared, spec.reason.render(rctx))))
    return out


def _held_once(shared: dict, text: str) -> str:
    return shared.setdefault(text, text)


def _list_once(shared: dict, items: list[str]) -> list[str]:
    """One list object for every finding whose list is the same (its holders replace it, never
    change it in place): a list per finding was 5-10 MB on 59,000 findings."""
    return shared.setdefault(tuple(items), items)


def _known(values: list[int | None] | None, positions: list[int]) -> list[int]:
    if values is None:
        return []
    return [v for i in positions if (v := values[i]) is not None]


def _subject_value(column: str, values: list, positions: list[int]) -> object:
    """The group's common value of a subject column (``values`` made plain); None when unknown or when rows disagree."""
    if len(positions) == 1:
        value = values[positions[0]]
    else:
        seen = {values[i] for i in positions}
        if len(seen) != 1:
            return None
        value = seen.pop()
    if is_unknown(value):
        return None
    if column in _INT_SUBJECT and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    return value if column in _INT_SUBJECT else str(value)


def _evidence_refs(row_refs: list[list], positions: list[int], cap: int) -> list[EvidenceRef]:
    """Distinct (file_id, line, byte) references of the rows, in log order, at most ``cap``."""
    refs = {ref for per_row in row_refs for i in positions if (ref := per_row[i]) is not None}
    return sorted(refs, key=log_order)[: max(cap, 0)]
